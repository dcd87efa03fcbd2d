package fakeweb

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
)

// The articles of the duplicate pages. They are drawn from a vocabulary
// larger than the padding's words, so that two unrelated articles share
// almost no word 3-shingles, while the members of a near cluster share
// all but the few their edits touch.

// articleWords is the vocabulary of the articles; read-only.
var articleWords = strings.Fields(`
	the a of and to in on with from by over under across along between
	during after before while since through toward against among beyond
	bird birds flock wader godwit curlew plover knot dunlin stint tern gull
	heron egret ibis spoonbill avocet stilt oystercatcher sandpiper redshank
	greenshank whimbrel turnstone sanderling phalarope snipe woodcock
	estuary mudflat marsh lagoon shore coast bay inlet delta river creek
	channel harbour dune beach reef island peninsula cape spit tundra
	wetland saltmarsh reedbed meadow grassland forest valley ridge plateau
	tide current wind storm gale rain fog mist frost snow sun moon dawn dusk
	spring summer autumn winter season year month week night morning evening
	migration journey flight route stopover passage departure arrival
	distance altitude speed record estimate survey count census study
	observer volunteer researcher ranger warden farmer fisher pilot sailor
	feeds rests roosts breeds nests moults flies soars glides wades probes
	gathers leaves returns crosses follows reaches waits calls signals
	worm shell crab shrimp snail mussel cockle clam insect larva seed berry
	egg chick nest colony territory plumage feather wing bill leg eye
	small large long short quiet loud early late northern southern eastern
	western remote coastal inland ancient modern careful patient steady
	bright pale dark grey brown golden silver rusty speckled barred
	map chart logbook notebook camera telescope binocular ring tag
	transmitter satellite signal battery antenna network station
	village town harbourmaster lighthouse ferry bridge road path trail
	fence gate field hedge pond ditch canal sluice dyke embankment
	council agency trust charity project programme fund grant report
	policy plan permit license law treaty agreement partnership
	increase decrease change trend pattern cycle shift loss gain return
	water salt sand mud stone rock clay peat gravel silt
	many few several most every each some whole half third
	remarkable surprising unusual typical expected gradual sudden rare
`)

// article is a generated text: a title and words, punctuation attached,
// in paragraphs.
type article struct {
	title string
	words []string
	paras []int // the index one past the last word of each paragraph
}

// newArticle draws a title and then minWords to minWords+spread words
// of sentences in paragraphs.
func newArticle(r *rand.Rand, minWords, spread int) article {
	a := article{title: dupTitle(r)}
	n := minWords + r.IntN(spread+1)
	for len(a.words) < n {
		for range 3 + r.IntN(4) { // sentences in the paragraph
			k := 8 + r.IntN(10)
			for i := range k {
				word := articleWords[r.IntN(len(articleWords))]
				if i == 0 {
					word = strings.ToUpper(word[:1]) + word[1:]
				}
				if i == k-1 {
					word += "."
				} else if r.IntN(12) == 0 {
					word += ","
				}
				a.words = append(a.words, word)
			}
		}
		a.paras = append(a.paras, len(a.words))
	}
	return a
}

// dupTitle draws the title of an article: it is the first thing
// newArticle draws, so that pages can name an article without drawing
// all of it.
func dupTitle(r *rand.Rand) string {
	k := 3 + r.IntN(3)
	ws := make([]string, k)
	for i := range ws {
		ws[i] = articleWords[r.IntN(len(articleWords))]
	}
	ws[0] = strings.ToUpper(ws[0][:1]) + ws[0][1:]
	return strings.Join(ws, " ")
}

// substitute replaces k words of a at random positions with other words
// of the vocabulary: a near-duplicate's few edits.
func (a *article) substitute(r *rand.Rand, k int) {
	a.words = append([]string(nil), a.words...)
	for range k {
		i := r.IntN(len(a.words))
		word := articleWords[r.IntN(len(articleWords))]
		if end := a.words[i][len(a.words[i])-1]; end == '.' || end == ',' {
			word += string(end)
		}
		a.words[i] = word
	}
}

// Lengths of the articles, in words.
const (
	articleMinWords = 500
	articleSpread   = 100
)

// Streams of duplicate pages (the n of streamID under streamDup).
const (
	dupStreamExact    = 0
	dupStreamNear     = 1       // + cluster: the cluster's article
	dupStreamEdit     = 1 << 10 // + cluster*16 + member: a member's edits
	dupStreamDistinct = 1 << 11 // + k
	dupStreamAd       = 3 << 10 // + n: the advertisement of a near or distinct page
)

// dupPage is what the template shows around an article.
type dupPage struct {
	art     article
	date    string
	related [3]int    // distinct articles of the host
	titles  [3]string // their link texts
	ad      string
}

// dupBody renders duplicate page n of host. The exact copies are the
// same on every host; near members differ in their date line, a few
// words, their related reading and their advertisement.
func (w *Web) dupBody(host, n int) []byte {
	kind, c, m := dupKind(n)
	src := &rand.PCG{}
	r := rand.New(src)
	pg := dupPage{related: dupRelated(n)}
	switch kind {
	case ContentExact:
		w.reseed(src, streamDup, 0, dupStreamExact)
		pg.art = newArticle(r, articleMinWords+100, 0)
		pg.date = "2025-04-02"
		for i := range pg.titles {
			pg.titles[i] = dupTitle(r) // no host's own titles: the copies are the same everywhere
		}
	case ContentNear:
		w.reseed(src, streamDup, host, dupStreamNear+c)
		pg.art = newArticle(r, articleMinWords, articleSpread)
		w.reseed(src, streamDup, host, dupStreamEdit+c*16+m)
		if m > 0 {
			pg.art.substitute(r, 2+r.IntN(3))
		}
		pg.date = "2025-03-" + strconv.Itoa(10+m)
	default:
		w.reseed(src, streamDup, host, dupStreamDistinct+m)
		pg.art = newArticle(r, articleMinWords, articleSpread)
		pg.date = "2024-" + strconv.Itoa(10+r.IntN(3)) + "-" + strconv.Itoa(10+r.IntN(19))
	}
	if kind != ContentExact {
		for i, k := range pg.related {
			w.reseed(src, streamDup, host, dupStreamDistinct+k)
			pg.titles[i] = dupTitle(r)
		}
		w.reseed(src, streamDup, host, dupStreamAd+n)
	}
	ad := make([]string, 5)
	for i := range ad {
		ad[i] = articleWords[r.IntN(len(articleWords))]
	}
	pg.ad = strings.Join(ad, " ")
	return pg.render()
}

// render writes the page: the same template, and the same boilerplate,
// for every duplicate page. Its links are root-relative, so that an
// exact copy names no host.
func (pg *dupPage) render() []byte {
	var b bytes.Buffer
	s := func(ss ...string) {
		for _, x := range ss {
			b.WriteString(x)
		}
	}
	s("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", pg.art.title, "</title>\n</head>\n<body>\n",
		"<header><nav><a href=\"/\">Home</a> | Field notes | Archive | About the shorebird notes</nav></header>\n",
		"<main>\n<article>\n<h1>", pg.art.title, "</h1>\n<p class=\"date\">Published ", pg.date, "</p>\n")
	from := 0
	for _, end := range pg.art.paras {
		s("<p>", strings.Join(pg.art.words[from:end], " "), "</p>\n")
		from = end
	}
	s("</article>\n<aside class=\"related\">\n<h2>Related reading</h2>\n<ul>\n")
	for i, k := range pg.related {
		s(`<li><a href="`, dupPaths[dupDistinctFirst+k], `">`, pg.titles[i], "</a></li>\n")
	}
	s("</ul>\n</aside>\n<aside class=\"ad\"><p>Sponsored: ", pg.ad, "</p></aside>\n</main>\n",
		"<footer><p>The shorebird notes are a simulated site for testing web crawlers; every article is generated.</p></footer>\n",
		"</body>\n</html>\n")
	return b.Bytes()
}

package fakeweb

import (
	"math/rand/v2"
	"strconv"
)

// Page-level robots signals (Config.PageSignals). They are drawn from a
// PRNG stream of their own, so that enabling them changes no link
// target: it adds tags, headers, rel attributes and the links to the
// /nofollow/ pages, nothing else.

// signal is the page-level robots signal an ordinary page carries.
type signal uint8

const (
	sigNone            signal = iota
	sigMetaNofollow           // <meta name="robots" content="nofollow">
	sigMetaNone               // <meta name="robots" content="none">: noindex, nofollow
	sigMetaAgent              // <meta name="godwit" content="noindex, nofollow">
	sigMetaNoindex            // <meta name="robots" content="noindex">: links are followed
	sigMetaOther              // <meta name="otherbot" content="nofollow">: not for godwit
	sigHeaderNofollow         // X-Robots-Tag: nofollow
	sigHeaderAgent            // X-Robots-Tag: godwit: noindex, nofollow
	sigHeaderOther            // X-Robots-Tag: otherbot: nofollow: not for godwit
	sigHeaderNoarchive        // X-Robots-Tag: noindex, noarchive: links are followed
	numSignals
)

// signalSpecs is indexed by signal; read-only.
var signalSpecs = [numSignals]struct {
	metaName, metaContent string // a <meta> tag if metaName is set
	header                string // an X-Robots-Tag value if set
	nofollow              bool   // godwit must not follow the page's links
}{
	sigMetaNofollow:    {metaName: "robots", metaContent: "nofollow", nofollow: true},
	sigMetaNone:        {metaName: "robots", metaContent: "none", nofollow: true},
	sigMetaAgent:       {metaName: agent, metaContent: "noindex, nofollow", nofollow: true},
	sigMetaNoindex:     {metaName: "robots", metaContent: "noindex"},
	sigMetaOther:       {metaName: "otherbot", metaContent: "nofollow"},
	sigHeaderNofollow:  {header: "nofollow", nofollow: true},
	sigHeaderAgent:     {header: agent + ": noindex, nofollow", nofollow: true},
	sigHeaderOther:     {header: "otherbot: nofollow"},
	sigHeaderNoarchive: {header: "noindex, noarchive"},
}

func (s signal) nofollow() bool { return signalSpecs[s].nofollow }

const (
	// signalOdds: a page carries signal u+1 when u := IntN(signalOdds)
	// is below numSignals-1, so about 3 pages in 10 carry one and 1 in 6
	// is nofollow for godwit.
	signalOdds = 30
	// relNofollowOdds: one random <a> or <area> link in this many is
	// rel="nofollow".
	relNofollowOdds = 8
	// numNofollowPages: /nofollow/0 is linked from every home page with
	// rel="nofollow", /nofollow/1 from every page with a nofollow meta
	// tag, /nofollow/2 from every page with a nofollow X-Robots-Tag.
	numNofollowPages = 3
	nofollowPrefix   = "/nofollow/"
	// numFollowPages: /follow/K is linked from every page with the K-th
	// signal that does not stop godwit: sigMetaNoindex, sigMetaOther,
	// sigHeaderOther, sigHeaderNoarchive. A crawler that obeys signals
	// not meant for it misses them.
	numFollowPages = 4
	followPrefix   = "/follow/"
)

// followIndex numbers the signals that link to a /follow/ page.
var followIndex = map[signal]int{sigMetaNoindex: 0, sigMetaOther: 1, sigHeaderOther: 2, sigHeaderNoarchive: 3}

// relSpellings are the rel values of rel="nofollow" links, by link index.
var relSpellings = [...]string{"nofollow", "external nofollow", "NoFollow noopener"}

// pageSignal is the signal of page n of host: none on home pages, on
// /private/ pages and without Config.PageSignals. It is the first draw
// of the page's signal stream.
func (w *Web) pageSignal(host, n int) signal {
	if !w.cfg.PageSignals || n == 0 {
		return sigNone
	}
	src := &rand.PCG{}
	w.reseed(src, streamSignals, host, n)
	return drawSignal(rand.New(src))
}

func drawSignal(r *rand.Rand) signal {
	if u := r.IntN(signalOdds); u < int(numSignals)-1 {
		return signal(u + 1)
	}
	return sigNone
}

// appendSignalLinks marks some of the random links of page n of host
// (links[from:to]) rel="nofollow" and appends the link to a /nofollow/
// or /follow/ page, if the page has one, decorated by r, the page's link
// stream.
func (w *Web) appendSignalLinks(links []link, from, to int, r *rand.Rand, host, n int) []link {
	src := &rand.PCG{}
	w.reseed(src, streamSignals, host, n)
	sr := rand.New(src)
	sig := drawSignal(sr)
	if n == 0 {
		sig = sigNone
	}
	for i := from; i < to; i++ {
		if sr.IntN(relNofollowOdds) == 0 && (links[i].tag == tagA || links[i].tag == tagArea) {
			links[i].nofollow = true
		}
	}
	dest := target{host: host, kind: resNofollow, n: -1}
	switch {
	case n == 0:
		dest.n = 0
	case sig.nofollow() && signalSpecs[sig].metaName != "":
		dest.n = 1
	case sig.nofollow():
		dest.n = 2
	case sig != sigNone:
		dest.kind, dest.n = resFollow, followIndex[sig]
	}
	if dest.n >= 0 {
		l := w.decorate(r, host, dest, false)
		l.tag = tagA // the only element, with <area>, that has rel
		l.nofollow = n == 0
		links = append(links, l)
	}
	return links
}

// followPage renders /follow/N, which only a crawler that ignores robots
// signals meant for others, or takes noindex for nofollow, misses.
func (w *Web) followPage(host, n int) response {
	return leafPage(w.hostName(host), "Reached through signals not meant for godwit "+strconv.Itoa(n),
		"<p>Only pages whose robots signals do not stop godwit from following their links link here.</p>\n")
}

// nofollowPage renders /nofollow/N, a page no crawler obeying nofollow
// reaches.
func (w *Web) nofollowPage(host, n int) response {
	return leafPage(w.hostName(host), "Reached only through nofollow "+strconv.Itoa(n),
		"<p>Every link to this page is rel=\"nofollow\" or on a page whose links must not be followed.</p>\n")
}

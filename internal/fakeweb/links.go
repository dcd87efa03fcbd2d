package fakeweb

import (
	"math/rand/v2"
	"strings"
)

// The link graph is never stored: the links of a page are regenerated from
// (Seed, host, page) whenever the page is rendered or the ground truth is
// walked, so both always agree and memory does not grow with the web.

// target is where a link points.
type target struct {
	host int
	kind resourceKind // resPage, resRedirect, resPrivate, resOrphan, resNofollow, resFollow, resWild, resHostile, resDup or resChange
	n    int
}

// tag is the element a link is written with.
type tag uint8

const (
	tagA tag = iota
	tagArea
	tagLinkNext
	tagIframe
	tagFrame // only for random links: a tree builder drops <frame> outside a frameset
)

// form is how a link's URL is spelled. The first numAbsoluteForms name the
// host and are the only ones used across hosts.
type form uint8

const (
	formAbsolute       form = iota // http://h3.fake.test/p/7
	formUpperHost                  // http://H3.FAKE.TEST/p/7
	formPort80                     // http://h3.fake.test:80/p/7 (:443 with Config.HTTPS)
	formProtoRelative              // //h3.fake.test/p/7
	formRootRelative               // /p/7
	formDocRelative                // 7 (from /p/x), p/7 (from /)
	formDotRelative                // ./7
	formParentRelative             // ../p/7
	numForms
	numAbsoluteForms = formRootRelative
)

type link struct {
	to       target
	tag      tag
	form     form
	fragment bool // "#top"
	tracking bool // "?utm_source=news&utm_medium=email"
	nofollow bool // rel="nofollow" (Config.PageSignals)
}

// plainQuery reports whether links to t must carry no query: whether a
// /w/ path may be fetched can depend on it (RFC 9309 matches the query
// too), and the ground truth judges the path alone.
func (t target) plainQuery() bool { return t.kind == resWild }

const (
	// privateShare is the share of random links to /private/N on hosts
	// whose robots.txt disallows it.
	privateShare  = 0.1
	fragmentOdds  = 0.15
	trackingOdds  = 0.1
	trackingQuery = "?utm_source=news&utm_medium=email"
)

// PRNG streams: each (stream, host, page) triple has its own sequence, so
// generating one page never depends on having generated another.
const (
	streamLinks uint64 = iota + 1
	streamPrivateLinks
	streamText
	streamPrivateText
	streamTraps
	streamPrivateTraps
	streamBase
	streamSignals
	streamSitemap
	streamDup
	streamChange
	streamSkew
)

// streamID packs a triple into a PCG seed half; the limits in config.go
// keep host below 2^20 and n below 2^26, so the fields never overlap.
func streamID(stream uint64, host, n int) uint64 {
	x := stream<<56 | uint64(host)<<28 | uint64(n)
	// splitmix64 finalizer: PCG streams from consecutive seeds look alike
	// for the first few outputs otherwise.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// reseed points src at the stream of one page.
func (w *Web) reseed(src *rand.PCG, stream uint64, host, n int) {
	src.Seed(uint64(w.cfg.Seed), streamID(stream, host, n))
}

// appendLinks appends the crawlable links of page n of host (a /private/
// page if private) to dst. r must be backed by src.
func (w *Web) appendLinks(dst []link, src *rand.PCG, r *rand.Rand, host, n int, private bool) []link {
	stream := streamLinks
	if private {
		stream = streamPrivateLinks
	}
	w.reseed(src, stream, host, n)
	pages := w.cfg.PagesPerHost
	tree := 0
	if !private {
		fanout := w.cfg.TreeFanout
		for c := fanout*n + 1; c <= fanout*n+fanout && c < pages; c++ {
			dst = append(dst, w.decorate(r, host, target{host: host, kind: resPage, n: c}, false))
			tree++
		}
		if n == 0 && w.kind(host).hasPrivate() {
			// Guarantees every such host exposes a private page one click
			// from a seed, whatever the random links turn out to be.
			dst = append(dst, w.decorate(r, host, target{host: host, kind: resPrivate}, false))
		}
	}
	random := len(dst)
	for i := min(tree, 2); i < w.cfg.LinksPerPage; i++ {
		dst = append(dst, w.decorate(r, host, w.randomTarget(r, host), true))
	}
	if private {
		return dst
	}
	end := len(dst)
	// Links of the newer features come last, drawn after all the others,
	// so that a web without them is what it was before they existed.
	if n == 0 && w.kind(host) == RobotsWildcard {
		for i := range wildPaths {
			l := w.decorate(r, host, target{host: host, kind: resWild, n: i}, false)
			l.tracking = false
			dst = append(dst, l)
		}
	}
	if w.cfg.PageSignals {
		dst = w.appendSignalLinks(dst, random, end, r, host, n)
	}
	return dst
}

func (w *Web) randomTarget(r *rand.Rand, host int) target {
	pages := w.cfg.PagesPerHost
	cross := share(w.cfg.CrossHostShare)
	redirect := cross + share(w.cfg.RedirectShare)
	u := r.Float64()
	switch {
	case u < cross && w.cfg.Hosts > 1:
		h := r.IntN(w.cfg.Hosts - 1)
		if h >= host {
			h++
		}
		n := 0 // a quarter of cross-host links go to the home page
		if r.IntN(4) != 0 {
			n = w.linkedPage(r, h)
		}
		return target{host: h, kind: resPage, n: n}
	case u < redirect && pages > 1:
		if w.cfg.SkewedGraph {
			return target{host: host, kind: resRedirect, n: max(w.popularPage(r, host), 1)}
		}
		return target{host: host, kind: resRedirect, n: 1 + r.IntN(pages-1)}
	case u < redirect+privateShare && w.kind(host).hasPrivate():
		return target{host: host, kind: resPrivate, n: r.IntN(pages)}
	}
	return target{host: host, kind: resPage, n: w.linkedPage(r, host)}
}

// decorate picks the element and spelling of a link.
func (w *Web) decorate(r *rand.Rand, from int, t target, random bool) link {
	l := link{to: t}
	switch u := r.IntN(20); {
	case u < 12:
		l.tag = tagA
	case u < 15:
		l.tag = tagArea
	case u < 17:
		l.tag = tagLinkNext
	case u < 19 || !random:
		l.tag = tagIframe
	default:
		l.tag = tagFrame
	}
	forms := numForms
	if t.host != from {
		forms = numAbsoluteForms
	}
	l.form = form(r.IntN(int(forms)))
	l.fragment = r.Float64() < fragmentOdds
	l.tracking = r.Float64() < trackingOdds
	return l
}

// href spells a link found on host from whose relative references resolve
// against the directory baseDir ("/", "/p/", "/private/", or trapBaseDir
// for BaseHref), dressed by the traps as d says.
func (w *Web) href(l link, from int, baseDir string, d decor) string {
	p := pathOf(l.to)
	var s string
	switch l.form {
	case formAbsolute:
		s = w.scheme() + w.hostName(l.to.host) + p
	case formUpperHost:
		s = w.scheme() + strings.ToUpper(w.hostName(l.to.host)) + p
	case formPort80:
		s = w.scheme() + w.hostName(l.to.host) + w.defaultPort() + p
	case formProtoRelative:
		s = "//" + w.hostName(l.to.host) + p
	case formRootRelative:
		s = p
	case formDocRelative, formDotRelative:
		if baseDir == trapBaseDir {
			// Two levels deep: relative to the base, never to the page.
			s = relPath(baseDir, p)
			if l.form == formDotRelative || s == "" {
				s = "./" + s
			}
			break
		}
		rest, ok := strings.CutPrefix(p, baseDir)
		switch {
		case !ok:
			// baseDir is one level deep and p is not below it.
			s = "../" + p[1:]
		case rest == "":
			s = "./"
		case l.form == formDotRelative:
			s = "./" + rest
		default:
			s = rest
		}
	case formParentRelative:
		// From "/" this climbs above the root, which RFC 3986 resolves to
		// the root itself.
		s = "../" + p[1:]
		if baseDir == trapBaseDir {
			s = "../../" + p[1:]
		}
	}
	if d.sid != "" && d.sidStyle == 0 {
		s += ";jsessionid=" + d.sid
	}
	var query []string
	if l.tracking {
		query = append(query, trackingQuery[1:])
	}
	if d.escaped > 0 {
		query = append(query, escapedQuery(l.to.n))
	}
	switch {
	case d.sid == "":
	case d.sidStyle == 1:
		query = append(query, "PHPSESSID="+d.sid)
	case d.sidStyle == 2:
		query = append(query, "sid="+d.sid)
	}
	if len(query) > 0 {
		s += "?" + strings.Join(query, "&")
	}
	if l.fragment {
		s += "#top"
	}
	return s
}

// trapDecor draws how the enabled traps dress each link of page n of host
// (a /private/ page if private), requested with session ID sid. The draws
// come from a stream of their own, so that enabling a trap changes
// nothing else on the page.
func (w *Web) trapDecor(host, n int, private bool, sid string, links []link) []decor {
	d := make([]decor, len(links))
	t := w.cfg.Traps
	if !t.SessionIDs && !t.EscapedQueries && !t.UpperCaseAttrs {
		return d
	}
	stream := streamTraps
	if private {
		stream = streamPrivateTraps
	}
	src := &rand.PCG{}
	w.reseed(src, stream, host, n)
	r := rand.New(src)
	for i, l := range links {
		upper, escaped, style := r.IntN(3) == 0, r.IntN(4) == 0, r.IntN(3)
		variant := r.IntN(len(ampVariants))
		if t.UpperCaseAttrs {
			d[i].upper = upper
		}
		if l.to.plainQuery() {
			continue
		}
		if t.EscapedQueries && escaped {
			d[i].escaped = 1 + variant
		}
		if t.SessionIDs && l.to.host == host {
			d[i].sid, d[i].sidStyle = w.sessionID(sid, host, n, i), style
		}
	}
	return d
}

// trapBaseHref spells the <base href> of a BaseHref page.
func (w *Web) trapBaseHref(host, n int) string {
	src := &rand.PCG{}
	w.reseed(src, streamBase, host, n)
	switch rand.New(src).IntN(3) {
	case 0:
		return w.scheme() + w.hostName(host) + trapBaseDir
	case 1:
		return "//" + w.hostName(host) + trapBaseDir
	}
	return trapBaseDir
}

// linkedPage draws the target page of a random link to host: uniformly,
// or by popularity with Config.SkewedGraph.
func (w *Web) linkedPage(r *rand.Rand, host int) int {
	if w.cfg.SkewedGraph {
		return w.popularPage(r, host)
	}
	return r.IntN(w.cfg.PagesPerHost)
}

package fakeweb

import (
	"bytes"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const (
	htmlType  = "text/html; charset=utf-8"
	plainType = "text/plain; charset=utf-8"
	xmlType   = "application/xml"
	pdfType   = "application/pdf"
)

// response is a complete answer, computed before anything is written so
// that the request's End can be logged before the first byte goes out.
type response struct {
	status      int
	contentType string
	location    string
	body        []byte
	robotsTag   string // an X-Robots-Tag header if set
	hang        bool   // never answer

	// Config.Hostile (see hostile_serve.go).
	delay        time.Duration // wait this long (after Latency) before answering
	stream       streamKind    // the body is written by writeStream, not held in body
	length       int64         // the Content-Length of a stream, -1 if unknown
	encoding     string        // a Content-Encoding header if set
	untyped      bool          // send no Content-Type header at all
	etag         string        // validators of a page of a hostile host
	lastModified time.Time
	retryAfter   time.Duration // a Retry-After header if set: seconds,
	retryDate    bool          // or an HTTP-date
	retryHeader  string        // its value, spelled when the answer is ready

	// Config.Duplicates (see dup.go).
	chunked bool // no Content-Length: the body goes out in chunks

	// Config.Changing (see change.go).
	imsAmbiguous bool // If-Modified-Since alone cannot tell this version from the previous
	version      int  // the version of a changing page
}

// respond computes the answer for a resource of host, requested with q.
func (w *Web) respond(host int, res resource, q reqInfo) response {
	switch res.kind {
	case resRobots:
		return w.robots(host)
	case resPage:
		if w.isSPA(host) {
			return w.spaShell(host, res.n)
		}
		resp := response{status: http.StatusOK, contentType: htmlType, body: w.render(host, res.n, false, q.sid),
			robotsTag: signalSpecs[w.pageSignal(host, res.n)].header}
		if w.isHostile(host) || w.cfg.Changing {
			w.validators(&resp, host, res.n)
		}
		return resp
	case resPrivate:
		return response{status: http.StatusOK, contentType: htmlType, body: w.render(host, res.n, true, q.sid)}
	case resCalendar, resLoop, resHidden:
		return w.trapPage(host, res, "")
	case resSearch:
		if len(q.rawQuery) > maxSearchQuery {
			return plain(http.StatusRequestURITooLong)
		}
		return w.trapPage(host, res, q.rawQuery)
	case resRedirect:
		return w.redirect(host, pathOf(target{kind: resPage, n: res.n}))
	case resRobotsReal:
		return w.robotsFile(host)
	case resSitemap:
		return w.sitemap(host, res.n)
	case resOrphan:
		return w.orphanPage(host, res.n)
	case resNofollow:
		return w.nofollowPage(host, res.n)
	case resFollow:
		return w.followPage(host, res.n)
	case resWild:
		return w.wildPage(host, res.n)
	case resHostile:
		return w.hostileResponse(host, res.n)
	case resDup:
		return w.dupResponse(host, res.n)
	case resChange:
		return w.changeResponse(host, res.n, w.now())
	case resAsset:
		return w.assetResponse(host, res.n)
	case resSPAScript, resSPAPage, resSPAMore, resSPATrack:
		return w.spaResponse(host, res)
	}
	return plain(http.StatusNotFound)
}

// redirect answers 301 to path on the same host.
func (w *Web) redirect(host int, path string) response {
	loc := w.scheme() + w.hostName(host) + path
	body := "<!DOCTYPE html>\n<title>Moved Permanently</title>\n<a href=\"" + loc + "\">Moved Permanently</a>\n"
	return response{status: http.StatusMovedPermanently, contentType: htmlType, location: loc, body: []byte(body)}
}

// robots answers /robots.txt on host as its kind says; RobotsFlaky's
// failures are the handler's business (see serveHTTP), so this is its
// answer once it has recovered.
func (w *Web) robots(host int) response {
	switch w.kind(host) {
	case RobotsNotFound:
		return plain(http.StatusNotFound)
	case RobotsServerError:
		return plain(http.StatusInternalServerError)
	case RobotsHang:
		return response{hang: true}
	case RobotsRedirect:
		return w.redirect(host, robotsRealPath)
	}
	return w.robotsFile(host)
}

// robotsFile answers the robots.txt file of host with 200: the file of
// its kind, naming the host's sitemap index with Config.Sitemaps.
func (w *Web) robotsFile(host int) response {
	body := w.robotsBodies[w.kind(host)]
	if w.hasSitemaps(host) {
		body = append(bytes.Clone(body), w.sitemapLine(host)...)
	}
	resp := response{status: http.StatusOK, contentType: plainType, body: body}
	if w.cfg.ConditionalRobots {
		robotsValidators(&resp, host)
	}
	return resp
}

// leafPage is a small page that links only to its host's home page.
func leafPage(hostName, title, body string) response {
	page := "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + title + " - " + hostName +
		"</title>\n</head>\n<body>\n<h1>" + title + "</h1>\n" + body + "<p><a href=\"/\">Home</a></p>\n</body>\n</html>\n"
	return response{status: http.StatusOK, contentType: htmlType, body: []byte(page)}
}

// wildPage renders wildPaths[n]: a tiny PDF for the ".pdf" paths, which a
// crawler must not parse for links, else a leaf page.
func (w *Web) wildPage(host, n int) response {
	p := wildPaths[n]
	if strings.HasSuffix(p, ".pdf") {
		body := "%PDF-1.4\n% fakeweb: " + w.hostName(host) + p + "\n%%EOF\n"
		return response{status: http.StatusOK, contentType: pdfType, body: []byte(body)}
	}
	return leafPage(w.hostName(host), "Pattern test "+p, "<p>A page on one side of a robots.txt pattern.</p>\n")
}

// plain is a text/plain answer naming the status.
func plain(status int) response {
	body := strconv.Itoa(status) + " " + http.StatusText(status) + "\n"
	return response{status: status, contentType: plainType, body: []byte(body)}
}

// words pads pages; read-only.
var words = [...]string{
	"godwit", "tide", "estuary", "mudflat", "wader", "feather", "flock", "migration",
	"pacific", "alaska", "zealand", "wing", "beak", "shore", "marsh", "dune",
	"wind", "current", "harbour", "channel", "reed", "heron", "plover", "curlew",
	"stint", "knot", "sanderling", "dunlin", "tern", "gull", "salt", "spring",
	"autumn", "north", "south", "flight", "distance", "journey", "rest", "feed",
	"worm", "shell", "sand", "lagoon", "river", "delta", "sky", "cloud",
	"storm", "calm", "dawn", "dusk", "moon", "star", "season", "breeding",
	"tundra", "nest", "egg", "chick", "fledge", "molt", "plumage", "record",
}

// pageWriter accumulates one page. r draws the text stream of the page.
type pageWriter struct {
	b bytes.Buffer
	r *rand.Rand
}

func (p *pageWriter) s(ss ...string) {
	for _, s := range ss {
		p.b.WriteString(s)
	}
}

// words writes k random words separated by spaces.
func (p *pageWriter) words(k int) {
	for i := range k {
		if i > 0 {
			p.b.WriteByte(' ')
		}
		p.b.WriteString(words[p.r.IntN(len(words))])
	}
}

// render builds page n of host (a /private/ page if private) for a
// request that carried the session ID sid. It is a pure function of the
// Config and its arguments.
func (w *Web) render(host, n int, private bool, sid string) []byte {
	src := &rand.PCG{}
	r := rand.New(src)
	links := w.appendLinks(make([]link, 0, w.cfg.LinksPerPage+1), src, r, host, n, private)
	decors := w.trapDecor(host, n, private, sid, links)

	// The text stream is separate from the link stream, so that the
	// ground truth never has to draw the text to know the links.
	stream := streamText
	if private {
		stream = streamPrivateText
	}
	w.reseed(src, stream, host, n)

	name := w.hostName(host)
	title := "Page " + strconv.Itoa(n) + " of " + name
	baseDir := "/p/"
	switch {
	case private:
		title = "Private page " + strconv.Itoa(n) + " of " + name
		baseDir = privatePrefix
	case n == 0:
		title = "Home of " + name
		baseDir = "/"
	}
	// A <base> makes relative links resolve against /p/ even on the home
	// page, where "7" would otherwise mean "/7".
	base := !private && r.IntN(5) == 0
	if base {
		baseDir = pagePrefix
	}
	baseHref := w.scheme() + name + pagePrefix
	if w.cfg.Traps.BaseHref && !private {
		base, baseDir, baseHref = true, trapBaseDir, w.trapBaseHref(host, n)
	}

	p := &pageWriter{r: r}
	p.b.Grow(w.cfg.PageSize + 512 + 96*len(links))
	p.s("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	if sig := signalSpecs[w.pageSignal(host, n)]; !private && sig.metaName != "" {
		p.s(`<meta name="`, sig.metaName, `" content="`, sig.metaContent, "\">\n")
	}
	p.s("<title>", title, ": ")
	p.words(3)
	p.s("</title>\n")
	if base {
		p.s(`<base href="`, baseHref, "\">\n")
	}
	if w.cfg.Requisites && !private {
		w.writeHeadRequisites(p, host)
	}
	// Each link's attribute, quoted or, for UpperCaseAttrs, not.
	value := make([]string, len(links))
	for i, l := range links {
		v := attr(w.href(l, host, baseDir, decors[i]), decors[i])
		if !decors[i].upper {
			v = `"` + v + `"`
		}
		value[i] = v
	}
	for i, l := range links {
		if l.tag == tagLinkNext {
			if decors[i].upper {
				p.s(`<LINK REL=next HREF=`, value[i], ">\n")
			} else {
				p.s(`<link rel="next" href=`, value[i], ">\n")
			}
		}
	}
	p.s("</head>\n<body>\n<h1>", title, "</h1>\n")
	if w.cfg.Requisites && !private {
		w.writeBodyRequisites(p, host, n)
	}
	p.s("<p>")
	if entry := w.trapEntry(host); entry != "" && !private {
		p.s(`<a href="`, htmlEscaper.Replace(entry), `">`, string(w.trapOf(host)), "</a> ")
	}
	for i, l := range links {
		if l.tag == tagA {
			p.words(1 + r.IntN(4))
			if decors[i].upper {
				p.s(` <A HREF=`, value[i], rel(l, i), `>`)
			} else {
				p.s(` <a href=`, value[i], rel(l, i), `>`)
			}
			p.words(1 + r.IntN(2))
			p.s("</a> ")
		}
	}
	p.words(5)
	p.s("</p>\n")
	p.indexed(links, tagArea, "<map name=\"nav\">\n", "</map>\n", func(i int) {
		if decors[i].upper {
			p.s(`<AREA SHAPE=rect COORDS="0,0,80,20" HREF=`, value[i], rel(links[i], i), ` ALT="`)
		} else {
			p.s(`<area shape="rect" coords="0,0,80,20" href=`, value[i], rel(links[i], i), ` alt="`)
		}
		p.words(1)
		p.s("\">\n")
	})
	p.indexed(links, tagIframe, "", "", func(i int) {
		if decors[i].upper {
			p.s(`<IFRAME SRC=`, value[i], ` TITLE="`)
		} else {
			p.s(`<iframe src=`, value[i], ` title="`)
		}
		p.words(2)
		p.s("\"></iframe>\n")
	})
	// Outside a <frameset> a tree builder drops <frame>, but a tokenizer
	// reports it; the ground truth counts these links.
	p.indexed(links, tagFrame, "", "", func(i int) {
		if decors[i].upper {
			p.s(`<FRAME SRC=`, value[i], ">\n")
		} else {
			p.s(`<frame src=`, value[i], ">\n")
		}
	})
	if w.cfg.Traps.HiddenLinks {
		p.writeHidden(name, n)
	}
	// Links a crawler must ignore. The home page has all of them so that
	// every crawl meets each at least once.
	p.s("<p>")
	if n == 0 || r.IntN(3) == 0 {
		p.s(`Write to <a href="mailto:webmaster@`, name, `">the webmaster</a>. `)
	}
	if n == 0 || r.IntN(3) == 0 {
		p.s(`<a href="javascript:void(0)">Menu</a>. `)
	}
	if n == 0 || r.IntN(3) == 0 {
		p.s(`Call <a href="tel:+15550100">the desk</a>. `)
	}
	p.words(3)
	p.s("</p>\n")
	if n == 0 && !private && w.isHostile(host) {
		writeHostileLinks(p)
	}
	if n == 0 && !private && w.cfg.Duplicates {
		writeDupLinks(p)
	}
	if n == 0 && !private && w.cfg.Changing {
		w.writeChangeLinks(p)
	}

	const tail = "</body>\n</html>\n"
	const closeP = "</p>\n"
	for p.b.Len()+len(tail) < w.cfg.PageSize {
		p.s("<p>")
		for i := 0; i < 60 && p.b.Len()+len(tail)+len(closeP) < w.cfg.PageSize; i++ {
			p.words(1)
			p.b.WriteByte(' ')
		}
		p.s(closeP)
	}
	p.s(tail)
	return p.b.Bytes()
}

// rel is the rel attribute of link i, with a leading space, "" if none.
func rel(l link, i int) string {
	if !l.nofollow {
		return ""
	}
	return ` rel="` + relSpellings[i%len(relSpellings)] + `"`
}

// indexed writes every link with tag t, by index, between open and end if
// there is any.
func (p *pageWriter) indexed(links []link, t tag, open, end string, write func(i int)) {
	first := true
	for i, l := range links {
		if l.tag != t {
			continue
		}
		if first {
			p.s(open)
			first = false
		}
		write(i)
	}
	if !first {
		p.s(end)
	}
}

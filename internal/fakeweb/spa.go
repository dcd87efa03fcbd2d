package fakeweb

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
)

// Single-page applications (Config.SPA): the ordinary pages of an SPA
// host are empty shells whose script builds the page's text and links
// from a JSON endpoint of the host, some of them only when scrolled; see
// the package documentation, "Single-page applications".

const (
	spaScriptPath = "/spa/app.js"
	spaPagePrefix = "/api/page/" // + N + ".json"
	spaMorePrefix = "/api/more/" // + N + ".json"
	spaTrackPath  = "/api/track"
	spaJSONSuffix = ".json"

	// spaTrackRule is added to every robots.txt group with Config.SPA.
	spaTrackRule = "Disallow: " + spaTrackPath + "\n"
)

// spaScript is the script of every shell: it asks /api/track (which
// robots.txt disallows) and the page's JSON, builds the title, text and
// links from it and, when the JSON names a second page, appends its links
// once a sentinel below a tall spacer scrolls into view.
const spaScript = `"use strict";
(function () {
  var root = document.getElementById("root");
  if (!root || !root.dataset.api) return;
  fetch("` + spaTrackPath + `").catch(function () {});
  function list(links, cls) {
    var ul = document.createElement("ul");
    ul.className = cls;
    links.forEach(function (l) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = l.href;
      a.textContent = l.text;
      li.appendChild(a);
      ul.appendChild(li);
    });
    root.appendChild(ul);
  }
  function json(r) {
    if (!r.ok) throw new Error("fakeweb: " + r.status);
    return r.json();
  }
  fetch(root.dataset.api).then(json).then(function (d) {
    document.title = d.title;
    var h1 = document.createElement("h1");
    h1.textContent = d.title;
    root.appendChild(h1);
    var p = document.createElement("p");
    p.textContent = d.text;
    root.appendChild(p);
    list(d.links, "links");
    if (!d.more) return;
    var spacer = document.createElement("div");
    spacer.style.height = "3000px";
    root.appendChild(spacer);
    var sentinel = document.createElement("div");
    sentinel.id = "sentinel";
    sentinel.style.height = "1px";
    root.appendChild(sentinel);
    var io = new IntersectionObserver(function (entries) {
      if (!entries.some(function (e) { return e.isIntersecting; })) return;
      io.disconnect();
      fetch(d.more).then(json).then(function (m) { list(m.links, "more"); }).catch(function () {});
    });
    io.observe(sentinel);
  }).catch(function () {});
})();
`

// isSPA reports whether host i is a single-page application: with
// Config.SPA, hosts are picked evenly by SPAShare (host 0 first; every
// host when the share is 1).
func (w *Web) isSPA(i int) bool {
	if !w.cfg.SPA {
		return false
	}
	s := w.cfg.SPAShare
	return math.Ceil(float64(i+1)*s) > math.Ceil(float64(i)*s)
}

// spaScroll reports whether page n of an SPA host keeps part of its links
// for when it is scrolled: the even pages (the home page included).
func spaScroll(n int) bool { return n%2 == 0 }

// spaSplit splits the links of page n of an SPA host into those its JSON
// gives at once and those it gives only when scrolled: on a scrolling
// page, the second link (the second child in the tree of pages, when the
// page has two) and the second half of the others wait for the scroll.
func spaSplit(links []link, n int) (first, more []link) {
	if !spaScroll(n) || len(links) < 2 {
		return links, nil
	}
	first = append(first, links[0])
	more = append(more, links[1])
	rest := links[2:]
	half := len(rest) / 2
	first = append(first, rest[:half]...)
	more = append(more, rest[half:]...)
	return first, more
}

// resolveSPA names the script and JSON resources of an SPA host.
func (w *Web) resolveSPA(host int, clean string) (resource, bool) {
	if !w.isSPA(host) {
		return resource{}, false
	}
	switch clean {
	case spaScriptPath:
		return resource{kind: resSPAScript}, true
	case spaTrackPath:
		return resource{kind: resSPATrack}, true
	}
	for _, p := range []struct {
		prefix string
		kind   resourceKind
	}{{spaPagePrefix, resSPAPage}, {spaMorePrefix, resSPAMore}} {
		s, ok := strings.CutPrefix(clean, p.prefix)
		if !ok {
			continue
		}
		s, ok = strings.CutSuffix(s, spaJSONSuffix)
		if !ok {
			continue
		}
		n, ok := parseIndex(s)
		if !ok || n >= w.cfg.PagesPerHost || p.kind == resSPAMore && !spaScroll(n) {
			continue
		}
		return resource{kind: p.kind, n: n}, true
	}
	return resource{}, false
}

// spaSub reports whether a resource is one of the script's requests.
func (r resource) spaSub() bool {
	return r.kind == resSPAScript || r.kind == resSPAPage || r.kind == resSPAMore || r.kind == resSPATrack
}

// spaShell is page n of SPA host: no text and no links without a script.
func (w *Web) spaShell(host, n int) response {
	page := "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Loading - " + w.hostName(host) +
		"</title>\n</head>\n<body>\n<noscript>You need to enable JavaScript to run this app.</noscript>\n" +
		"<div id=\"root\" data-api=\"" + spaPagePrefix + strconv.Itoa(n) + spaJSONSuffix + "\"></div>\n" +
		"<script src=\"" + spaScriptPath + "\"></script>\n</body>\n</html>\n"
	return response{status: http.StatusOK, contentType: htmlType, body: []byte(page)}
}

// spaLink is a link as the JSON gives it: an absolute URL and a text.
type spaLink struct {
	Href string `json:"href"`
	Text string `json:"text"`
}

// spaDoc is the JSON of a page (/api/page/N.json) or of its scrolled part
// (/api/more/N.json, Links only).
type spaDoc struct {
	Title string    `json:"title,omitempty"`
	Text  string    `json:"text,omitempty"`
	Links []spaLink `json:"links"`
	More  string    `json:"more,omitempty"`
}

// spaLinks is the links page n of SPA host gives at once and when scrolled.
func (w *Web) spaLinks(host, n int) (first, more []spaLink) {
	src := &rand.PCG{}
	links := w.appendLinks(nil, src, rand.New(src), host, n, false)
	f, m := spaSplit(links, n)
	conv := func(ls []link) []spaLink {
		out := make([]spaLink, 0, len(ls))
		for _, l := range ls {
			p := pathOf(l.to)
			out = append(out, spaLink{Href: w.scheme() + w.hostName(l.to.host) + p, Text: w.hostName(l.to.host) + p})
		}
		return out
	}
	return conv(f), conv(m)
}

// spaResponse answers a script or JSON resource of SPA host.
func (w *Web) spaResponse(host int, res resource) response {
	var doc spaDoc
	switch res.kind {
	case resSPAScript:
		return response{status: http.StatusOK, contentType: "text/javascript; charset=utf-8", body: []byte(spaScript)}
	case resSPATrack:
		return response{status: http.StatusNoContent, contentType: plainType}
	case resSPAPage:
		title := "Page " + strconv.Itoa(res.n) + " of " + w.hostName(host)
		text := make([]string, 0, 12)
		for i := range 12 {
			text = append(text, words[(host*7+res.n*13+i*5)%len(words)])
		}
		first, more := w.spaLinks(host, res.n)
		doc = spaDoc{Title: title, Text: "Rendered by script: " + strings.Join(text, " ") + ".", Links: first}
		if len(more) > 0 {
			doc.More = spaMorePrefix + strconv.Itoa(res.n) + spaJSONSuffix
		}
	case resSPAMore:
		_, more := w.spaLinks(host, res.n)
		doc = spaDoc{Links: more}
	default:
		return plain(http.StatusNotFound)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return plain(http.StatusInternalServerError)
	}
	return response{status: http.StatusOK, contentType: "application/json", body: append(b, '\n')}
}

// addSPATrackRule disallows /api/track in every group of a robots.txt
// file: after the last User-agent line of each group.
func addSPATrackRule(file string) string {
	var b strings.Builder
	lines := strings.SplitAfter(file, "\n")
	for i, l := range lines {
		b.WriteString(l)
		if !strings.HasPrefix(strings.ToLower(l), "user-agent:") {
			continue
		}
		if i+1 < len(lines) && strings.HasPrefix(strings.ToLower(lines[i+1]), "user-agent:") {
			continue
		}
		b.WriteString(spaTrackRule)
	}
	return b.String()
}

// spaJudge is the judge's state for Config.SPA while it walks the log.
type spaJudge struct {
	w                *Web
	shells, noScroll truth        // what a crawl that sees only shells, or does not scroll, reaches
	shellAsked       map[int]bool // host*PagesPerHost+n: shell n of host requested
	pageAsked        map[int]bool // the same, its JSON
	hostAsked        map[int]bool // a shell of the host requested
	pages            int
}

func (w *Web) newSPAJudge(rep *Report, seeds []string, maxDepth int) *spaJudge {
	for i := range w.cfg.Hosts {
		if w.isSPA(i) {
			rep.SPAHosts++
		}
	}
	return &spaJudge{
		w:          w,
		shells:     w.walk(seeds, maxDepth, walk{sitemaps: true, nofollow: true, shells: true}),
		noScroll:   w.walk(seeds, maxDepth, walk{sitemaps: true, nofollow: true, noScroll: true}),
		shellAsked: map[int]bool{}, pageAsked: map[int]bool{}, hostAsked: map[int]bool{},
		pages: w.cfg.PagesPerHost,
	}
}

// unmade counts q as a request no page could have made.
func (s *spaJudge) unmade(rep *Report, q *Request) {
	if s == nil {
		return
	}
	rep.Unmade++
	if len(rep.UnmadeSample) < 20 {
		rep.UnmadeSample = append(rep.UnmadeSample, q.RawURL)
	}
}

// observe judges q (on host, for res) after the rules every request is
// held to, and reports whether it was a request of an SPA's script,
// which the judge does not look at further.
func (s *spaJudge) observe(rep *Report, q *Request, host int, res resource) bool {
	i := host*s.pages + res.n
	switch res.kind {
	case resNotFound:
		s.unmade(rep, q)
		return false
	case resPage:
		if s.w.isSPA(host) {
			s.shellAsked[i] = true
			s.hostAsked[host] = true
		}
		return false
	case resSPAScript:
		if !s.hostAsked[host] {
			s.unmade(rep, q)
		}
	case resSPATrack:
		rep.SPATrackRequests++
		if !s.hostAsked[host] {
			s.unmade(rep, q)
		}
	case resSPAPage:
		if !s.shellAsked[i] {
			s.unmade(rep, q)
		}
		s.pageAsked[i] = true
	case resSPAMore:
		if !s.pageAsked[i] {
			s.unmade(rep, q)
		}
	default:
		return false
	}
	return true
}

// finish counts the rendered-only and scroll-only pages, and those covered.
func (s *spaJudge) finish(rep *Report, t truth, covered []bool) {
	for i, d := range t.pages {
		if d < 0 {
			continue
		}
		if s.shells.pages[i] < 0 {
			rep.RenderedOnly++
			if covered[i] {
				rep.RenderedOnlyCovered++
			}
		}
		if s.noScroll.pages[i] < 0 {
			rep.ScrollOnly++
			if covered[i] {
				rep.ScrollOnlyCovered++
			}
		}
	}
}

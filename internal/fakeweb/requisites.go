package fakeweb

import (
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Page requisites (Config.Requisites): every ordinary page embeds
// resources a browser needs to render it, some on the host's "CDN" (the
// next host, h(i+1 mod Hosts)), some only named in a stylesheet; see the
// package documentation, "Page requisites".

// The fixed assets of a host, by resource n; then, from assetPageFirst,
// two images per page: 2m for page m's image, 2m+1 for its 2x version.
const (
	assetSiteCSS = iota
	assetBaseCSS
	assetAppJS
	assetBg
	assetH1
	assetFont
	assetLibJS
	assetIcon
	assetPageFirst

	assetPrefix     = "/a/"
	assetPagePrefix = "/a/i/"
)

// assetPaths names the fixed assets; read-only.
var assetPaths = [assetPageFirst]string{
	"/a/site.css", "/a/base.css", "/a/app.js", "/a/bg.png", "/a/img/h1.png", "/a/font.woff2", "/a/lib.js", "/a/icon.png",
}

// privateRequisite is the requisite that hosts whose robots.txt
// disallows /private/ embed on their home page: a crawler must not fetch
// it, requisite or not.
const privateRequisite = "/private/logo.png"

// cdnHost is the host that serves host's CDN assets.
func (w *Web) cdnHost(host int) int { return (host + 1) % w.cfg.Hosts }

// resolveAsset names a requisite path.
func (w *Web) resolveAsset(clean string) (resource, bool) {
	if !w.cfg.Requisites || !strings.HasPrefix(clean, assetPrefix) {
		return resource{}, false
	}
	for n, p := range assetPaths {
		if clean == p {
			return resource{kind: resAsset, n: n}, true
		}
	}
	s, ok := strings.CutPrefix(clean, assetPagePrefix)
	if !ok {
		return resource{}, false
	}
	s, ok = strings.CutSuffix(s, ".png")
	if !ok {
		return resource{}, false
	}
	s, twice := strings.CutSuffix(s, "-2x")
	m, ok := parseIndex(s)
	if !ok || m >= w.cfg.PagesPerHost {
		return resource{}, false
	}
	n := assetPageFirst + 2*m
	if twice {
		n++
	}
	return resource{kind: resAsset, n: n}, true
}

// assetPath is the path of asset n.
func assetPath(n int) string {
	if n < assetPageFirst {
		return assetPaths[n]
	}
	m := (n - assetPageFirst) / 2
	if (n-assetPageFirst)%2 == 1 {
		return assetPagePrefix + strconv.Itoa(m) + "-2x.png"
	}
	return assetPagePrefix + strconv.Itoa(m) + ".png"
}

// pngBytes is a valid 2×2 red PNG (image/png's encoding), so that a
// browser replaying the archive decodes the images (naturalWidth 2).
// Each image appends its path after the IEND chunk, which decoders
// ignore, so that no two have the same payload.
const pngBytes = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x02\b\x02\x00\x00\x00\xfd\xd4\x9as\x00\x00\x00\x17IDATx\x9cb9!'\xc7\xc0\xc0\xc0\xc4\x00\x06\x80\x00\x00\x00\xff\xff\r.\x01\vY\xa4\xf00\x00\x00\x00\x00IEND\xaeB`\x82"

// assetResponse answers asset n of host. Every host serves every asset
// path; which host a page names for which asset is the requisite graph.
func (w *Web) assetResponse(host, n int) response {
	cdn := w.scheme() + w.hostName(w.cdnHost(host))
	ok := func(ct, body string) response {
		return response{status: http.StatusOK, contentType: ct, body: []byte(body)}
	}
	switch n {
	case assetSiteCSS:
		return ok("text/css", "@charset \"utf-8\";\n@import url(\"/a/base.css\");\n"+
			"/* url(/a/commented.png) is no requisite */\n"+
			"body { background: #fff url('/a/bg.png') no-repeat }\n"+
			"@font-face { font-family: Godwit; src: url(\""+cdn+"/a/font.woff2\") format(\"woff2\") }\n")
	case assetBaseCSS:
		return ok("text/css", "h1 { color: rgb(1, 2, 3); background-image: url(img/h1.png) }\n")
	case assetAppJS, assetLibJS:
		return ok("application/javascript", "\"use strict\";\n// "+w.hostName(host)+assetPath(n)+"\n")
	case assetFont:
		return ok("font/woff2", "wOF2"+w.hostName(host))
	}
	return ok("image/png", pngBytes+assetPath(n))
}

// writeHeadRequisites writes the <head> requisites of every page of host.
func (w *Web) writeHeadRequisites(p *pageWriter, host int) {
	cdn := w.scheme() + w.hostName(w.cdnHost(host))
	p.s(`<link rel="stylesheet" href="/a/site.css">`, "\n",
		`<link rel="icon" href="/a/icon.png">`, "\n",
		`<script src="/a/app.js"></script>`, "\n",
		`<script src="`, cdn, `/a/lib.js" defer></script>`, "\n")
}

// writeBodyRequisites writes the images of page n of host.
func (w *Web) writeBodyRequisites(p *pageWriter, host, n int) {
	img := assetPath(assetPageFirst + 2*n)
	p.s(`<p><img src="`, img, `" srcset="`, assetPath(assetPageFirst+2*n+1), ` 2x" alt="figure `, strconv.Itoa(n), `"></p>`, "\n")
	if n == 0 && w.kind(host).hasPrivate() {
		p.s(`<img src="`, privateRequisite, `" alt="">`, "\n")
	}
}

// requisite is one requisite of a page, by the host that serves it.
type requisite struct {
	host, n int
}

// pageRequisites calls f with each requisite page n of host needs, the
// stylesheets' own included: what a crawler that fetched the page (and
// could fetch everything) must fetch for it.
func (w *Web) pageRequisites(host, n int, f func(requisite)) {
	cdn := w.cdnHost(host)
	for _, a := range [...]int{assetSiteCSS, assetBaseCSS, assetAppJS, assetBg, assetH1, assetIcon} {
		f(requisite{host, a})
	}
	f(requisite{cdn, assetLibJS})
	f(requisite{cdn, assetFont})
	f(requisite{host, assetPageFirst + 2*n})
	f(requisite{host, assetPageFirst + 2*n + 1})
}

// politeness is the number of violations of politeness and robots.txt
// counted so far.
func (r *Report) politeness() int {
	return r.ConcurrencyViolations + r.GapViolations + r.DisallowedRequests + r.BeforeRobots +
		r.UnavailableHostRequests + r.RetryAfterViolations + r.IPConcurrencyViolations + r.IPGapViolations
}

// judgeRequisite judges request q for the requisite key (canonical host
// and path), after the rules every request is held to: polite was
// Report.politeness before them.
func (w *Web) judgeRequisite(rep *Report, q *Request, key string, polite int, answered, ok map[string]bool, j Judge) {
	if rep.politeness() > polite {
		rep.RequisiteViolations++
	}
	if answered[key] && !j.Revisits {
		rep.Duplicates++
		rep.RequisiteDuplicates++
		rep.flag(ViolationDuplicate, q, "requisite %s was already fetched", "http://"+key)
	}
	if q.Status != 0 && q.Status != http.StatusTooManyRequests && q.Status < 500 {
		answered[key] = true
	}
	if q.Status == http.StatusOK {
		ok[key] = true
	}
}

// finishRequisites counts the requisites the pages answered need, and
// how many of them, and of others, were fetched.
func (w *Web) finishRequisites(rep *Report, pagesOK map[int]bool, fetched map[string]bool) {
	need := map[string]bool{}
	pages := w.cfg.PagesPerHost
	for i := range pagesOK {
		w.pageRequisites(i/pages, i%pages, func(r requisite) {
			p := assetPath(r.n)
			if !w.up(r.host) {
				return
			}
			if allowed, _, _ := w.allowed(r.host, p); !allowed {
				return
			}
			need[w.hostName(r.host)+p] = true
		})
	}
	rep.Requisites = len(need)
	for _, k := range slices.Sorted(maps.Keys(need)) {
		if fetched[k] {
			rep.RequisitesFetched++
		} else if len(rep.RequisitesMissing) < 20 {
			rep.RequisitesMissing = append(rep.RequisitesMissing, k)
		}
	}
	for k := range fetched {
		if !need[k] {
			rep.RequisitesUnneeded++
		}
	}
}

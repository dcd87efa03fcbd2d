package fakeweb

import (
	"net/url"
	"path"
	"strconv"
	"strings"
)

// This file is the judge's own idea of URL equivalence. It is deliberately
// independent of the crawler's normalization: lower-case host, no ":80",
// no query, no fragment, dot segments and repeated slashes removed, and the
// path resolved to the resource it names.

// resourceKind is what a cleaned path names on a host.
type resourceKind uint8

const (
	resNotFound resourceKind = iota
	resPage                  // "/" (n = 0) or "/p/N"
	resRedirect              // "/r/N", 301 to "/p/N"
	resPrivate               // "/private/N", only on hosts whose robots.txt disallows /private/
	resRobots                // "/robots.txt"
	// Trap resources (traps.go): 200 pages outside the ground truth,
	// except resBaseMiss, a 404 only a crawler ignoring <base> asks for.
	resCalendar // "/calendar/YYYY/MM/", n = YYYY*12 + MM-1
	resLoop     // "/docs/" + "a/b/" × n
	resSearch   // "/search?anything"
	resHidden   // "/hidden/..."
	resBaseMiss // "/N"
	// Resources of the robots.txt, sitemap and page-signal features.
	resRobotsReal // "/robots-real.txt", where a RobotsRedirect robots.txt points
	resSitemap    // sitemapPaths[n], with Config.Sitemaps
	resOrphan     // "/orphan/N", only listed in sitemaps
	resNofollow   // "/nofollow/N", only linked through nofollow
	resFollow     // "/follow/N", only linked from pages whose signals godwit must ignore
	resWild       // wildPaths[n], on RobotsWildcard hosts
	resHostile    // hostileSpecs[n], with Config.Hostile
	resDup        // dupPaths[n], with Config.Duplicates
	resChange     // "/c/N", with Config.Changing
	resAsset      // assetPath(n), a page requisite, with Config.Requisites
	// The script's requests on an SPA host (spa.go), with Config.SPA.
	resSPAScript // "/spa/app.js"
	resSPAPage   // "/api/page/N.json"
	resSPAMore   // "/api/more/N.json", on scrolling pages
	resSPATrack  // "/api/track", which robots.txt disallows
)

type resource struct {
	kind resourceKind
	n    int
}

// robots reports whether the resource is a robots.txt file, which the
// judge holds to no rule but politeness.
func (r resource) robots() bool { return r.kind == resRobots || r.kind == resRobotsReal }

const (
	robotsPath    = "/robots.txt"
	pagePrefix    = "/p/"
	redirPrefix   = "/r/"
	privatePrefix = "/private/"
)

// canonicalAuthority lower-cases a host[:port] and drops the default port.
func canonicalAuthority(authority string) string {
	a := strings.ToLower(authority)
	if h, ok := strings.CutSuffix(a, ":80"); ok && !strings.Contains(h, ":") {
		return h
	}
	return a
}

// lookupHost returns the index of the virtual host an authority names
// ("h3.fake.test", "H3.FAKE.TEST:80").
func (w *Web) lookupHost(authority string) (int, bool) {
	a := canonicalAuthority(authority)
	label, ok := strings.CutSuffix(a, w.dotDomain)
	if !ok {
		return 0, false
	}
	digits, ok := strings.CutPrefix(label, "h")
	if !ok {
		return 0, false
	}
	n, ok := parseIndex(digits)
	if !ok || n >= w.cfg.Hosts {
		return 0, false
	}
	return n, true
}

// inDomain reports whether an authority is the web's domain or under it,
// existing host or not.
func (w *Web) inDomain(authority string) bool {
	a := canonicalAuthority(authority)
	return a == w.cfg.Domain || strings.HasSuffix(a, w.dotDomain)
}

// parseIndex accepts plain decimal without sign or leading zeros, so that
// each page has exactly one path ("/p/007" is not "/p/7").
func parseIndex(s string) (int, bool) {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// cleanPath removes dot segments and repeated slashes, as most servers do
// before routing, but keeps a trailing slash: "/p/7/" is not "/p/7".
func cleanPath(p string) string {
	if p == "" || p == "/" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	c := path.Clean(p)
	if c != "/" && (strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..")) {
		c += "/"
	}
	return c
}

// resolve names the resource a cleaned path denotes on host.
func (w *Web) resolve(host int, clean string) resource {
	if clean == "/" {
		return resource{kind: resPage}
	}
	if clean == robotsPath {
		return resource{kind: resRobots}
	}
	pages := w.cfg.PagesPerHost
	if s, ok := strings.CutPrefix(clean, pagePrefix); ok {
		if n, ok := parseIndex(s); ok && n >= 1 && n < pages {
			return resource{kind: resPage, n: n}
		}
	}
	if s, ok := strings.CutPrefix(clean, redirPrefix); ok {
		if n, ok := parseIndex(s); ok && n >= 1 && n < pages {
			return resource{kind: resRedirect, n: n}
		}
	}
	if s, ok := strings.CutPrefix(clean, privatePrefix); ok && w.kind(host).hasPrivate() {
		if n, ok := parseIndex(s); ok && n < pages {
			return resource{kind: resPrivate, n: n}
		}
	}
	if r, ok := w.resolveFeature(host, clean); ok {
		return r
	}
	if r, ok := w.resolveSPA(host, clean); ok {
		return r
	}
	if r, ok := w.resolveTrap(host, clean); ok {
		return r
	}
	return resource{kind: resNotFound}
}

// resolveFeature names the resources that exist only with a robots.txt
// kind or a feature of Config.
func (w *Web) resolveFeature(host int, clean string) (resource, bool) {
	kind := w.kind(host)
	if clean == robotsRealPath && kind == RobotsRedirect {
		return resource{kind: resRobotsReal}, true
	}
	if w.cfg.Sitemaps {
		for n, p := range sitemapPaths {
			if clean == p {
				return resource{kind: resSitemap, n: n}, true
			}
		}
		if s, ok := strings.CutPrefix(clean, orphanPrefix); ok && w.hasSitemaps(host) {
			if n, ok := parseIndex(s); ok && n < w.cfg.orphans() {
				return resource{kind: resOrphan, n: n}, true
			}
		}
	}
	if s, ok := strings.CutPrefix(clean, nofollowPrefix); ok && w.cfg.PageSignals {
		if n, ok := parseIndex(s); ok && n < numNofollowPages {
			return resource{kind: resNofollow, n: n}, true
		}
	}
	if s, ok := strings.CutPrefix(clean, followPrefix); ok && w.cfg.PageSignals {
		if n, ok := parseIndex(s); ok && n < numFollowPages {
			return resource{kind: resFollow, n: n}, true
		}
	}
	if kind == RobotsWildcard {
		if n, ok := wildIndex(clean); ok {
			return resource{kind: resWild, n: n}, true
		}
	}
	if w.cfg.Duplicates {
		if n, ok := dupIndex(clean); ok {
			return resource{kind: resDup, n: n}, true
		}
	}
	if n, ok := w.changeIndex(clean); ok {
		return resource{kind: resChange, n: n}, true
	}
	if r, ok := w.resolveAsset(clean); ok {
		return r, true
	}
	return w.resolveHostile(host, clean)
}

// clean is cleanPath, after removing ";jsessionid=..." path parameters
// when the web hands out session IDs.
func (w *Web) clean(p string) string {
	if w.cfg.Traps.SessionIDs {
		p = stripPathParams(p)
	}
	return cleanPath(p)
}

// parseURL splits an absolute http URL into the virtual host it names and
// its cleaned path.
func (w *Web) parseURL(raw string) (host int, clean string, ok bool) {
	host, clean, _, ok = w.parseRequestURL(raw)
	return host, clean, ok
}

// parseRequestURL is parseURL, also returning what the page depends on
// beyond its path: the query and the session ID.
func (w *Web) parseRequestURL(raw string) (host int, clean string, q reqInfo, ok bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme+"://" != w.scheme() {
		return 0, "", q, false
	}
	host, ok = w.lookupHost(u.Host)
	if !ok {
		return 0, "", q, false
	}
	return host, w.clean(u.Path), w.reqInfo(u.Path, u.RawQuery), true
}

// reqInfo is what a response depends on beyond the resource.
type reqInfo struct {
	rawQuery string // the search of a Search trap page
	sid      string // the session ID the links of a page derive theirs from
}

func (w *Web) reqInfo(path, rawQuery string) reqInfo {
	q := reqInfo{rawQuery: rawQuery}
	if w.cfg.Traps.SessionIDs {
		q.sid = sessionOf(path, rawQuery)
	}
	return q
}

// hostName is the canonical name of host i.
func (w *Web) hostName(i int) string {
	return "h" + strconv.Itoa(i) + w.dotDomain
}

// appendPath appends the canonical path of a link target to dst.
func appendPath(dst []byte, t target) []byte {
	var prefix string
	switch t.kind {
	case resRedirect:
		prefix = redirPrefix
	case resPrivate:
		prefix = privatePrefix
	case resOrphan:
		prefix = orphanPrefix
	case resNofollow:
		prefix = nofollowPrefix
	case resFollow:
		prefix = followPrefix
	case resWild:
		return append(dst, wildPaths[t.n]...)
	case resHostile:
		return append(dst, hostileSpecs[t.n].path...)
	case resDup:
		return append(dst, dupPaths[t.n]...)
	case resChange:
		prefix = changePrefix
	case resAsset:
		return append(dst, assetPath(t.n)...)
	default:
		if t.n == 0 {
			return append(dst, '/')
		}
		prefix = pagePrefix
	}
	return strconv.AppendInt(append(dst, prefix...), int64(t.n), 10)
}

// pathOf is the canonical path of a link target.
func pathOf(t target) string {
	var b [32]byte
	return string(appendPath(b[:0], t))
}

// Identity returns the resource rawURL names, as the judge tells URLs
// apart when it counts duplicates: the canonical host and cleaned path
// ("h3.fake.test/p/7"), with the sorted query of a search trap page, and
// with the query of a charset query target of the hostile web. Two
// URLs with one identity are one page. ok is false for URLs that are not
// absolute http URLs of a host of this web.
func (w *Web) Identity(rawURL string) (id string, ok bool) {
	host, clean, q, ok := w.parseRequestURL(rawURL)
	if !ok {
		return "", false
	}
	res := w.resolveQuery(host, clean, q.rawQuery)
	if res.kind == resSearch {
		return w.hostName(host) + searchKey(rawURL), true
	}
	return w.hostName(host) + clean + querySuffix(res), true
}

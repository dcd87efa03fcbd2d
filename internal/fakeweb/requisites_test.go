package fakeweb_test

import (
	"bytes"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestRequisitesServedAndJudged fetches by hand what a crawler would for
// the home page of h0: the page, its requisites (h1 is its CDN), the
// stylesheets' own; then a requisite again and an image of a page never
// fetched. The judge must count each, and the requisites stay out of the
// pages' accounting.
func TestRequisitesServedAndJudged(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 10, Requisites: true,
		Robots: []fakeweb.RobotsKind{fakeweb.RobotsDisallow, fakeweb.RobotsAllow}})
	get(t, tw.proxy, "http://h0.fake.test/robots.txt")
	get(t, tw.proxy, "http://h1.fake.test/robots.txt")
	home := string(get(t, tw.proxy, "http://h0.fake.test/").body)
	for _, want := range []string{`<link rel="stylesheet" href="/a/site.css">`, `src="http://h1.fake.test/a/lib.js"`,
		`<img src="/a/i/0.png" srcset="/a/i/0-2x.png 2x"`, `<img src="/private/logo.png"`} {
		if !strings.Contains(home, want) {
			t.Errorf("home page lacks %s", want)
		}
	}
	css := get(t, tw.proxy, "http://h0.fake.test/a/site.css")
	if css.status != 200 || css.header.Get("Content-Type") != "text/css" ||
		!strings.Contains(string(css.body), `url("http://h1.fake.test/a/font.woff2")`) || !strings.Contains(string(css.body), `@import url("/a/base.css")`) {
		t.Errorf("site.css = %d %q %q", css.status, css.header.Get("Content-Type"), css.body)
	}
	for _, u := range []string{"http://h0.fake.test/a/base.css", "http://h0.fake.test/a/app.js", "http://h0.fake.test/a/bg.png",
		"http://h0.fake.test/a/img/h1.png", "http://h0.fake.test/a/icon.png", "http://h0.fake.test/a/i/0.png",
		"http://h0.fake.test/a/i/0-2x.png", "http://h1.fake.test/a/lib.js", "http://h1.fake.test/a/font.woff2"} {
		r := get(t, tw.proxy, u)
		if r.status != 200 {
			t.Errorf("GET %s = %d, want 200", u, r.status)
		}
		if strings.HasSuffix(u, ".png") {
			if img, err := png.Decode(bytes.NewReader(r.body)); err != nil || img.Bounds().Dx() != 2 {
				t.Errorf("%s does not decode as a 2×2 PNG: %v", u, err)
			}
		}
	}
	r := tw.web.Report(fakeweb.Judge{})
	if r.Requisites != 10 || r.RequisitesFetched != 10 || r.RequisiteRequests != 10 || r.PageRequests != 1 || !r.OK() {
		t.Errorf("after the home page and its requisites: %s", r)
	}

	// A requisite again, the disallowed one, and one no fetched page needs.
	get(t, tw.proxy, "http://h0.fake.test/a/bg.png")
	get(t, tw.proxy, "http://h0.fake.test/private/logo.png")
	get(t, tw.proxy, "http://h0.fake.test/a/i/5.png")
	if r := get(t, tw.proxy, "http://h0.fake.test/a/i/10.png"); r.status != http.StatusNotFound {
		t.Errorf("image of page 10 of 10 = %d, want 404", r.status)
	}
	r = tw.web.Report(fakeweb.Judge{})
	if r.RequisiteDuplicates != 1 || r.Duplicates != 1 || r.RequisitesUnneeded != 1 || r.DisallowedRequests != 1 || r.RequisiteViolations != 1 {
		t.Errorf("after a duplicate, a disallowed and an unneeded requisite: %s", r)
	}
	if r.Requisites != 10 || r.RequisitesFetched != 10 {
		t.Errorf("requisites %d/%d, want 10/10", r.RequisitesFetched, r.Requisites)
	}
}

// TestRequisitesOffUnchanged: without Config.Requisites the pages embed
// no requisite, and /a/ paths do not exist.
func TestRequisitesOffUnchanged(t *testing.T) {
	off := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 10})
	on := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 10, Requisites: true})
	plain := string(get(t, off.proxy, "http://h0.fake.test/p/3").body)
	with := string(get(t, on.proxy, "http://h0.fake.test/p/3").body)
	if strings.Contains(plain, "/a/") || !strings.Contains(with, "/a/i/3.png") {
		t.Errorf("requisites off: page has /a/ links %v; on: page lacks its image %v", strings.Contains(plain, "/a/"), !strings.Contains(with, "/a/i/3.png"))
	}
	if r := get(t, off.proxy, "http://h0.fake.test/a/site.css"); r.status != http.StatusNotFound {
		t.Errorf("site.css without requisites = %d, want 404", r.status)
	}
}

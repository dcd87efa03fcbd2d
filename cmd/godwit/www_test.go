package main

import (
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/frontier"
)

// TestCrawlLearnsWWWAliases is the acceptance test of www. and bare-host
// aliases: a 10-host Shapes web where every host also answers the same
// pages under its www. name and pages link both names (odd hosts seeded
// under their www. name); on h2 the www.
// name is a different site, which must be crawled fully under both
// names; on h3 the bare name redirects to www. Judged from the server
// side: at most 2 pages per host fetched again under the other name,
// every page of both of h2's sites, no page fetched twice under one
// spelling. The same crawl with learning off fetches every host's pages
// under both names, which shows the judge can tell.
func TestCrawlLearnsWWWAliases(t *testing.T) {
	web, addr := startShapes(t, fakeweb.ShapesConfig{Hosts: 10, WWW: true})
	s := testSettings(t, addr)
	s.Delay = 2 * time.Millisecond
	res := crawlInProcess(t, s, web.Seeds())
	r := web.Report()
	t.Logf("server side: %s", r)
	t.Logf("www fetches per host: %v", r.WWWFetches)
	t.Logf("crawler: %+v", res.Stats.Aliases)
	if r.Coverage != 1 {
		t.Errorf("coverage %.3f, want 1; missing %v", r.Coverage, r.Missing)
	}
	if m := r.MaxWWWFetches(); m > 2 {
		t.Errorf("pages fetched again under the other name: up to %d per host, want at most 2: %v", m, r.WWWFetches)
	}
	if n := r.WWWFetches["h2."+web.Config().Domain] + r.WWWFetches["www.h2."+web.Config().Domain]; n != 0 {
		t.Errorf("%d pages of h2 fetched under both names, whose sites differ", n)
	}
	if r.Duplicates != 0 {
		t.Errorf("%d duplicate requests", r.Duplicates)
	}
	if r.WWWRedirects == 0 {
		t.Errorf("h3's bare name was never asked: the web does not tell")
	}
	if n := r.WWWFetches["h3."+web.Config().Domain]; n != 0 {
		t.Errorf("%d pages of h3, whose bare name redirects, fetched under both names", n)
	}

	// The pairs' rules are kept with the alias names' host records:
	// www.h0 (h0 is seeded) is the same site as h0, www.h2 is not.
	fr, err := frontier.Open(frontier.Options{Dir: dataDir(s.Data).state()})
	if err != nil {
		t.Fatal(err)
	}
	b := &backend{now: time.Now}
	d := web.Config().Domain
	for host, want := range map[string]string{"www.h0." + d: "same site as h0." + d + ": adopted", "www.h2." + d: "same site as h2." + d + ": contradicted"} {
		info, ok, err := fr.Host(host)
		if err != nil || !ok {
			t.Fatalf("Host(%s) = %v, %v", host, ok, err)
		}
		var out strings.Builder
		printHost(&out, b.host(info, 0), time.Now())
		if !strings.Contains(out.String(), want) {
			t.Errorf("hosts show %s:\n%s\nwant %q", host, out.String(), want)
		}
	}
	if err := fr.Close(); err != nil {
		t.Fatal(err)
	}

	web.Reset()
	s = testSettings(t, addr)
	s.Delay = 2 * time.Millisecond
	off := false
	s.URL.LearnAliases = &off
	crawlInProcess(t, s, web.Seeds())
	r = web.Report()
	t.Logf("learning off: %s", r)
	if m := r.MaxWWWFetches(); m <= 2 || r.Coverage != 1 {
		t.Errorf("with learning off, pages fetched under both names at most %d per host, coverage %.3f: the web does not tell", m, r.Coverage)
	}
}

package fakeweb_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

type spaDoc struct {
	Title string `json:"title"`
	Text  string `json:"text"`
	Links []struct {
		Href string `json:"href"`
	} `json:"links"`
	More string `json:"more"`
}

var dataAPI = regexp.MustCompile(`<div id="root" data-api="([^"]+)"></div>`)

func TestSPAShapeServed(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{Hosts: 4, PagesPerHost: 8, SPA: true, SPAShare: 0.5, Robots: []fakeweb.RobotsKind{fakeweb.RobotsDisallow, fakeweb.RobotsAllow}})
	c := tw.proxy

	// h0 and h2 are SPAs, h1 and h3 static.
	for _, h := range []string{"h0", "h2"} {
		robots := get(t, c, "http://"+h+".fake.test/robots.txt")
		if !strings.Contains(string(robots.body), "User-agent: *\nDisallow: /api/track\n") {
			t.Errorf("%s robots.txt does not disallow /api/track for every agent:\n%s", h, robots.body)
		}
		shell := get(t, c, "http://"+h+".fake.test/")
		body := string(shell.body)
		if shell.status != http.StatusOK || !dataAPI.MatchString(body) || !strings.Contains(body, "<noscript>") ||
			!strings.Contains(body, `<script src="/spa/app.js">`) || strings.Contains(body, "<a ") {
			t.Errorf("%s home is not an empty shell: %d\n%s", h, shell.status, body)
		}
	}
	static := get(t, c, "http://h1.fake.test/")
	if dataAPI.Match(static.body) || !strings.Contains(string(static.body), "<a ") {
		t.Errorf("h1 home is not a static page:\n%s", static.body)
	}
	if r := get(t, c, "http://h1.fake.test/api/page/0.json"); r.status != http.StatusNotFound {
		t.Errorf("static host answers /api/page/0.json with %d", r.status)
	}

	js := get(t, c, "http://h0.fake.test/spa/app.js")
	for _, want := range []string{`fetch("/api/track")`, "root.dataset.api", "IntersectionObserver", "createElement(\"a\")"} {
		if !strings.Contains(string(js.body), want) {
			t.Errorf("app.js lacks %q", want)
		}
	}
	if ct := js.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
		t.Errorf("app.js Content-Type %q", ct)
	}
	if r := get(t, c, "http://h0.fake.test/api/track"); r.status != http.StatusNoContent {
		t.Errorf("/api/track answered %d", r.status)
	}

	var home spaDoc
	r := get(t, c, "http://h0.fake.test/api/page/0.json")
	if err := json.Unmarshal(r.body, &home); err != nil || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("home JSON %q: %v (%s)", r.body, err, r.header.Get("Content-Type"))
	}
	hrefs := func(d spaDoc) map[string]bool {
		m := map[string]bool{}
		for _, l := range d.Links {
			m[l.Href] = true
		}
		return m
	}
	// The tree: the home page links to /p/1 at once, to /p/2 only when scrolled.
	if !hrefs(home)["http://h0.fake.test/p/1"] || hrefs(home)["http://h0.fake.test/p/2"] || home.More != "/api/more/0.json" || home.Text == "" {
		t.Errorf("home JSON = %+v", home)
	}
	var more spaDoc
	if err := json.Unmarshal(get(t, c, "http://h0.fake.test/api/more/0.json").body, &more); err != nil || !hrefs(more)["http://h0.fake.test/p/2"] {
		t.Errorf("more JSON = %+v, %v", more, err)
	}
	// An odd page builds everything at once and has no scrolled part.
	get(t, c, "http://h0.fake.test/p/1")
	var odd spaDoc
	if err := json.Unmarshal(get(t, c, "http://h0.fake.test/api/page/1.json").body, &odd); err != nil || odd.More != "" ||
		!hrefs(odd)["http://h0.fake.test/p/3"] || !hrefs(odd)["http://h0.fake.test/p/4"] {
		t.Errorf("page 1 JSON = %+v, %v", odd, err)
	}
	if r := get(t, c, "http://h0.fake.test/api/more/1.json"); r.status != http.StatusNotFound {
		t.Errorf("/api/more/1.json answered %d", r.status)
	}

	// Requests no page made: a JSON before its shell, a favicon.
	get(t, c, "http://h0.fake.test/api/page/5.json")
	get(t, c, "http://h0.fake.test/favicon.ico")
	rep := tw.web.Report(fakeweb.Judge{})
	if rep.SPAHosts != 2 || rep.SPATrackRequests != 1 || rep.DisallowedRequests != 1 {
		t.Errorf("spa hosts %d, track %d, disallowed %d; want 2, 1, 1\n%v", rep.SPAHosts, rep.SPATrackRequests, rep.DisallowedRequests, rep)
	}
	// app.js, track, page/0, more/0, page/1, page/5 on h0; more/1 is a 404.
	if rep.SPARequests != 6 {
		t.Errorf("spa requests %d, want 6\n%v", rep.SPARequests, rep)
	}
	if rep.Unmade != 4 { // /api/page/0.json on h1, /api/more/1.json, /api/page/5.json, /favicon.ico
		t.Errorf("unmade %d, want 4: %v", rep.Unmade, rep.UnmadeSample)
	}
}

// spaCrawl crawls an all-SPA web as a renderer would, from the seeds,
// fetching robots.txt first; with shells only it does not run scripts,
// and without scroll it does not fetch the scrolled part.
func spaCrawl(t *testing.T, tw *testWeb, shellsOnly, scroll bool) {
	t.Helper()
	seen := map[string]bool{}
	robots := map[string]bool{}
	scripts := map[string]bool{}
	queue := tw.web.Seeds()
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if seen[u] {
			continue
		}
		seen[u] = true
		pu := mustParse(t, u)
		base := "http://" + pu.Host
		if !robots[pu.Host] {
			robots[pu.Host] = true
			get(t, tw.proxy, base+"/robots.txt")
		}
		r := get(t, tw.proxy, u)
		if !scripts[pu.Host] && r.status == http.StatusOK {
			scripts[pu.Host] = true
			get(t, tw.proxy, base+"/spa/app.js")
		}
		if r.status == http.StatusMovedPermanently {
			queue = append(queue, r.header.Get("Location"))
			continue
		}
		m := dataAPI.FindSubmatch(r.body)
		if m == nil {
			t.Fatalf("%s is not a shell", u)
		}
		if shellsOnly {
			continue
		}
		var d spaDoc
		if err := json.Unmarshal(get(t, tw.proxy, base+string(m[1])).body, &d); err != nil {
			t.Fatal(err)
		}
		links := d.Links
		if d.More != "" && scroll {
			var more spaDoc
			if err := json.Unmarshal(get(t, tw.proxy, base+d.More).body, &more); err != nil {
				t.Fatal(err)
			}
			links = append(links, more.Links...)
		}
		for _, l := range links {
			if _, err := url.Parse(l.Href); err != nil {
				t.Fatal(err)
			}
			queue = append(queue, l.Href)
		}
	}
}

func TestSPAReportCoverage(t *testing.T) {
	for _, tt := range []struct {
		name              string
		shellsOnly        bool
		scroll            bool
		full, renderedAll bool
	}{
		{name: "rendered and scrolled", scroll: true, full: true, renderedAll: true},
		{name: "rendered, not scrolled"},
		{name: "shells only", shellsOnly: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tw := startWeb(t, fakeweb.Config{Hosts: 3, PagesPerHost: 30, SPA: true})
			spaCrawl(t, tw, tt.shellsOnly, tt.scroll)
			rep := tw.web.Report(fakeweb.Judge{})
			if rep.RenderedOnly != rep.Reachable-3 || rep.ScrollOnly == 0 || rep.ScrollOnly >= rep.RenderedOnly {
				t.Fatalf("rendered-only %d, scroll-only %d of %d reachable\n%v", rep.RenderedOnly, rep.ScrollOnly, rep.Reachable, rep)
			}
			if rep.Unmade != 0 || rep.SPATrackRequests != 0 || rep.Duplicates != 0 || rep.BeforeRobots != 0 || rep.OutOfTruth != 0 {
				t.Errorf("a correct crawl is faulted:\n%v", rep)
			}
			switch {
			case tt.full:
				if rep.Coverage != 1 || rep.RenderedOnlyCovered != rep.RenderedOnly || rep.ScrollOnlyCovered != rep.ScrollOnly {
					t.Errorf("full render: %v", rep)
				}
			case tt.shellsOnly:
				if rep.Covered != 3 || rep.RenderedOnlyCovered != 0 || rep.ScrollOnlyCovered != 0 {
					t.Errorf("shells only: %v", rep)
				}
			default:
				if rep.ScrollOnlyCovered != 0 || rep.RenderedOnlyCovered != rep.RenderedOnly-rep.ScrollOnly || rep.Coverage == 1 {
					t.Errorf("no scroll: %v", rep)
				}
			}
		})
	}
}

func TestSPAConfigRefusesCombinations(t *testing.T) {
	for _, cfg := range []fakeweb.Config{
		{SPA: true, Requisites: true},
		{SPA: true, Hostile: true},
		{SPA: true, SPAShare: 1.5},
		{SPAShare: 0.5},
	} {
		if _, err := fakeweb.New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

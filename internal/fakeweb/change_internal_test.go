package fakeweb

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for Config.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

var changeEpoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func changingWeb(t *testing.T, cc ChangingConfig, mod func(*Config)) (*Web, *fakeClock) {
	t.Helper()
	clock := &fakeClock{t: changeEpoch}
	cfg := Config{Hosts: 2, PagesPerHost: 5, Seed: 5, Changing: true, ChangingConfig: cc, Now: clock.Now}
	if mod != nil {
		mod(&cfg)
	}
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w, clock
}

// do sends one request through the proxy side of w's handler.
func do(w *Web, rawURL string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, rawURL, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	w.Handler().ServeHTTP(rec, req)
	return rec
}

func TestChangingDefaultsAndValidate(t *testing.T) {
	w, _ := changingWeb(t, ChangingConfig{}, nil)
	c := w.Config().ChangingConfig
	want := ChangingConfig{Fast: 4, Slow: 4, Static: 2, FastMean: 3 * time.Second, SlowMean: 2 * time.Minute, Start: changeEpoch}
	if c != want {
		t.Errorf("defaulted ChangingConfig = %+v, want %+v", c, want)
	}
	for _, cc := range []ChangingConfig{{FastMean: -1}, {Fast: maxChangePages + 1}} {
		cfg := Config{Changing: true, ChangingConfig: cc}
		cfg.Default()
		if cfg.Validate() == nil {
			t.Errorf("Validate(%+v) = nil, want an error", cc)
		}
	}
	off := Config{ChangingConfig: ChangingConfig{FastMean: -1}}
	off.Default()
	if err := off.Validate(); err != nil || off.ChangingConfig.Fast != 0 {
		t.Errorf("without Changing: Validate() = %v, Fast %d; want nil, 0 (left alone)", err, off.ChangingConfig.Fast)
	}
}

func TestChangingOffServesNothing(t *testing.T) {
	w, err := New(Config{Hosts: 2, Sitemaps: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/c/0", "/c/1"} {
		if rec := do(w, "http://h0.fake.test"+p, nil); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s without Changing = %d, want 404", p, rec.Code)
		}
	}
	rec := do(w, "http://h0.fake.test/p/1", map[string]string{"If-None-Match": "*"})
	if rec.Code != http.StatusOK || rec.Header().Get("ETag") != "" {
		t.Errorf("GET /p/1 If-None-Match: * without Changing = %d, ETag %q; want 200, none", rec.Code, rec.Header().Get("ETag"))
	}
	if _, _, ok := w.Version("http://h0.fake.test/c/0", changeEpoch); ok {
		t.Error("Version of /c/0 without Changing: ok, want not")
	}
	b, err := json.Marshal(w.Report(Judge{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"freshness", "changing", "revisits", "in_degree"} {
		if strings.Contains(string(b), k) {
			t.Errorf("report JSON has %q: %s", k, b)
		}
	}
}

// TestChangeRates checks that each page changes at its mean rate, that
// the means lie in their class's range, and that the processes are
// deterministic.
func TestChangeRates(t *testing.T) {
	cc := ChangingConfig{Fast: 20, Slow: 20, Static: 5, Start: changeEpoch}
	w, _ := changingWeb(t, cc, nil)
	w2, _ := changingWeb(t, cc, nil)
	for host := range 2 {
		for n := range cc.Fast + cc.Slow + cc.Static {
			u := "http://h" + strconv.Itoa(host) + ".fake.test/c/" + strconv.Itoa(n)
			mean, ok := w.ChangeMean(u)
			if !ok {
				t.Fatalf("ChangeMean(%q): not ok", u)
			}
			class, classMean := w.changeClass(n)
			if class == ChangeStatic {
				if v, _, _ := w.Version(u, changeEpoch.Add(1e6*time.Hour)); mean != 0 || v != 0 {
					t.Errorf("%s: static page has mean %v, version %d far ahead; want 0, 0", u, mean, v)
				}
				continue
			}
			if mean < classMean/2 || mean > classMean*2 {
				t.Errorf("ChangeMean(%q) = %v, want within [%v, %v]", u, mean, classMean/2, classMean*2)
			}
			// 2000 expected changes: 5 standard deviations are 11%.
			const k = 2000
			at := changeEpoch.Add(k * mean)
			v, since, _ := w.Version(u, at)
			if math.Abs(float64(v-k)) > 5*math.Sqrt(k) {
				t.Errorf("Version(%q) after %d means = %d, want %d ± %.0f", u, k, v, k, 5*math.Sqrt(k))
			}
			if since.After(at) || !since.After(changeEpoch) {
				t.Errorf("Version(%q, %v) began at %v", u, at, since)
			}
			// Asked in another order, the other web agrees.
			if v2, since2, _ := w2.Version(u, at); v2 != v || !since2.Equal(since) {
				t.Errorf("second web: Version(%q) = %d since %v, want %d since %v", u, v2, since2, v, since)
			}
			if v0, _, _ := w.Version(u, changeEpoch.Add(-time.Hour)); v0 != 0 {
				t.Errorf("Version(%q) before Start = %d, want 0", u, v0)
			}
		}
	}
	// Exponential gaps: about e^-1 of them exceed the mean.
	p := w.changeProcFor(0, 0)
	long := 0
	for i := 1; i < len(p.times); i++ {
		if p.times[i].Sub(p.times[i-1]) > p.mean {
			long++
		}
	}
	if share := float64(long) / float64(len(p.times)-1); math.Abs(share-math.Exp(-1)) > 0.05 {
		t.Errorf("share of gaps longer than the mean = %.3f, want about %.3f", share, math.Exp(-1))
	}
}

// TestChangePeriodic checks ChangingConfig.Periodic: every fast page of
// every host changes at exactly Start + k×FastMean, every slow one at
// Start + k×SlowMean, and static pages never.
func TestChangePeriodic(t *testing.T) {
	cc := ChangingConfig{Fast: 3, Slow: 2, Static: 1, FastMean: 8 * time.Second, SlowMean: time.Minute, Start: changeEpoch, Periodic: true}
	w, _ := changingWeb(t, cc, nil)
	for host := range 2 {
		for n := range cc.Fast + cc.Slow + cc.Static {
			u := "http://h" + strconv.Itoa(host) + ".fake.test/c/" + strconv.Itoa(n)
			mean, _ := w.ChangeMean(u)
			class, classMean := w.changeClass(n)
			if mean != classMean {
				t.Errorf("ChangeMean(%q) = %v, want the class's %v exactly", u, mean, classMean)
			}
			if class == ChangeStatic {
				if v, _, _ := w.Version(u, changeEpoch.Add(time.Hour)); v != 0 {
					t.Errorf("%s: static page at version %d", u, v)
				}
				continue
			}
			for _, k := range []int{1, 2, 7, 450} {
				at := changeEpoch.Add(time.Duration(k) * classMean)
				if v, since, _ := w.Version(u, at); v != k || !since.Equal(at) {
					t.Errorf("Version(%q) at Start + %d periods = %d since %v, want %d since then", u, k, v, since, k)
				}
				if v, _, _ := w.Version(u, at.Add(-time.Nanosecond)); v != k-1 {
					t.Errorf("Version(%q) just before Start + %d periods = %d, want %d", u, k, v, k-1)
				}
			}
		}
	}
}

func (w *Web) changeProcFor(host, n int) *changeProc {
	w.changes.mu.Lock()
	defer w.changes.mu.Unlock()
	return w.changeProc(host, n)
}

// TestChangeConditional checks versions, validators and 304s.
func TestChangeConditional(t *testing.T) {
	w, clock := changingWeb(t, ChangingConfig{Start: changeEpoch}, nil)
	const u = "http://h1.fake.test/c/0"
	t1, _ := w.changeTime(1, 0, 1)
	t2, _ := w.changeTime(1, 0, 2)
	lm := func(at time.Time) string { return at.UTC().Format(http.TimeFormat) }

	clock.Set(changeEpoch.Add(time.Millisecond))
	first := do(w, u, nil)
	e0 := first.Header().Get("ETag")
	if first.Code != http.StatusOK || e0 == "" || first.Header().Get("Last-Modified") != lm(changeEpoch) ||
		!strings.Contains(first.Body.String(), "Version 0,") {
		t.Fatalf("first GET = %d, ETag %q, Last-Modified %q, body %q", first.Code, e0, first.Header().Get("Last-Modified"), first.Body)
	}
	clock.Set(t1)
	e1 := do(w, u, nil).Header().Get("ETag")
	if e1 == e0 {
		t.Fatalf("ETag after the first change = %q, the same as before", e1)
	}
	tests := []struct {
		name   string
		at     time.Time
		header map[string]string
		status int
		etag   string
	}{
		{"plain", changeEpoch, nil, 200, e0},
		{"etag matches", changeEpoch, map[string]string{"If-None-Match": e0}, 304, e0},
		{"weak etag matches", changeEpoch, map[string]string{"If-None-Match": "W/" + e0}, 304, e0},
		{"star", t1, map[string]string{"If-None-Match": "*"}, 304, e1},
		{"etag of the old version", t1, map[string]string{"If-None-Match": e0}, 200, e1},
		{"old etag among others", t1, map[string]string{"If-None-Match": e0 + ", " + e1}, 304, e1},
		{"since last modified", changeEpoch.Add(time.Second), map[string]string{"If-Modified-Since": lm(changeEpoch)}, 304, e0},
		{"since after", changeEpoch, map[string]string{"If-Modified-Since": lm(changeEpoch.Add(time.Hour))}, 304, e0},
		{"since before", changeEpoch, map[string]string{"If-Modified-Since": lm(changeEpoch.Add(-time.Second))}, 200, e0},
		{"since the old version", t1, map[string]string{"If-Modified-Since": lm(changeEpoch)}, 200, e1},
		{"etag decides alone", changeEpoch, map[string]string{"If-None-Match": `"other"`, "If-Modified-Since": lm(changeEpoch)}, 200, e0},
	}
	if t1.Unix() != t2.Unix() {
		tests = append(tests, struct {
			name   string
			at     time.Time
			header map[string]string
			status int
			etag   string
		}{"since the new version", t1, map[string]string{"If-Modified-Since": lm(t1)}, 304, e1})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock.Set(tc.at)
			rec := do(w, u, tc.header)
			if rec.Code != tc.status || rec.Header().Get("ETag") != tc.etag {
				t.Errorf("GET %s %v at %v = %d, ETag %q; want %d, %q", u, tc.header, tc.at, rec.Code, rec.Header().Get("ETag"), tc.status, tc.etag)
			}
			if tc.status == 304 && rec.Body.Len() != 0 {
				t.Errorf("304 with a body %q", rec.Body)
			}
		})
	}
	// Ordinary pages carry validators too, and never change.
	clock.Set(changeEpoch)
	p := do(w, "http://h1.fake.test/p/1", nil)
	clock.Set(changeEpoch.Add(time.Hour))
	if rec := do(w, "http://h1.fake.test/p/1", map[string]string{"If-None-Match": p.Header().Get("ETag")}); p.Header().Get("ETag") == "" || rec.Code != 304 {
		t.Errorf("/p/1: ETag %q, conditional GET an hour later = %d, want an ETag and 304", p.Header().Get("ETag"), rec.Code)
	}
}

// TestChangeSameSecond checks that two versions in one second get
// different ETags, and that If-Modified-Since cannot confuse them.
func TestChangeSameSecond(t *testing.T) {
	w, clock := changingWeb(t, ChangingConfig{Fast: 1, Slow: -1, Static: -1, FastMean: 100 * time.Millisecond, Start: changeEpoch}, nil)
	const u = "http://h0.fake.test/c/0"
	seen := map[string]int{}
	ambiguous := 0
	for v := 1; v < 200; v++ {
		at, _ := w.changeTime(0, 0, v)
		prev, _ := w.changeTime(0, 0, v-1)
		clock.Set(at)
		rec := do(w, u, nil)
		etag := rec.Header().Get("ETag")
		if old, dup := seen[etag]; dup {
			t.Fatalf("versions %d and %d share ETag %q", old, v, etag)
		}
		seen[etag] = v
		if prev.Unix() != at.Unix() {
			continue
		}
		ambiguous++
		lm := rec.Header().Get("Last-Modified")
		if rec := do(w, u, map[string]string{"If-Modified-Since": lm}); rec.Code != http.StatusOK {
			t.Errorf("version %d shares its second with %d: If-Modified-Since %s = %d, want 200", v, v-1, lm, rec.Code)
		}
		if rec := do(w, u, map[string]string{"If-None-Match": etag}); rec.Code != http.StatusNotModified {
			t.Errorf("version %d: If-None-Match %s = %d, want 304", v, etag, rec.Code)
		}
	}
	if ambiguous == 0 {
		t.Fatal("no two versions in one second: the test tests nothing")
	}
}

func TestFreshTime(t *testing.T) {
	at := func(s float64) time.Time { return changeEpoch.Add(time.Duration(s * float64(time.Second))) }
	// Versions: 0 until 10, 1 until 20, 2 for ever.
	next := func(v int) (time.Time, bool) {
		switch v {
		case 0:
			return at(10), true
		case 1:
			return at(20), true
		}
		return time.Time{}, false
	}
	f := func(end float64, v int) heldFetch { return heldFetch{end: at(end), version: v} }
	tests := []struct {
		name     string
		fetches  []heldFetch
		from, to float64
		fresh    float64
	}{
		{"the brief's example", []heldFetch{f(5, 0), f(15, 1)}, 5, 25, 10},
		{"to the last change", []heldFetch{f(5, 0), f(15, 1)}, 5, 20, 10},
		{"never fetched", nil, 0, 30, 0},
		{"window before the first fetch", []heldFetch{f(5, 0)}, 0, 30, 5},
		{"confirmed by a 304", []heldFetch{f(5, 0), f(8, 0), f(12, 1), f(25, 2)}, 5, 30, 5 + 8 + 5},
		{"fetch before the window", []heldFetch{f(1, 0)}, 4, 12, 6},
		{"fetch after the window", []heldFetch{f(5, 0), f(40, 2)}, 5, 30, 5},
		{"latest version held", []heldFetch{f(21, 2)}, 21, 31, 10},
		{"stale answer", []heldFetch{f(11, 0)}, 11, 21, 0},
		{"empty window", []heldFetch{f(5, 0)}, 10, 10, 0},
	}
	for _, tc := range tests {
		fresh, total := freshTime(tc.fetches, next, at(tc.from), at(tc.to))
		wantTotal := time.Duration(max(tc.to-tc.from, 0) * float64(time.Second))
		if fresh != time.Duration(tc.fresh*float64(time.Second)) || total != wantTotal {
			t.Errorf("%s: freshTime = %v of %v, want %vs of %v", tc.name, fresh, total, tc.fresh, wantTotal)
		}
	}
}

// TestReportFreshness drives a crawl by hand through the handler with a
// fake clock and checks the judge's freshness and revisit counts.
func TestReportFreshness(t *testing.T) {
	w, clock := changingWeb(t, ChangingConfig{Fast: 1, Slow: 1, Static: 1, FastMean: 10 * time.Second, SlowMean: time.Hour, Start: changeEpoch},
		func(c *Config) { c.Hosts = 1 })
	const host = "http://h0.fake.test"
	t1, _ := w.changeTime(0, 0, 1)
	t2, _ := w.changeTime(0, 0, 2)
	slow1, _ := w.changeTime(0, 1, 1)
	get := func(at time.Time, path, etag string) string {
		clock.Set(at)
		h := map[string]string{}
		if etag != "" {
			h["If-None-Match"] = etag
		}
		return do(w, host+path, h).Header().Get("ETag")
	}
	start := changeEpoch.Add(time.Millisecond)
	get(start, "/robots.txt", "")
	e0 := get(start, "/c/0", "")
	s0 := get(start, "/c/1", "")
	n0 := get(start, "/c/2", "")
	mid := t1.Add(t2.Sub(t1) / 2)
	get(mid, "/c/0", e0)                       // changed: 200 with version 1
	get(mid, "/c/1", s0)                       // unchanged: 304
	get(mid.Add(time.Millisecond), "/c/2", n0) // unchanged: 304
	end := t2.Add(time.Second)
	clock.Set(end)
	rep := w.Report(Judge{Revisits: true})

	// /c/0: fresh [start, t1) and [mid, t2) over [start, end).
	fast := float64(t1.Sub(start)+t2.Sub(mid)) / float64(end.Sub(start))
	slow := 1.0
	if slow1.Before(end) {
		slow = float64(slow1.Sub(start)) / float64(end.Sub(start))
	}
	want := map[string]float64{ChangeFast: fast, ChangeSlow: slow, ChangeStatic: 1}
	for class, f := range want {
		if got := rep.FreshnessByClass[class]; math.Abs(got-f) > 1e-9 {
			t.Errorf("FreshnessByClass[%s] = %v, want %v", class, got, f)
		}
	}
	if math.Abs(rep.Freshness-(fast+slow+1)/3) > 1e-9 || rep.FreshnessPages != 3 {
		t.Errorf("Freshness = %v over %d pages, want %v over 3", rep.Freshness, rep.FreshnessPages, (fast+slow+1)/3)
	}
	if rep.ChangingFetches != 6 || rep.ChangingConditional != 3 || rep.ChangingNotModified != 2 ||
		rep.Revisits != 3 || rep.UnchangedRevisits != 2 || rep.UnchangedRevisitsConditional != 2 || rep.UnchangedRevisits304 != 2 {
		t.Errorf("counts: %s", rep)
	}
	if rep.Duplicates != 0 {
		t.Errorf("Duplicates with Judge.Revisits = %d, want 0", rep.Duplicates)
	}
	if rep := w.Report(Judge{}); rep.Duplicates != 3 {
		t.Errorf("Duplicates without Judge.Revisits = %d, want 3", rep.Duplicates)
	}

	// A window from the Judge counts every page of the ground truth,
	// fetched or not, stale until fetched.
	rep = w.Report(Judge{Revisits: true, FreshnessFrom: changeEpoch, FreshnessTo: end})
	wantFast := float64(t1.Sub(start)+t2.Sub(mid)) / float64(end.Sub(changeEpoch))
	if got := rep.FreshnessByClass[ChangeFast]; math.Abs(got-wantFast) > 1e-9 {
		t.Errorf("windowed FreshnessByClass[fast] = %v, want %v", got, wantFast)
	}
}

func TestChangingSitemap(t *testing.T) {
	w, clock := changingWeb(t, ChangingConfig{Start: changeEpoch}, func(c *Config) { c.Sitemaps = true })
	at := changeEpoch.Add(90 * time.Second)
	clock.Set(at)
	body := do(w, "http://h0.fake.test/sitemap-1.xml", nil).Body.String()
	// /c/N is entry PagesPerHost+orphans+N: the plain child has the even ones.
	first := w.cfg.PagesPerHost + w.cfg.orphans()
	for n := range w.cfg.ChangingConfig.pages() {
		if (first+n)%2 != 0 {
			continue
		}
		u := "http://h0.fake.test/c/" + strconv.Itoa(n)
		_, since, _ := w.Version(u, at)
		mean, _ := w.ChangeMean(u)
		entry := "<loc>" + u + "</loc>\n    <lastmod>" + since.UTC().Truncate(time.Second).Format(time.RFC3339) +
			"</lastmod>\n    <changefreq>" + changefreq(mean) + "</changefreq>"
		if !strings.Contains(body, entry) {
			t.Errorf("sitemap lacks %q:\n%s", entry, body)
		}
	}
	if changefreq(3*time.Second) != "always" || changefreq(0) != "never" || changefreq(48*time.Hour) != "daily" {
		t.Error("changefreq maps means wrongly")
	}
	// The ground truth has every changing page, linked from the home page.
	if rep := w.Report(Judge{}); rep.Reachable != 2*(5+5+10) {
		t.Errorf("Reachable = %d, want %d", rep.Reachable, 2*(5+5+10))
	}
	home := do(w, "http://h0.fake.test/", nil).Body.String()
	if !strings.Contains(home, `<a href="/c/9">`) {
		t.Errorf("home page does not link /c/9")
	}
}

// TestFreshnessPolicies runs two simulated continuous crawls of 60
// seconds on one fake clock, a fetch every 200ms, with conditional
// requests: one revisits every page in turn, the other only the pages
// that can change. The judge must tell them apart, by the margin the
// issue asks of a crawler's revisit policy over a uniform one.
func TestFreshnessPolicies(t *testing.T) {
	// Thirty ordinary pages per host, which never change, beside the ten
	// changing ones: the uniform policy spends most revisits on them.
	const pages = 30
	run := func(revisit func(url string) bool) Report {
		w, clock := changingWeb(t, ChangingConfig{Start: changeEpoch}, func(c *Config) { c.PagesPerHost = pages })
		var urls []string
		for host := range w.cfg.Hosts {
			for n := range pages {
				urls = append(urls, pageURL(w, host, n))
			}
			for n := range 10 {
				urls = append(urls, "http://"+w.hostName(host)+"/c/"+strconv.Itoa(n))
			}
		}
		now := changeEpoch
		step := func() time.Time { now = now.Add(200 * time.Millisecond); clock.Set(now); return now }
		for host := range w.cfg.Hosts {
			step()
			do(w, "http://"+w.hostName(host)+"/robots.txt", nil)
		}
		etags := map[string]string{}
		fetch := func(u string) {
			step()
			h := map[string]string{}
			if e := etags[u]; e != "" {
				h["If-None-Match"] = e
			}
			etags[u] = do(w, u, h).Header().Get("ETag")
		}
		for _, u := range urls {
			fetch(u)
		}
		var again []string
		for _, u := range urls {
			if revisit(u) {
				again = append(again, u)
			}
		}
		for i := 0; now.Before(changeEpoch.Add(60 * time.Second)); i++ {
			fetch(again[i%len(again)])
		}
		return w.Report(Judge{Revisits: true})
	}
	uniform := run(func(string) bool { return true })
	focused := run(func(u string) bool { return strings.Contains(u, "/c/") })
	t.Logf("uniform: %s", uniform)
	t.Logf("focused: %s", focused)
	if focused.Freshness < 1.2*uniform.Freshness {
		t.Errorf("freshness focused %.3f, uniform %.3f: want at least 1.2×", focused.Freshness, uniform.Freshness)
	}
	for _, r := range []Report{uniform, focused} {
		if r.UnchangedRevisits == 0 || r.UnchangedRevisits304 != r.UnchangedRevisits || r.Duplicates != 0 || !r.OK() {
			t.Errorf("with If-None-Match every unchanged revisit should be a 304: %s", r)
		}
	}
}

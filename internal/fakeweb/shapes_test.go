package fakeweb

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// get asks the Shapes web for rawURL as a proxy would.
func (s *Shapes) get(t *testing.T, rawURL string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, rawURL, nil))
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b)
}

// TestShapesAliases: index.html answers the bytes of its directory, but
// on AliasDiffHost; the report counts a second spelling of a page as an
// alias fetch, the same spelling again as a duplicate, and coverage by
// page.
func TestShapesAliases(t *testing.T) {
	s, err := NewShapes(ShapesConfig{Hosts: 3, Sections: 2, Articles: 4, Aliases: true})
	if err != nil {
		t.Fatal(err)
	}
	_, home := s.get(t, "http://h0.shapes.test/")
	_, index := s.get(t, "http://h0.shapes.test/index.html")
	if home != index {
		t.Error("h0: /index.html differs from /")
	}
	for _, l := range []string{`href="/index.html"`, `href="/s/1/index.html"`, `href="/s/1/index.html?utm_source=feed"`} {
		if !strings.Contains(home, l) {
			t.Errorf("home page lacks %s", l)
		}
	}
	_, sec := s.get(t, "http://h0.shapes.test/s/1/")
	_, secIndex := s.get(t, "http://h0.shapes.test/s/1/index.html?utm_source=feed")
	if sec != secIndex {
		t.Error("h0: /s/1/index.html differs from /s/1/")
	}
	s.get(t, "http://h0.shapes.test/s/1/") // a duplicate
	_, home1 := s.get(t, "http://h1.shapes.test/")
	_, index1 := s.get(t, "http://h1.shapes.test/index.html")
	if home1 == index1 {
		t.Error("h1: /index.html is the same as /")
	}
	r := s.Report()
	if r.AliasFetches["h0.shapes.test"] != 2 || r.AliasFetches["h1.shapes.test"] != 0 || r.Duplicates != 1 {
		t.Errorf("report %s: want 2 alias fetches on h0, none on h1, 1 duplicate", r)
	}
	// Truth: 3 hosts × (home + 2 sections + 4 articles), and h1's
	// legacy home and sections.
	if r.Reachable != 3*7+3 || r.Covered != 4 {
		t.Errorf("reachable %d covered %d, want 24 and 4", r.Reachable, r.Covered)
	}
}

// TestShapesWWW: with WWW, a host answers the same bytes under its www
// name, but WWWDiffHost, whose www name is a site of its own, and
// WWWRedirectHost, whose bare name redirects; pages link both names; the
// report counts a page answered again under the other name as a www
// fetch (not an alias fetch), a 301 as a redirect, and the www site of
// WWWDiffHost as pages of the ground truth.
func TestShapesWWW(t *testing.T) {
	s, err := NewShapes(ShapesConfig{Hosts: 4, Sections: 2, Articles: 4, WWW: true, Aliases: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"http://h0.shapes.test/", "http://www.h1.shapes.test/", "http://h2.shapes.test/", "http://h3.shapes.test/"}
	if got := s.Seeds(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Seeds() = %v, want %v", got, want)
	}
	_, home := s.get(t, "http://h0.shapes.test/")
	_, wwwHome := s.get(t, "http://www.h0.shapes.test/")
	if home != wwwHome {
		t.Error("h0: www.h0 / differs from h0 /")
	}
	for _, l := range []string{`href="http://h0.shapes.test/"`, `href="http://www.h0.shapes.test/"`, `href="/s/1/"`} {
		if !strings.Contains(home, l) {
			t.Errorf("home page lacks %s", l)
		}
	}
	for raw, l := range map[string]string{"http://h0.shapes.test/a/3": `href="http://www.h0.shapes.test/s/1/"`, "http://www.h0.shapes.test/a/2": `href="http://h0.shapes.test/s/0/"`} {
		if _, page := s.get(t, raw); !strings.Contains(page, l) {
			t.Errorf("%s lacks %s", raw, l)
		}
	}
	s.get(t, "http://www.h0.shapes.test/index.html") // an alias fetch under www
	s.get(t, "http://www.h0.shapes.test/")           // a duplicate
	_, home2 := s.get(t, "http://h2.shapes.test/s/1/")
	_, wwwHome2 := s.get(t, "http://www.h2.shapes.test/s/1/")
	if home2 == wwwHome2 || !strings.Contains(wwwHome2, "w-s1") {
		t.Errorf("h2: its www name is not a site of its own:\n%s", wwwHome2)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://h3.shapes.test/a/2?x=1", nil))
	if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "http://www.h3.shapes.test/a/2?x=1" {
		t.Errorf("h3: %d to %q, want 301 to http://www.h3.shapes.test/a/2?x=1", rec.Code, rec.Header().Get("Location"))
	}
	if code, _ := s.get(t, "http://www.h3.shapes.test/a/2"); code != http.StatusOK {
		t.Errorf("www.h3: %d", code)
	}
	r := s.Report()
	if r.WWWFetches["h0.shapes.test"] != 1 || r.AliasFetches["h0.shapes.test"] != 1 || r.Duplicates != 1 ||
		r.WWWFetches["h2.shapes.test"] != 0 || r.WWWRedirects != 1 {
		t.Errorf("report %s: want 1 www fetch and 1 alias fetch on h0, none on h2, 1 duplicate, 1 redirect", r)
	}
	// Truth: 4 hosts × (home + 2 sections + 4 articles), h1's legacy
	// home and sections, and h2's www site.
	if r.Reachable != 4*7+3+7 || r.Covered != 6 {
		t.Errorf("reachable %d covered %d, want 38 and 6", r.Reachable, r.Covered)
	}
	if s2, _ := NewShapes(ShapesConfig{}); s2 != nil {
		if code, _ := s2.get(t, "http://www.h0.shapes.test/"); code != http.StatusBadGateway {
			t.Errorf("without WWW, www.h0 answers %d", code)
		}
	}
}

// TestShapesTraps: the session chain links only N+1 and N+2, with a new
// session ID per visit; trap requests are counted apart; pagination
// lists new articles and the next page.
func TestShapesTraps(t *testing.T) {
	s, err := NewShapes(ShapesConfig{Hosts: 4, Sections: 1, Articles: 1, Traps: true, Pagination: 3})
	if err != nil {
		t.Fatal(err)
	}
	_, a := s.get(t, "http://h0.shapes.test/sess/7?sid=x")
	_, b := s.get(t, "http://h0.shapes.test/sess/7?sid=y")
	if strings.Count(a, "<a ") != 2 || !strings.Contains(a, `/sess/8?sid=`) || !strings.Contains(a, `/sess/9?sid=`) || a == b {
		t.Errorf("session page:\n%s\nwant links to /sess/8 and /sess/9 only, with new session IDs", a)
	}
	if code, _ := s.get(t, "http://h1.shapes.test/sess/7"); code != http.StatusNotFound {
		t.Errorf("h1 has a session chain: %d", code)
	}
	_, cal := s.get(t, "http://h1.shapes.test/cal/2026/11/")
	if !strings.Contains(cal, "/cal/2026/12/") || !strings.Contains(cal, "/cal/2026/10/") {
		t.Errorf("calendar page:\n%s", cal)
	}
	_, list := s.get(t, "http://h0.shapes.test/list?page=2")
	if !strings.Contains(list, "/news/2") || !strings.Contains(list, "/news/3") || !strings.Contains(list, "/list?page=3") {
		t.Errorf("listing page:\n%s", list)
	}
	s.get(t, "http://h2.shapes.test/search?q=tide&lang=en")
	s.get(t, "http://h3.shapes.test/docs/a/b/a/b/")
	r := s.Report()
	if r.TrapRequests != 5 || r.Traps[ShapeTrapSession] != 2 || r.Requests != 7 || r.Pagination != 3+6 || r.PaginationCovered != 1 ||
		r.TrapsPerHost["h0.shapes.test"] != 2 || r.MaxTrapRequests() != 2 {
		t.Errorf("report %s", r)
	}
}

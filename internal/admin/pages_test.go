package admin

import (
	"context"
	"encoding/json"
	"testing"
)

// pagesFake is a Backend with pages: three, ids 1..3.
type pagesFake struct {
	fakeBackend
	last PageQuery
}

func (f *pagesFake) Pages(_ context.Context, q PageQuery) ([]Page, uint64, error) {
	f.last = q
	return []Page{{ID: 1, URL: "http://a.test/", Outlinks: 1, Links: []string{"http://a.test/x"}}}, 1, nil
}

func (f *pagesFake) Page(_ context.Context, id uint64) (Page, error) {
	if id > 3 {
		return Page{}, ErrNotFound
	}
	return Page{ID: id, URL: "http://a.test/", Outlinks: 1, Links: []string{"http://a.test/x"}}, nil
}

func (f *pagesFake) PageContent(_ context.Context, id uint64) ([]byte, string, string, error) {
	if id > 3 {
		return nil, "", "", ErrNotFound
	}
	return []byte("<script>alert(1)</script>"), "text/html", "", nil
}

func TestPagesEndpoints(t *testing.T) {
	f := &pagesFake{}
	ts, _ := newTestServer(t, f, Options{})
	r := do(t, ts, "GET", "/api/pages?host=A.test&status=200&q=x&after=4&limit=2", "")
	var pl PageList
	if err := json.Unmarshal([]byte(r.body), &pl); err != nil || r.status != 200 || pl.Next != 1 || len(pl.Pages) != 1 {
		t.Fatalf("GET /api/pages: %d %s", r.status, r.body)
	}
	if want := (PageQuery{Host: "A.test", Status: 200, Q: "x", After: 4, Limit: 2}); f.last != want {
		t.Errorf("query = %+v, want %+v", f.last, want)
	}
	r = do(t, ts, "GET", "/api/pages/2", "")
	var pg Page
	if err := json.Unmarshal([]byte(r.body), &pg); err != nil || r.status != 200 || pg.ID != 2 || pg.URL != "http://a.test/" {
		t.Errorf("GET /api/pages/2: %d %s", r.status, r.body)
	}
	if r := do(t, ts, "GET", "/api/pages/2/links", ""); r.status != 200 || r.body != `{"id":2,"url":"http://a.test/","links":["http://a.test/x"]}`+"\n" {
		t.Errorf("links: %d %s", r.status, r.body)
	}
	r = do(t, ts, "GET", "/api/pages/2/content", "")
	if r.status != 200 || r.body != "<script>alert(1)</script>" || r.header.Get("Content-Security-Policy") != "sandbox" ||
		r.header.Get("X-Content-Type-Options") != "nosniff" || r.header.Get("Content-Type") != "text/html" {
		t.Errorf("content: %d %v %s", r.status, r.header, r.body)
	}
	for path, want := range map[string]int{
		"/api/pages/9": 404, "/api/pages/9/links": 404, "/api/pages/9/content": 404, "/api/pages/0": 400, "/api/pages/-1/links": 400,
		"/api/pages?status=99": 400, "/api/pages?limit=0": 400, "/api/pages?after=x": 400,
	} {
		if r := do(t, ts, "GET", path, ""); r.status != want {
			t.Errorf("GET %s: %d, want %d", path, r.status, want)
		}
	}

	// A backend without pages answers 404.
	ts2, _ := newTestServer(t, &fakeBackend{}, Options{})
	if r := do(t, ts2, "GET", "/api/pages", ""); r.status != 404 {
		t.Errorf("GET /api/pages without pages: %d, want 404", r.status)
	}
}

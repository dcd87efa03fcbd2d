package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// PagesBackend is the crawl's archived pages, for GET /api/pages; a
// Backend that does not implement it answers 404 there. Methods are safe
// for concurrent use.
type PagesBackend interface {
	// Pages lists the pages q selects, by id, and the cursor of the
	// next page of results (0: no more).
	Pages(ctx context.Context, q PageQuery) (pages []Page, next uint64, err error)
	// Page returns one page; ErrNotFound when there is none.
	Page(ctx context.Context, id uint64) (Page, error)
	// PageContent returns the archived payload of a page (as received:
	// still content-encoded) and its response's Content-Type and
	// Content-Encoding; ErrNotFound when there is no such page.
	PageContent(ctx context.Context, id uint64) (body []byte, contentType, contentEncoding string, err error)
}

// PageQuery is GET /api/pages's parameters.
type PageQuery struct {
	Host   string
	Status int
	Q      string
	After  uint64
	Limit  int
}

// Page is GET /api/pages/{id} and an element of GET /api/pages: the
// page's event (docs/processors.md) with its id.
type Page struct {
	ID          uint64                     `json:"id"`
	URL         string                     `json:"url"`
	Status      int                        `json:"status"`
	Time        time.Time                  `json:"time"`
	Depth       int                        `json:"depth"`
	ContentType string                     `json:"content_type,omitempty"`
	Title       string                     `json:"title,omitempty"`
	Digest      string                     `json:"digest,omitempty"`
	SimHash     string                     `json:"simhash,omitempty"`
	WARC        WARCLocation               `json:"warc"`
	Annotations map[string]json.RawMessage `json:"annotations,omitempty"`
	// Outlinks is the number of links; GET /api/pages/{id}/links lists
	// them.
	Outlinks int      `json:"outlinks"`
	Links    []string `json:"-"`
}

// PageList is GET /api/pages.
type PageList struct {
	Pages []Page `json:"pages"`
	// Next is the after= of the next page of results; absent when there
	// are no more.
	Next uint64 `json:"next,omitempty"`
}

// PageLinks is GET /api/pages/{id}/links.
type PageLinks struct {
	ID    uint64   `json:"id"`
	URL   string   `json:"url"`
	Links []string `json:"links"`
}

func (s *Server) pagesBackend(w http.ResponseWriter) (PagesBackend, bool) {
	pb, ok := s.b.(PagesBackend)
	if !ok {
		writeError(w, http.StatusNotFound, "pages are not indexed by this crawl")
	}
	return pb, ok
}

func (s *Server) listPages(w http.ResponseWriter, r *http.Request) {
	pb, ok := s.pagesBackend(w)
	if !ok {
		return
	}
	v := r.URL.Query()
	q := PageQuery{Host: v.Get("host"), Q: v.Get("q")}
	var err error
	if q.Status, err = optInt(v.Get("status"), 100, 599); err == nil {
		q.Limit, err = optInt(v.Get("limit"), 1, 1000)
	}
	if err == nil && v.Get("after") != "" {
		q.After, err = strconv.ParseUint(v.Get("after"), 10, 64)
	}
	if err != nil || len(q.Q) > maxURLLength || len(q.Host) > 255 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("pages: bad parameters (%v)", err))
		return
	}
	pages, next, err := pb.Pages(r.Context(), q)
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	if pages == nil {
		pages = []Page{}
	}
	writeJSON(w, http.StatusOK, PageList{Pages: pages, Next: next})
}

// optInt parses an optional integer parameter within lo..hi (0 when
// absent).
func optInt(v string, lo, hi int) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%q is not a number in %d..%d", v, lo, hi)
	}
	return n, nil
}

func (s *Server) pageID(w http.ResponseWriter, r *http.Request) (PagesBackend, uint64, bool) {
	pb, ok := s.pagesBackend(w)
	if !ok {
		return nil, 0, false
	}
	id, err := strconv.ParseUint(r.PathValue("id"), 10, 64)
	if err != nil || id == 0 {
		writeError(w, http.StatusBadRequest, "pages: the id is a positive integer")
		return nil, 0, false
	}
	return pb, id, true
}

// pathPage returns the page the path's id names; when there is none, it
// has written the error and ok is false.
func (s *Server) pathPage(w http.ResponseWriter, r *http.Request) (p Page, ok bool) {
	pb, id, ok := s.pageID(w, r)
	if !ok {
		return Page{}, false
	}
	p, err := pb.Page(r.Context(), id)
	if err != nil {
		s.backendError(w, r, err)
		return Page{}, false
	}
	return p, true
}

func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	if p, ok := s.pathPage(w, r); ok {
		writeJSON(w, http.StatusOK, p)
	}
}

func (s *Server) pageLinks(w http.ResponseWriter, r *http.Request) {
	p, ok := s.pathPage(w, r)
	if !ok {
		return
	}
	links := p.Links
	if links == nil {
		links = []string{}
	}
	writeJSON(w, http.StatusOK, PageLinks{ID: p.ID, URL: p.URL, Links: links})
}

// pageContent serves the archived payload as it was received. It is the
// crawled site's content, served from the admin API's origin: a sandbox
// CSP and nosniff keep its scripts from running with the API's.
func (s *Server) pageContent(w http.ResponseWriter, r *http.Request) {
	pb, id, ok := s.pageID(w, r)
	if !ok {
		return
	}
	body, ct, ce, err := pb.PageContent(r.Context(), id)
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	h := w.Header()
	if ct == "" {
		ct = "application/octet-stream"
	}
	h.Set("Content-Type", ct)
	if ce != "" {
		h.Set("Content-Encoding", ce)
	}
	h.Set("Content-Security-Policy", "sandbox")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}

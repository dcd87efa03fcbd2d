package crawl

import (
	"container/list"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/godwit-crawler/godwit/internal/render"
)

// The requisite cache's bounds: what a browser's own HTTP cache would keep
// for a crawl's renders, small enough to hold in memory beside the crawl.
const (
	subCacheBytes = 32 << 20           // all cached bodies together
	subCacheEntry = subCacheBytes / 16 // one body at most
	subCacheTTL   = 10 * time.Minute   // an entry is answered this long after its fetch
)

// subCache answers a browser's requests for requisites (scripts,
// stylesheets, images, fonts, data: everything but documents) that the
// crawl fetched already, without a request: the browser's HTTP cache,
// shared by every tab and kept across renders, since each render starts a
// browser context whose own cache is empty. Without it an SPA's bundle was
// fetched again for every page rendered. It holds what earlier renders
// fetched (subFetcher) and the requisites the plain path fetched
// (cacheRequisite), each put only once archived whole, so the first fetch
// is in the WARC and replay finds the requisite by its URL; a cache answer
// is not archived again. A queued requisite whose URL it holds is not
// fetched again either (requisiteFetched). Only 200 answers to GET are kept, not those
// marked Cache-Control: no-store, for subCacheTTL, least recently used
// first out. Safe for concurrent use.
type subCache struct {
	now func() time.Time

	mu    sync.Mutex
	size  int64
	order *list.List // of *subEntry, most recently used first
	byURL map[string]*list.Element
}

type subEntry struct {
	url  string
	resp *render.Response
	at   time.Time
}

func newSubCache(now func() time.Time) *subCache {
	return &subCache{now: now, order: list.New(), byURL: make(map[string]*list.Element)}
}

// cacheable reports whether a browser request of this resource type may
// be answered from the cache: not a document (a frame is a page of the
// crawl, fetched under its own rules).
func cacheable(resourceType string) bool {
	return resourceType != "Document"
}

// get returns the cached answer for url, or nil.
func (s *subCache) get(url string) *render.Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	el := s.byURL[url]
	if el == nil {
		return nil
	}
	e := el.Value.(*subEntry)
	if s.now().Sub(e.at) > subCacheTTL {
		s.remove(el)
		return nil
	}
	s.order.MoveToFront(el)
	return e.resp
}

// put keeps resp as the answer for url when it may be kept.
func (s *subCache) put(url string, resp *render.Response) {
	if resp.Status != http.StatusOK || len(resp.Body) > subCacheEntry ||
		strings.Contains(strings.ToLower(resp.Header.Get("Cache-Control")), "no-store") {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if el := s.byURL[url]; el != nil {
		s.remove(el)
	}
	s.byURL[url] = s.order.PushFront(&subEntry{url: url, resp: resp, at: s.now()})
	s.size += int64(len(resp.Body))
	for s.size > subCacheBytes {
		s.remove(s.order.Back())
	}
}

func (s *subCache) remove(el *list.Element) {
	e := el.Value.(*subEntry)
	s.order.Remove(el)
	delete(s.byURL, e.url)
	s.size -= int64(len(e.resp.Body))
}

package events

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/kv"
)

var _ crawl.Events = (*Index)(nil)

// ErrNotFound: no page has that id.
var ErrNotFound = errors.New("events: page not found")

// tagPage is the index's table in the crawl's store (docs/formats.md):
// "p" alone holds the next id; "p" id(8, big-endian) a page's event.
// The frontier and the archive use other tags (h r q u m v a d s).
const tagPage = 'p'

// Index keeps every page event in the crawl's store, numbered in the
// order archived, for the admin API's pages (GET /api/pages). It is
// node-local: in cluster mode each node indexes the pages it archived.
// Writes are not synced on their own: the store's next sync (the
// frontier's, at each completion batch or close) makes them durable, and
// a page lost to a power cut before it is fetched again, at most once.
type Index struct {
	db   *kv.DB
	mu   sync.Mutex
	next uint64
}

// OpenIndex opens the index kept in db.
func OpenIndex(db *kv.DB) (*Index, error) {
	x := &Index{db: db, next: 1}
	v, ok, err := db.Get([]byte{tagPage})
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	if ok && len(v) == 8 {
		x.next = binary.BigEndian.Uint64(v)
	}
	return x, nil
}

func pageKey(id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{tagPage}, id)
}

// Page implements crawl.Events: it indexes e under the next id.
func (x *Index) Page(_ context.Context, e crawl.PageEvent) error {
	ev := Encode(e)
	x.mu.Lock()
	defer x.mu.Unlock()
	ev.ID = x.next
	v, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	b := x.db.NewBatch()
	b.Set(pageKey(ev.ID), v)
	b.Set([]byte{tagPage}, binary.BigEndian.AppendUint64(nil, ev.ID+1))
	if err := b.Commit(false); err != nil {
		return fmt.Errorf("events: index: %w", err)
	}
	x.next++
	return nil
}

// Get returns the page with id; ErrNotFound when there is none.
func (x *Index) Get(id uint64) (Event, error) {
	v, ok, err := x.db.Get(pageKey(id))
	if err != nil {
		return Event{}, fmt.Errorf("events: %w", err)
	}
	if !ok {
		return Event{}, ErrNotFound
	}
	var e Event
	if err := json.Unmarshal(v, &e); err != nil {
		return Event{}, fmt.Errorf("events: page %d: %w", id, err)
	}
	return e, nil
}

// Query selects pages: every filter set must match.
type Query struct {
	Host   string // the URL's host name (case-insensitive), port excluded
	Status int    // 0: any
	Q      string // a substring of the URL or the title, case-insensitive
	After  uint64 // only ids above it: the previous page's Next
	Limit  int    // default 100, at most 1000
}

// List returns the pages q selects, by id, and the cursor of the next
// page of results (0: no more).
func (x *Index) List(ctx context.Context, q Query) ([]Event, uint64, error) {
	if q.Limit <= 0 {
		q.Limit = 100
	}
	q.Limit = min(q.Limit, 1000)
	host, text := strings.ToLower(q.Host), strings.ToLower(q.Q)
	it, err := x.db.Scan(pageKey(q.After+1), []byte{tagPage + 1})
	if err != nil {
		return nil, 0, fmt.Errorf("events: %w", err)
	}
	defer it.Close()
	var out []Event
	for n := 0; it.Valid(); it.Next() {
		if n++; n%1024 == 0 && ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		var e Event
		if err := json.Unmarshal(it.Value(), &e); err != nil {
			return nil, 0, fmt.Errorf("events: %w", err)
		}
		if q.Status != 0 && e.Status != q.Status {
			continue
		}
		if host != "" {
			u, err := url.Parse(e.URL)
			if err != nil || strings.ToLower(u.Hostname()) != host {
				continue
			}
		}
		if text != "" && !strings.Contains(strings.ToLower(e.URL), text) && !strings.Contains(strings.ToLower(e.Title), text) {
			continue
		}
		if len(out) == q.Limit {
			return out, out[len(out)-1].ID, nil
		}
		out = append(out, e)
	}
	return out, 0, nil
}

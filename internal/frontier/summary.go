package frontier

import (
	"fmt"
	"path/filepath"

	"github.com/godwit-crawler/godwit/internal/kv"
)

// Summary is a crawl's progress as its store records it.
type Summary struct {
	Seen   int64 `json:"urls_seen"`   // URLs seen (queued or done)
	Queued int64 `json:"urls_queued"` // URLs queued, revisits included
	Hosts  int64 `json:"hosts"`       // hosts known
	// Fetched counts the URLs completed with a request (pages,
	// redirects, errors answered by the server), summed over the hosts.
	Fetched int64 `json:"urls_fetched"`
	Blocked int64 `json:"hosts_blocked"` // hosts an operator blocked
}

// ReadSummary reads the progress of the crawl whose state is in dir (the
// Options.Dir of Open) without changing anything: the store is opened
// read-only. No Frontier may have the store open (godwit holds the data
// directory's lock while it reads).
func ReadSummary(dir string) (Summary, error) {
	var s Summary
	db, err := kv.Open(filepath.Join(dir, "store"), kv.Options{ReadOnly: true})
	if err != nil {
		return s, err
	}
	defer db.Close()
	if v, ok, err := db.Get(metaKey("counts")); err != nil {
		return s, err
	} else if ok {
		d := newDecoder(v)
		s.Seen, s.Queued, s.Hosts = int64(d.uvarint()), int64(d.uvarint()), int64(d.uvarint())
		if d.err != nil {
			return s, fmt.Errorf("%w: counts", d.err)
		}
	}
	it, err := db.Scan([]byte{tagHost}, []byte{tagHost + 1})
	if err != nil {
		return s, err
	}
	for ; it.Valid(); it.Next() {
		rec, err := decodeHostRecord(it.Value())
		if err != nil {
			it.Close()
			return s, err
		}
		s.Fetched += int64(rec.fetched)
		if rec.blocked {
			s.Blocked++
		}
	}
	return s, it.Close()
}

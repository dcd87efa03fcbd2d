package frontier

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/godwit-crawler/godwit/internal/atomicfile"
	"github.com/godwit-crawler/godwit/internal/dedup"
)

// fpCounter measures the Bloom filter: of the keys the store did not
// know, how many did the filter wrongly call "maybe seen".
//
// A filter cannot forget: a shard a cluster node dropped (moved to
// another node) leaves its keys in the filter, and when the shard comes
// back its log brings them again, keys the filter rightly holds and the
// store no longer does. Those are not the filter's mistakes, and they
// were 40% of a node's measure after its shards moved away and back, so
// keys of a shard the filter holds from an earlier ownership (stale) are
// left out of the measure until the filter is rebuilt from the store.
type fpCounter struct {
	falsePositives, trueNegatives uint64
	stale                         [Shards]bool
}

// staleMeta is the meta key of the stale shards' bitmap, kept with the
// filter's snapshot.
const staleMeta = "bloom-stale"

func (c *fpCounter) encodeStale() []byte {
	b := make([]byte, Shards/8)
	for p, s := range c.stale {
		if s {
			b[p/8] |= 1 << (p % 8)
		}
	}
	return b
}

func (c *fpCounter) decodeStale(b []byte) {
	for p := range c.stale {
		c.stale[p] = p/8 < len(b) && b[p/8]&(1<<(p%8)) != 0
	}
}

func (c fpCounter) rate() float64 {
	if n := c.falsePositives + c.trueNegatives; n > 0 {
		return float64(c.falsePositives) / float64(n)
	}
	return 0
}

const bloomFile = "seen.bloom"

// loadBloom restores the snapshot a clean Close wrote, if the store says it
// is current, and otherwise rebuilds the filter from the url table.
func (f *Frontier) loadBloom(expected uint64) error {
	path := filepath.Join(f.dir, bloomFile)
	_, valid, err := f.db.Get(metaKey("bloom-valid"))
	if err != nil {
		return err
	}
	if valid {
		if file, err := os.Open(path); err == nil {
			bl, rerr := dedup.ReadBloom(file)
			file.Close()
			if rerr == nil {
				f.seen = bl
				stale, _, err := f.db.Get(metaKey(staleMeta))
				if err != nil {
					return err
				}
				f.fp.decodeStale(stale)
			} else {
				f.log.Warn("seen-set snapshot unreadable; rebuilding", "err", rerr)
			}
		}
		// From now on the store moves past the snapshot.
		b := f.db.NewBatch()
		b.Delete(metaKey("bloom-valid"))
		if err := b.Commit(true); err != nil {
			return err
		}
		if f.seen != nil {
			return nil
		}
	}
	return f.rebuildBloom(expected)
}

// rebuildBloom makes the filter anew from the url table: it then holds
// exactly the keys the store knows, none stale. f.mu must be held (or
// the frontier not yet shared).
func (f *Frontier) rebuildBloom(expected uint64) error {
	seen := dedup.NewBloom(max(expected, f.counts.seen*2), 10)
	it, err := f.db.Scan([]byte{tagURL}, []byte{tagURL + 1})
	if err != nil {
		return err
	}
	for ; it.Valid(); it.Next() {
		seen.Add(it.Key()[3:])
	}
	if err := it.Close(); err != nil {
		return err
	}
	f.seen, f.fp.stale = seen, [Shards]bool{}
	return nil
}

func (f *Frontier) saveBloom() error {
	err := atomicfile.Write(filepath.Join(f.dir, bloomFile), func(w io.Writer) error {
		_, err := f.seen.WriteTo(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("frontier: seen-set snapshot: %w", err)
	}
	b := f.db.NewBatch()
	b.Set(metaKey(staleMeta), f.fp.encodeStale())
	b.Set(metaKey("bloom-valid"), []byte{1})
	return b.Commit(true)
}

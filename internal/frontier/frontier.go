package frontier

import (
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/godwit-crawler/godwit/internal/atomicfile"
	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/dedup"
	"github.com/godwit-crawler/godwit/internal/freshness"
	"github.com/godwit-crawler/godwit/internal/kv"
	"github.com/godwit-crawler/godwit/internal/politeness"
	"github.com/godwit-crawler/godwit/internal/robots"
)

var _ crawl.Frontier = (*Frontier)(nil)

// Frontier is a crawl.Frontier persisted in a kv store.
type Frontier struct {
	policy politeness.Policy
	agent  string
	// leaseTimeout bounds how long a lease's request can last.
	leaseTimeout time.Duration
	log          *slog.Logger
	now          func() time.Time
	jitter       func() float64
	db           *kv.DB
	dir          string
	// breadthFirst orders host queues by depth instead of importance.
	breadthFirst bool
	// reopened is when the frontier was opened on an existing crawl's
	// state (zero for a new crawl): no host is leased before one gap
	// after it, however the store left the host's reservation (see lease).
	reopened time.Time

	mu      sync.Mutex
	seen    *dedup.Bloom     // "definitely new" in RAM; the url table decides the rest
	recent  *recentDone      // URLs recently found finished (recent.go)
	hosts   map[string]*host // active hosts: queued URLs or a lease out
	ready   hostHeap         // active hosts without a lease, by ready time
	leases  map[uint64]*lease
	leased  map[string]*lease   // by URL key
	blocked map[string]struct{} // hosts an operator blocked (active or not)
	nextID  uint64
	counts  counts
	// earliestDue is no later than the earliest entry of the due-time
	// index (zero: the index is empty), so promotion scans only when
	// something may be due.
	earliestDue time.Time
	opic        opic
	unsaved     unsavedCash // OPIC cash not yet in its records (cash.go)
	re          *recrawler  // nil: one pass
	// hostCapacity is the sum over hosts of one request per politeness
	// cycle (hostRecord.capacity): requests per second.
	hostCapacity float64
	fp           fpCounter
	expectedURLs uint64 // Options.ExpectedURLs: sizes a rebuilt filter
	// shards: which shards this frontier owns (see shard.go); all of
	// them unless Options.Partial.
	shards  shardSet
	closed  bool
	changed chan struct{} // closed and replaced whenever a waiter may proceed
	// ipc is the IP budget and groups its groups by IPKey (ipgroups.go).
	ipc     ipConfig
	groups  map[string]*ipGroup
	ipSweep uint64
	// resolving counts hosts handed to a Next to resolve (out of the
	// ready heap, not leased): the crawl is not exhausted meanwhile.
	resolving int
	visits    int // visits out on hosts (visit.go): the crawl is not over
}

// host is the in-memory state of an active host.
type host struct {
	name     string
	shard    uint16
	rec      hostRecord
	robots   crawl.RobotsState
	robotsOK bool  // robots loaded from the store
	head     *item // the first queue entry, loaded lazily; the in-memory window
	// scanFrom is a key no greater than any live entry of the queue (nil:
	// the queue's prefix). Reading the head from there skips the
	// tombstones that deleted entries leave at the front of the queue
	// until compaction removes them; from the prefix, finding the head
	// would cost time proportional to the URLs the host already had.
	scanFrom []byte
	// discFrom is scanFrom for the discovery bands: a key no greater
	// than any live discovery entry (nil: the first discovery band).
	discFrom  []byte
	leased    bool
	heapIndex int // position in Frontier.ready; -1 when absent
	capLogged bool
	// credit decides between a due revisit and discovery when the host
	// has both (see leaseItem).
	credit float64
	// The host's IP group (ipgroups.go): its state of resolution, its
	// group (nil: none), its place in the group's parked heap (-1: not
	// parked), and the group's gate when the group released it.
	ipState   uint8
	ip        *ipGroup
	parkIndex int
	ipReady   time.Time
}

// item is a queue entry held in memory.
type item struct {
	key  []byte
	task crawl.Task
}

// lease is an outstanding grant.
type lease struct {
	id        uint64
	host      *host
	item      *item
	prevReady time.Time // the host's ready time before the lease reserved it
	improve   bool      // found by a shorter path while leased: replay when done
	revisit   bool      // the item is in revisitBand
	// ipPrev and ipStart: the host's IP group's next start before and
	// after this lease (zero ipStart: not counted in a group).
	ipPrev, ipStart time.Time
	// visiting and visitReady are the lease's shared visits (visit.go):
	// one in flight, and when the host may next be asked under the lease.
	visiting   bool
	visitReady time.Time
}

// counts are crawl-wide totals, persisted with every batch.
type counts struct {
	seen, queued, hosts uint64
	due                 uint64 // entries in the due-time index
	revisits            uint64 // queue entries in revisitBand (part of queued)
}

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

// Options configure Open. Dir is required; the rest have defaults.
type Options struct {
	Dir          string // the state directory (created if missing)
	Policy       politeness.Policy
	Agent        string // robots.txt product token the stored rules are compiled for; default "godwit"
	ExpectedURLs uint64 // sizes the Bloom filter (it grows beyond); default 1M
	// LeaseTimeout is the longest a lease's request can take (the fetch
	// timeout); default 1m. See lease.
	LeaseTimeout time.Duration
	Logger       *slog.Logger
	Now          func() time.Time
	// Rand returns uniform numbers in [0, 1) that jitter backoffs; default
	// math/rand/v2's Float64.
	Rand func() float64
	// Recrawl keeps the crawl going: each URL fetched gets a next visit
	// (from its change estimate and importance, see recrawl.go) in the
	// due-time index, it is queued again when due, and Next waits for
	// the next due URL instead of reporting exhaustion.
	Recrawl bool
	// Freshness bounds revisit intervals and tunes the change estimator
	// (zero fields: freshness's defaults).
	Freshness freshness.Policy
	// Uniform revisits every URL at the same interval, the revisit
	// budget spread evenly, instead of the freshness-optimal intervals:
	// a baseline to compare with.
	Uniform bool
	// RevisitShare is the share of fetch capacity reserved for revisits
	// while discovery has work (and for discovery while revisits are
	// due); either uses what the other leaves. Default 0.3; negative: 0.
	// Control(SetRevisitShare) changes it while the crawl runs.
	RevisitShare float64
	// Workers is how many requests the crawler makes at once: with the
	// hosts' politeness it bounds the capacity revisits are planned for.
	// 0: no bound from workers.
	Workers int
	// SitemapInterval is how often a recrawl reads sitemap files again
	// (within the Freshness bounds): they are sources of URLs, outside
	// the freshness allocation. Default 1h.
	SitemapInterval time.Duration
	// BreadthFirst orders each host's queue by depth from the seeds
	// instead of importance (OPIC cash, depth and sitemap priority).
	BreadthFirst bool
	// Resolve looks up a host's addresses (the fetcher's DNS cache):
	// with it, hosts on one address (IPv4; IPv6 by /64) share an IP
	// budget of IPConcurrency leases at once (0: no bound) and IPDelay
	// between lease starts, on top of each host's rules (ipgroups.go).
	// Nil: no IP budget.
	Resolve       func(ctx context.Context, host string) ([]netip.Addr, error)
	IPConcurrency int
	IPDelay       time.Duration
	// Partial starts the frontier owning no shard: it keeps the state
	// it is given for every shard, but leases only hosts of the shards
	// SetShard makes its own, and never reports exhaustion (a cluster
	// decides that). Cluster mode; see shard.go.
	Partial bool
}

const bloomFile = "seen.bloom"

// Open opens the frontier stored in o.Dir, or creates an empty one. It
// loads the active hosts and their ready times, and restores the Bloom
// filter from the snapshot a clean Close left, or rebuilds it from the
// url table.
func Open(o Options) (*Frontier, error) {
	o.Policy.Default()
	if err := o.Policy.Validate(); err != nil {
		return nil, err
	}
	if o.Dir == "" {
		return nil, errors.New("frontier: no state directory")
	}
	if o.Agent == "" {
		o.Agent = "godwit"
	}
	if o.ExpectedURLs == 0 {
		o.ExpectedURLs = 1 << 20
	}
	if o.LeaseTimeout <= 0 {
		o.LeaseTimeout = time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	var re *recrawler
	if o.Recrawl {
		var err error
		if re, err = newRecrawler(o); err != nil {
			return nil, err
		}
	}
	db, err := kv.Open(filepath.Join(o.Dir, "store"), kv.Options{Logger: o.Logger})
	if err != nil {
		return nil, err
	}
	f := &Frontier{
		policy:       o.Policy,
		agent:        o.Agent,
		leaseTimeout: o.LeaseTimeout,
		expectedURLs: o.ExpectedURLs,
		log:          o.Logger,
		now:          o.Now,
		jitter:       o.Rand,
		breadthFirst: o.BreadthFirst,
		re:           re,
		db:           db,
		dir:          o.Dir,
		hosts:        make(map[string]*host),
		leases:       make(map[uint64]*lease),
		recent:       newRecentDone(recentSlots),
		leased:       make(map[string]*lease),
		blocked:      make(map[string]struct{}),
		changed:      make(chan struct{}),
		shards:       newShardSet(!o.Partial),
		ipc:          ipConfig{concurrency: max(o.IPConcurrency, 0), delay: max(o.IPDelay, 0), resolve: o.Resolve},
		groups:       make(map[string]*ipGroup),
	}
	if err := f.load(o.ExpectedURLs); err != nil {
		db.Close()
		return nil, err
	}
	return f, nil
}

// load restores counts, active hosts and the Bloom filter.
func (f *Frontier) load(expected uint64) error {
	if v, ok, err := f.db.Get(metaKey("counts")); err != nil {
		return err
	} else if ok {
		f.reopened = f.now()
		d := newDecoder(v)
		f.counts = counts{seen: d.uvarint(), queued: d.uvarint(), hosts: d.uvarint()}
		if d.err == nil && len(d.b) > 0 {
			f.counts.due = d.uvarint()
		}
		if d.err == nil && len(d.b) > 0 {
			f.counts.revisits = d.uvarint()
			f.opic.total = d.float64()
			f.hostCapacity = d.float64()
		}
		if d.err != nil {
			return fmt.Errorf("%w: counts", d.err)
		}
	}
	it, err := f.db.Scan([]byte{tagHost}, []byte{tagHost + 1})
	if err != nil {
		return err
	}
	for ; it.Valid(); it.Next() {
		rec, err := decodeHostRecord(it.Value())
		if err != nil {
			it.Close()
			return err
		}
		name := string(it.Key()[3:])
		if rec.blocked {
			f.blocked[name] = struct{}{}
		}
		if rec.queued > 0 {
			h := &host{name: name, shard: shardOf(name), rec: rec, heapIndex: -1, parkIndex: -1}
			f.hosts[h.name] = h
			f.schedule(h) // a blocked host stays out of the heap
		}
	}
	if err := it.Close(); err != nil {
		return err
	}
	if f.counts.due > 0 {
		// Promotion will find the real earliest; "now" makes it look.
		f.earliestDue = f.now()
	}
	if err := f.loadRecrawl(); err != nil {
		return err
	}
	return f.loadBloom(expected)
}

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

// Close saves the Bloom filter snapshot and closes the store. The
// frontier cannot be used afterwards.
func (f *Frontier) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	var err error
	if len(f.unsaved.delta) > 0 {
		b := f.db.NewBatch()
		if err = f.saveCash(b); err == nil {
			err = f.commit(b, nil)
		} else {
			b.Discard()
		}
	}
	f.closed = true
	f.broadcast()
	if serr := f.saveBloom(); err == nil {
		err = serr
	}
	if cerr := f.db.Close(); err == nil {
		err = cerr
	}
	return err
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

// Add queues each link whose key was not seen before, and lowers the
// depth of seen ones found by a shorter path (see crawl.Frontier).
func (f *Frontier) Add(_ context.Context, links []crawl.Link) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.add(links, crawl.Position{})
}

// add is Add, recording m with the links when m is set. f.mu must be
// held.
func (f *Frontier) add(links []crawl.Link, m crawl.Position) (int, error) {
	if f.closed {
		return 0, errClosed
	}
	b := f.db.NewBatch()
	f.mark(b, m)
	dirty := make(map[*host]struct{})
	batchSeen := make(map[string]struct{}, len(links))
	added := 0
	for _, l := range links {
		if _, dup := batchSeen[l.Key]; dup {
			continue
		}
		batchSeen[l.Key] = struct{}{}
		uk := urlKey(l.Host, l.Key)
		kh := keyHash(l.Key)
		if f.seen.MayContainHash(kh) {
			if d, ok := f.recent.depth(kh); ok && f.re == nil && l.Hints == (crawl.Hints{}) && (l.Embed > 0 || l.Depth >= d) {
				continue // finished, and this link changes nothing (recent.go)
			}
			rec, ok := f.unsaved.record(uk) // kept with its unsaved cash (cash.go)
			if !ok {
				v, found, err := f.db.Get(uk)
				if err != nil {
					b.Discard()
					return added, err
				}
				if found {
					if rec, err = decodeURLRecord(v); err != nil {
						b.Discard()
						return added, err
					}
					if rec.state == urlQueued {
						rec.cash += f.unsaved.get(uk) // the view (cash.go)
					}
				}
				ok = found
			}
			if ok {
				var err error
				hinted, cashed := f.take(&rec, l)
				changed := hinted || cashed
				switch {
				case l.Depth < rec.depth && l.Embed == 0:
					// (A requisite has its page's depth, not a
					// shorter path to the URL.)
					f.recent.drop(kh)
					err = f.shorterPath(b, dirty, uk, rec, l)
				case rec.state == urlDone && f.re == nil:
					f.recent.put(kh, rec.depth)
					if changed {
						err = f.settle(b, dirty, uk, rec, l, !hinted)
					}
				case changed:
					err = f.settle(b, dirty, uk, rec, l, !hinted)
				}
				if err != nil {
					b.Discard()
					return added, err
				}
				continue
			}
			if !f.shards.partial || !f.fp.stale[shardOf(l.Host)] {
				f.fp.falsePositives++
			}
		} else if !f.shards.partial || !f.fp.stale[shardOf(l.Host)] {
			f.fp.trueNegatives++
		}
		f.seen.AddHash(kh)
		h, err := f.activeHost(l.Host)
		if err != nil {
			b.Discard()
			return added, err
		}
		f.counts.seen++
		rec := urlRecord{depth: l.Depth, sitemapPrio: encodeSitemapPriority(l.Hints)}
		if l.Cash > 0 {
			rec.cash = l.Cash
			f.opic.total += l.Cash
		}
		f.enqueue(b, h, uk, crawl.Task{Link: l}, rec, f.band(rec))
		dirty[h] = struct{}{}
		added++
	}
	if f.unsaved.due(f.now()) {
		if err := f.saveCash(b); err != nil {
			b.Discard()
			return added, err
		}
	}
	if b.Empty() {
		b.Discard() // every link was seen, none by a shorter path
		return 0, nil
	}
	if err := f.commit(b, dirty); err != nil {
		return added, err
	}
	f.broadcast()
	return added, nil
}

// enqueue writes a queue entry for t at the back of band prio and the
// URL record pointing at it. f.mu must be held.
func (f *Frontier) enqueue(b *kv.Batch, h *host, uk []byte, t crawl.Task, rec urlRecord, prio uint8) {
	f.recent.drop(keyHash(t.Key)) // queued: no longer finished
	seq := h.rec.nextSeq
	h.rec.nextSeq++
	qk := queueKey(h.name, prio, seq)
	b.Set(qk, encodeTask(t))
	rec.state, rec.prio, rec.seq = urlQueued, prio, seq
	f.putURL(b, uk, rec)
	h.rec.queued++
	f.counts.queued++
	if prio == revisitBand {
		h.rec.revisits++
		f.counts.revisits++
	} else if h.discFrom != nil && bytes.Compare(qk, h.discFrom) < 0 {
		h.discFrom = qk
	}
	if h.head != nil && bytes.Compare(qk, h.head.key) < 0 && !h.leased {
		h.head = nil // a new first entry: reload lazily
	}
	if h.scanFrom != nil && bytes.Compare(qk, h.scanFrom) < 0 {
		h.scanFrom = qk
	}
	f.schedule(h)
}

// dequeued counts the queue entry at key, of host h, gone. f.mu must be
// held.
func (f *Frontier) dequeued(h *host, key []byte) {
	h.deleted(key)
	h.rec.queued--
	f.counts.queued--
	if bandOf(key) == revisitBand {
		h.rec.revisits--
		f.counts.revisits--
	}
}

// shorterPath handles a link to a URL already known at a greater depth:
// the smaller depth is taken up (see crawl.Frontier.Add), and rec, with
// what take changed, written to b. f.mu must be held.
func (f *Frontier) shorterPath(b *kv.Batch, dirty map[*host]struct{}, uk []byte, rec urlRecord, l crawl.Link) error {
	switch rec.state {
	case urlQueued:
		rec.depth = l.Depth
		improve := func(t *crawl.Task) { t.Depth, t.Hops, t.Via = l.Depth, l.Hops, l.Via }
		if ls := f.leased[l.Key]; ls != nil || rec.prio == revisitBand {
			// Leased, or a revisit (it keeps its band): rewrite the entry
			// in place (a restart fetches it at the new depth); a leased one
			// is replayed once its lease is done.
			oldKey, t, ok, err := f.queuedTask(l.Host, rec)
			if err != nil || !ok {
				return err // an entry already completed in this batch's past: nothing to improve
			}
			improve(&t)
			if ls != nil {
				ls.improve = true
				ls.item.task = t
			}
			b.Set(oldKey, encodeTask(t))
			f.putURL(b, uk, rec)
			return nil
		}
		// Queued: move it to its new band.
		return f.move(b, dirty, uk, &rec, l.Host, improve, f.band(rec))
	case urlDone:
		if rec.capture == nil {
			f.putURL(b, uk, rec) // nothing archived: nothing to follow again
			return nil
		}
		h, err := f.activeHost(l.Host)
		if err != nil {
			return err
		}
		t := crawl.Task{Link: l, Replay: rec.capture}
		rec.depth = l.Depth
		f.enqueue(b, h, uk, t, rec, f.band(rec))
		dirty[h] = struct{}{}
		return nil
	}
	return nil
}

// activeHost returns the in-memory state of host, loading or creating it.
// f.mu must be held.
func (f *Frontier) activeHost(name string) (*host, error) {
	if h := f.hosts[name]; h != nil {
		return h, nil
	}
	h, found, err := f.storedHost(name)
	if err != nil {
		return nil, err
	}
	if !found {
		f.counts.hosts++
	}
	f.hosts[name] = h
	return h, nil
}

// storedHost returns an idle host as the store has it (found false: a
// new host, with a zero record), not yet in f.hosts. f.mu must be held.
func (f *Frontier) storedHost(name string) (h *host, found bool, err error) {
	h = &host{name: name, shard: shardOf(name), heapIndex: -1, parkIndex: -1}
	v, found, err := f.db.Get(hostKey(name))
	if err != nil || !found {
		return h, false, err
	}
	if h.rec, err = decodeHostRecord(v); err != nil {
		return nil, false, err
	}
	return h, true, nil
}

// commit writes the dirty hosts' records and the counts with b, then
// commits it without fsync (see package kv). f.mu must be held.
func (f *Frontier) commit(b *kv.Batch, dirty map[*host]struct{}) error {
	for h := range dirty {
		b.Set(hostKey(h.name), h.rec.encode())
	}
	c := []byte{encodingVersion}
	c = binary.AppendUvarint(c, f.counts.seen)
	c = binary.AppendUvarint(c, f.counts.queued)
	c = binary.AppendUvarint(c, f.counts.hosts)
	c = binary.AppendUvarint(c, f.counts.due)
	c = binary.AppendUvarint(c, f.counts.revisits)
	// Without the unsaved cash: the stored total is the sum of the stored
	// records (cash.go).
	c = binary.LittleEndian.AppendUint64(c, math.Float64bits(f.opic.total-f.unsaved.sum))
	c = binary.LittleEndian.AppendUint64(c, math.Float64bits(f.hostCapacity))
	b.Set(metaKey("counts"), c)
	return b.Commit(false)
}

var errClosed = errors.New("frontier: closed")

// Next blocks until some host is ready and leases the head of its queue.
func (f *Frontier) Next(ctx context.Context) (crawl.Lease, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return crawl.Lease{}, err // an ended ctx wins over a ready host
		}
		f.mu.Lock()
		l, wait, err := f.tryLease()
		changed := f.changed
		f.mu.Unlock()
		if err == nil && wait == 0 {
			return l, nil
		}
		if nr := (*needResolve)(nil); errors.As(err, &nr) {
			if err := f.resolveHost(ctx, nr.host); err != nil {
				return crawl.Lease{}, err
			}
			continue
		}
		if err != nil {
			return l, err
		}
		var tick <-chan time.Time
		if wait > 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			tick = timer.C
		}
		select {
		case <-ctx.Done():
			return crawl.Lease{}, ctx.Err()
		case <-changed:
		case <-tick:
		}
	}
}

// tryLease leases the first ready host, or says how long to wait for one
// (wait < 0: until something changes). f.mu must be held.
func (f *Frontier) tryLease() (crawl.Lease, time.Duration, error) {
	if f.closed {
		return crawl.Lease{}, 0, errClosed
	}
	if err := f.promote(f.now()); err != nil {
		return crawl.Lease{}, 0, err
	}
	if len(f.ready) > 0 && f.re != nil && f.counts.due > 0 {
		// Wake for the next due revisit if it comes before the next host.
		wait, untilDue := f.ready[0].readyAt().Sub(f.now()), f.earliestDue.Sub(f.now())
		if wait > 0 && untilDue < wait {
			return crawl.Lease{}, max(untilDue, time.Millisecond), nil
		}
	}
	for len(f.ready) > 0 {
		h := f.ready[0]
		now := f.now()
		if wait := h.readyAt().Sub(now); wait > 0 {
			return crawl.Lease{}, wait, nil
		}
		if h.head == nil {
			if err := f.loadHead(h); err != nil {
				return crawl.Lease{}, 0, err
			}
			if h.head == nil { // the count said queued, the store says empty: repair
				f.log.Error("host queue empty despite its count; repaired", "host", h.name, "queued", h.rec.queued)
				f.counts.queued -= uint64(h.rec.queued)
				f.counts.revisits -= uint64(h.rec.revisits)
				h.rec.queued, h.rec.revisits = 0, 0
				heap.Remove(&f.ready, h.heapIndex)
				f.forgetIP(h)
				delete(f.hosts, h.name)
				continue
			}
		}
		if !h.robotsOK {
			if err := f.loadRobots(h); err != nil {
				return crawl.Lease{}, 0, err
			}
		}
		if !f.reopened.IsZero() {
			// The process before this one may have contacted the host up
			// to the moment it ended, and its reservation (see lease) may
			// not have reached the disk: no host is contacted before one
			// gap after the restart.
			if floor := f.reopened.Add(f.gap(h).Gap); floor.After(now) {
				h.rec.readyAt = floor
				if err := f.commit(f.db.NewBatch(), map[*host]struct{}{h: {}}); err != nil {
					return crawl.Lease{}, 0, err
				}
				heap.Fix(&f.ready, h.heapIndex)
				continue
			}
		}
		if ok, err := f.gateIP(h, now); !ok {
			if err != nil {
				return crawl.Lease{}, 0, err
			}
			continue // parked: its address is busy
		}
		return f.lease(h, now)
	}
	if f.re != nil && f.counts.due > 0 {
		return crawl.Lease{}, max(f.earliestDue.Sub(f.now()), time.Millisecond), nil
	}
	if len(f.leases) == 0 && f.resolving == 0 && f.visits == 0 && !f.shards.partial {
		return crawl.Lease{}, 0, crawl.ErrExhausted
	}
	return crawl.Lease{}, -1, nil
}

// lease hands out h's head (or its first discovery entry: see pick). It
// also reserves the host until the latest moment the lease's request could
// end plus the host's delay, in memory and in the store (not fsynced: a
// restart holds every host back one gap anyway, see Frontier.reopened);
// Complete replaces the reservation with the real end. f.mu must be held.
func (f *Frontier) lease(h *host, now time.Time) (crawl.Lease, time.Duration, error) {
	it, err := f.pick(h)
	if err != nil {
		return crawl.Lease{}, 0, err
	}
	rec, err := f.leasedURL(h, it, now)
	if err != nil {
		return crawl.Lease{}, 0, err
	}
	heap.Remove(&f.ready, h.heapIndex)
	h.leased = true
	ls := &lease{host: h, item: it, prevReady: h.rec.readyAt, revisit: bandOf(it.key) == revisitBand}
	f.leasedIP(ls, now)
	h.rec.pol = f.policy.Probe(h.rec.pol, now) // an open breaker's cool-down is over: this is its probe
	h.rec.readyAt = laterOf(h.rec.readyAt, now.Add(f.leaseTimeout+f.gap(h).Gap))
	b := f.db.NewBatch()
	b.Set(hostKey(h.name), h.rec.encode())
	if err := b.Commit(false); err != nil {
		return crawl.Lease{}, 0, err
	}
	f.nextID++
	ls.id = f.nextID
	f.leases[f.nextID] = ls
	f.leased[ls.item.task.Key] = ls
	over := h.rec.policy.MaxPages != nil && int64(h.rec.fetched) >= *h.rec.policy.MaxPages
	t := ls.item.task
	t.Cash, t.Revisit = rec.cash, ls.revisit
	lease := crawl.Lease{ID: f.nextID, Task: t, Robots: h.robots, OverBudget: over}
	if h.rec.aliases != nil {
		lease.Aliases.Rules = slices.Clone(h.rec.aliases.Rules)
	}
	return lease, 0, nil
}

// loadHead reads the first entry of h's queue. f.mu must be held.
func (f *Frontier) loadHead(h *host) error {
	p := queuePrefix(h.name)
	from := h.scanFrom
	if from == nil {
		from = p
	}
	it, err := f.db.Scan(from, prefixEnd(p))
	if err != nil {
		return err
	}
	if it.Valid() {
		t, err := decodeTask(it.Value())
		if err != nil {
			it.Close()
			return err
		}
		h.head = &item{key: append([]byte(nil), it.Key()...), task: t}
		h.scanFrom = h.head.key // nothing live is before the head
	}
	return it.Close()
}

// loadRobots restores h's robots.txt state and compiles its rules.
// f.mu must be held.
func (f *Frontier) loadRobots(h *host) error {
	v, ok, err := f.db.Get(robotsKey(h.name))
	if err != nil {
		return err
	}
	if ok {
		if h.robots, err = decodeRobots(v); err != nil {
			return err
		}
		if h.robots.Status == crawl.RobotsOK {
			h.robots.Rules = robots.Parse(h.robots.Body).Group(f.agent)
		}
	}
	h.robotsOK = true
	return nil
}

// Complete applies a lease's outcome: the host's robots.txt state, its next
// ready time, and the fate of the task. It returns once the outcome, and
// every Add before it, is on disk.
func (f *Frontier) Complete(_ context.Context, l crawl.Lease, out crawl.Outcome) error {
	if err := f.complete(l, out); err != nil {
		return err
	}
	f.calibrate()
	return f.db.Sync()
}

func (f *Frontier) complete(l crawl.Lease, out crawl.Outcome) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	ls, ok := f.leases[l.ID]
	if !ok || f.closed {
		return nil // already completed (or closed: the entry stays queued)
	}
	return f.apply(l.ID, ls, out, crawl.Position{})
}

// apply ends lease ls (id: its number; 0 for a lease rebuilt from the
// store, see ApplyOutcome) with out, recording m in the same batch when
// m is set. f.mu must be held.
func (f *Frontier) apply(id uint64, ls *lease, out crawl.Outcome, m crawl.Position) error {
	h := ls.host
	if id != 0 {
		delete(f.leases, id)
		delete(f.leased, ls.item.task.Key)
		h.leased = false
		f.endedIP(ls, out)
	}
	b := f.db.NewBatch()
	f.mark(b, m)

	if out.Robots != nil {
		h.robots = *out.Robots
		h.robotsOK = true
		b.Set(robotsKey(h.name), encodeRobots(h.robots))
	}
	if out.Aliases != nil {
		h.rec.aliases = &crawl.HostAliases{Rules: slices.Clone(out.Aliases.Rules)} // written with the host record below
	}
	// The lease reserved the host pessimistically; now the exchange's end
	// is known.
	h.rec.readyAt = laterOf(ls.prevReady, ls.visitReady) // visitReady: visit.go
	if out.Requested {
		h.rec.pol = f.policy.Observe(h.rec.pol, politeness.Observation{
			Start:         out.Start,
			FirstByte:     out.FirstByte,
			End:           out.End,
			Failure:       out.Health,
			RetryAfter:    out.RetryAfter,
			HasRetryAfter: out.HasRetryAfter,
			Jitter:        f.jitter(),
		})
		ready, why := politeness.Ready(h.rec.pol, out.End, f.gap(h))
		if why.Reason == politeness.ReasonBreaker && h.rec.pol.Trips > 0 && h.rec.pol.Streak > 0 {
			f.log.Warn("host parked by its circuit breaker", "host", h.name,
				"failures", h.rec.pol.Streak, "until", ready)
		}
		h.rec.readyAt = laterOf(h.rec.readyAt, ready)
	}

	if out.Requested {
		f.observeCapacity(h, out.End.Sub(out.Start))
	}
	if out.Class == crawl.ClassTransient || out.Class == crawl.ClassPermanent ||
		(out.Robots != nil && out.Requested && (out.Robots.Status == crawl.RobotsUnavailable || out.Robots.Status == crawl.RobotsGaveUp)) {
		h.rec.errors++
	}

	t := ls.item.task
	uk := urlKey(h.name, t.Key)
	if out.Disposition == crawl.Requeue {
		// The entry stays where it is; an Add during the lease may have put
		// another before it, so the head is read again.
		h.head = nil
	} else if err := f.finish(b, ls, t, uk, out); err != nil {
		b.Discard()
		return err
	}
	if err := f.commit(b, map[*host]struct{}{h: {}}); err != nil {
		return err
	}
	if h.rec.queued == 0 && !h.leased {
		f.forgetIP(h)
		delete(f.hosts, h.name) // idle: its record is in the store
	} else {
		f.schedule(h)
	}
	f.broadcast()
	return nil
}

// finish applies a Done or Retry outcome to the lease's entry and URL
// record: the OPIC cash the page handed on, its change estimate and next
// visit when recrawling, or its next attempt. f.mu must be held.
func (f *Frontier) finish(b *kv.Batch, ls *lease, t crawl.Task, uk []byte, out crawl.Outcome) error {
	h := ls.host
	rec, err := f.urlView(h.name, t.Key) // written below, in every case
	if err != nil {
		return err
	}
	b.Delete(ls.item.key)
	f.dequeued(h, ls.item.key)
	h.head = nil
	if out.Disposition == crawl.Retry {
		if t.Replay == nil {
			t.Attempt++
		} // else the archived response could not be read: fetch it, a first attempt
		t.Replay = nil
		rec.depth = t.Depth
		prio := f.band(rec)
		if ls.revisit {
			prio = revisitBand
		}
		f.enqueue(b, h, uk, t, rec, prio)
		return nil
	}
	if out.Requested || out.Status != 0 {
		h.rec.fetched++
	}
	fetched := out.Requested && out.Status != 0
	rec.state, rec.depth, rec.prio, rec.seq = urlDone, t.Depth, 0, 0
	if f.re == nil {
		f.recent.put(keyHash(t.Key), t.Depth)
	}
	if t.Replay == nil {
		rec.status, rec.valid = out.Status, out.Validators
		if out.Status != http.StatusNotModified || rec.capture == nil {
			// A 304 confirms the capture the URL has: the next revisit
			// refers to that one, not to the revisit record of the 304.
			rec.capture = out.Capture
		}
		if out.Requested {
			rec.fetchedAt = out.End
		}
	}
	if fetched {
		// OPIC: the cash handed on, and the virtual page's grant, go into
		// the history.
		spent := min(max(out.Spent, 0), rec.cash)
		rec.cash -= spent
		rec.history += spent + freshness.Grant
		f.opic.total += freshness.Grant
	}
	if f.re != nil {
		switch next := f.visit(&rec, t, out, ls.revisit); {
		case !next.IsZero():
			f.scheduleRevisit(b, &rec, t, next)
		case t.Replay == nil:
			rec.nextVisit = time.Time{}
		}
	}
	if ls.improve && rec.capture != nil {
		t.Replay = rec.capture
		f.enqueue(b, h, uk, t, rec, f.band(rec))
		return nil
	}
	f.putURL(b, uk, rec)
	return nil
}

// gap is the host's effective gap between exchanges and its reason.
// f.mu must be held.
func (f *Frontier) gap(h *host) politeness.Delay {
	var crawlDelay time.Duration
	if h.robots.Status == crawl.RobotsOK && h.robots.Rules != nil {
		crawlDelay, _ = h.robots.Rules.CrawlDelay()
	}
	p := f.policy
	if h.rec.policy.Delay != nil {
		p.Delay = *h.rec.policy.Delay
	}
	d, capped := p.HostGap(h.rec.pol, crawlDelay)
	if h.rec.policy.Delay != nil && d.Reason == politeness.ReasonConfigured {
		d.Reason = politeness.ReasonOverride
	}
	if capped && !h.capLogged {
		h.capLogged = true
		f.log.Warn("crawl-delay above cap; using the cap", "host", h.name,
			"crawl_delay", crawlDelay, "cap", f.policy.CrawlDelayCap)
	}
	if h.robots.Status == crawl.RobotsUnavailable {
		if r := f.policy.RobotsRetryDelay(h.robots.Failures); r > d.Gap {
			d = politeness.Delay{Gap: r, Reason: politeness.ReasonRobots}
		}
	}
	return d
}

// readyAt is when h may next be leased: its own ready time, or its IP
// group's next start when the group released it (ipgroups.go).
func (h *host) readyAt() time.Time { return laterOf(h.rec.readyAt, h.ipReady) }

// deleted notes that the queue entry at key is gone: if it was a lower
// bound itself (the head, or the first discovery entry, with nothing
// inserted before it since), every live entry is now after it.
func (h *host) deleted(key []byte) {
	if bytes.Equal(h.scanFrom, key) {
		h.scanFrom = append(append(h.scanFrom[:0:0], key...), 0) // the next possible key
	}
	if bytes.Equal(h.discFrom, key) {
		h.discFrom = append(append(h.discFrom[:0:0], key...), 0)
	}
}

// schedule puts h in the ready heap if it has work and no lease out, or
// fixes its position. f.mu must be held.
func (f *Frontier) schedule(h *host) {
	switch {
	case h.leased || h.rec.queued == 0 || h.rec.blocked || !f.shards.owns(h.shard) || h.ipState == ipResolving:
		if h.heapIndex >= 0 {
			heap.Remove(&f.ready, h.heapIndex)
		}
		f.unpark(h)
	case h.parkIndex >= 0:
		heap.Fix(&h.ip.parked, h.parkIndex) // waits for its address
	case h.heapIndex < 0:
		heap.Push(&f.ready, h)
	default:
		heap.Fix(&f.ready, h.heapIndex)
	}
}

// broadcast wakes every waiting Next. f.mu must be held.
func (f *Frontier) broadcast() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// Host returns what the frontier knows about one host (its politeness
// key, as urlnorm.Host spells it): queue, effective delay and why, next
// ready time, error streak, breaker and robots.txt. ok is false for a
// host never seen.
func (f *Frontier) Host(name string) (info crawl.HostInfo, ok bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.hosts[name]
	if h == nil {
		// Idle: its records are in the store.
		var found bool
		if h, found, err = f.storedHost(name); err != nil || !found {
			return crawl.HostInfo{}, false, err
		}
	}
	if !h.robotsOK {
		// Loaded into a copy: an idle host stays out of memory, and an
		// active one loads its rules when it is next leased.
		c := *h
		if err := f.loadRobots(&c); err != nil {
			return crawl.HostInfo{}, false, err
		}
		h = &c
	}
	gap := f.gap(h)
	info = crawl.HostInfo{
		Name:            name,
		Queued:          h.rec.queued,
		Fetched:         h.rec.fetched,
		Leased:          h.leased,
		Delay:           gap,
		NextReady:       h.rec.readyAt,
		Waiting:         gap.Reason,
		Latency:         h.rec.pol.Latency,
		ErrorStreak:     h.rec.pol.Streak,
		Errors:          h.rec.errors,
		Breaker:         h.rec.pol.Breaker,
		Robots:          h.robots.Status,
		RobotsFetchedAt: h.robots.FetchedAt,
		Blocked:         h.rec.blocked,
		Policy:          h.rec.policy,
	}
	if g := h.ip; g != nil {
		info.IPGroup = g.key
		if h.parkIndex >= 0 || (g.released == h && h.ipReady.After(h.rec.readyAt) && h.ipReady.After(f.now())) {
			info.Waiting = politeness.ReasonIP
			info.NextReady = laterOf(h.rec.readyAt, g.nextStart)
		}
	}
	if h.rec.aliases != nil {
		info.Aliases = slices.Clone(h.rec.aliases.Rules)
	}
	switch {
	case h.rec.blocked:
		info.Waiting = politeness.ReasonBlocked
	case h.rec.pol.Until.After(f.now()) && !h.rec.pol.Until.Before(h.rec.readyAt):
		info.Waiting = h.rec.pol.Why
	}
	return info, true, nil
}

// Control applies an operator's command and returns once it is on disk.
// A blocked host leaves the ready heap at once (a request in flight
// finishes); an unblocked one returns to it. A policy delay below the
// configured delay is refused (crawl.ErrBelowFloor) unless c.Force.
func (f *Frontier) Control(_ context.Context, c crawl.Control) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return errClosed
	}
	if c.Op == crawl.SetRevisitShare {
		return f.setRevisitShare(c.Share)
	}
	if c.Host == "" {
		return errors.New("frontier: control: no host")
	}
	if d := c.Policy.Delay; c.Op == crawl.SetHostPolicy && d != nil && *d < f.policy.Delay && !c.Force {
		// The floor: an override may slow a host down, not speed it up
		// past what the crawl was told, unless forced. (robots.txt
		// Crawl-delay applies on top either way: see gap.)
		return fmt.Errorf("%w: delay %v is below the crawl's delay of %v", crawl.ErrBelowFloor, *d, f.policy.Delay)
	}
	h := f.hosts[c.Host]
	if h == nil {
		// Idle or unknown: change its record in the store.
		var found bool
		var err error
		if h, found, err = f.storedHost(c.Host); err != nil {
			return err
		}
		if !found {
			f.counts.hosts++ // an operator may block a host before it is met
		}
	}
	switch c.Op {
	case crawl.SetHostPolicy:
		h.rec.policy = c.Policy
	case crawl.ClearHostPolicy:
		h.rec.policy = crawl.HostPolicy{}
	case crawl.BlockHost:
		h.rec.blocked = true
		f.blocked[c.Host] = struct{}{}
		f.hostCapacity -= h.rec.capacity // back when it is next fetched
		h.rec.capacity = 0
	case crawl.UnblockHost:
		h.rec.blocked = false
		delete(f.blocked, c.Host)
	default:
		return fmt.Errorf("frontier: control: unknown operation %d", c.Op)
	}
	b := f.db.NewBatch()
	if err := f.commit(b, map[*host]struct{}{h: {}}); err != nil {
		return err
	}
	if _, active := f.hosts[c.Host]; active {
		f.schedule(h)
	}
	f.broadcast()
	return f.db.Sync()
}

// Hosts lists up to limit hosts, active or not, ordered by "queued",
// "fetched" or "errors" (failed attempts), most first, then by name. It
// reads every host record: an operator's query, not a hot path.
func (f *Frontier) Hosts(sortBy string, limit int) ([]crawl.HostInfo, error) {
	var key func(crawl.HostInfo) int
	switch sortBy {
	case "", "queued":
		key = func(h crawl.HostInfo) int { return h.Queued }
	case "fetched":
		key = func(h crawl.HostInfo) int { return h.Fetched }
	case "errors":
		key = func(h crawl.HostInfo) int { return h.Errors }
	default:
		return nil, fmt.Errorf("frontier: hosts: unknown order %q", sortBy)
	}
	f.mu.Lock()
	it, err := f.db.Scan([]byte{tagHost}, []byte{tagHost + 1})
	if err != nil {
		f.mu.Unlock()
		return nil, err
	}
	var names []string
	for ; it.Valid(); it.Next() {
		names = append(names, string(it.Key()[3:]))
	}
	err = it.Close()
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	infos := make([]crawl.HostInfo, 0, len(names))
	for _, n := range names {
		info, ok, err := f.Host(n)
		if err != nil {
			return nil, err
		}
		if ok {
			infos = append(infos, info)
		}
	}
	slices.SortFunc(infos, func(a, b crawl.HostInfo) int {
		if c := cmp.Compare(key(b), key(a)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	if limit > 0 && len(infos) > limit {
		infos = infos[:limit]
	}
	return infos, nil
}

// URL returns what the frontier knows of the URL with this canonical key
// on this host; ok is false for a URL never added.
func (f *Frontier) URL(host, key string) (info crawl.URLInfo, ok bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rec, err := f.urlView(host, key)
	if err != nil || rec.state == 0 {
		return crawl.URLInfo{}, false, err
	}
	info = crawl.URLInfo{
		Key:        key,
		Host:       host,
		Queued:     rec.state == urlQueued,
		Revisit:    rec.state == urlQueued && rec.prio == revisitBand,
		Depth:      rec.depth,
		Status:     rec.status,
		FetchedAt:  rec.fetchedAt,
		Validators: rec.valid,
		Capture:    rec.capture,
		NextVisit:  rec.nextVisit,
		Changed:    int(rec.changed),
		LastChange: rec.lastChange,
		Interval:   rec.interval,
		Importance: f.importance(rec),
		Cash:       rec.cash,
		History:    rec.history,
	}
	if rec.state == urlQueued && rec.prio != revisitBand {
		info.Band = int(rec.prio - firstBand)
	} else {
		info.Band = int(f.band(rec) - firstBand)
	}
	if rec.fresh != nil {
		p := freshness.Policy{}
		if f.re != nil {
			p = f.re.policy
		}
		p.Default()
		info.ChangeRate = p.Rate(*rec.fresh)
		info.Visits = int(rec.fresh.Visits)
		if rec.fresh.Changes > 0 {
			info.RateError = 1 / math.Sqrt(float64(rec.fresh.Changes))
		}
	}
	return info, true, nil
}

// Store is the crawl's key-value store, which the frontier owns (it closes
// it). Other adapters keep their tables in it under their own key tags
// (docs/formats.md); they must be done with it before Close.
func (f *Frontier) Store() *kv.DB { return f.db }

// urlRecord reads the stored record of one URL key, without its unsaved
// OPIC cash (see urlView). A caller that writes it back does so with
// storeURL (cash.go).
func (f *Frontier) urlRecord(host, key string) (urlRecord, error) {
	v, ok, err := f.db.Get(urlKey(host, key))
	if err != nil || !ok {
		return urlRecord{}, err
	}
	return decodeURLRecord(v)
}

// Stats returns the frontier's size.
func (f *Frontier) Stats() crawl.FrontierStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	var ready int
	for _, h := range f.ready {
		if !h.readyAt().After(now) {
			ready++
		}
	}
	return crawl.FrontierStats{
		Ready:       ready,
		Waiting:     len(f.ready) - ready,
		Blocked:     len(f.blocked),
		WaitingIP:   f.waitingIP(now),
		IPGroups:    len(f.groups),
		Queued:      int(f.counts.queued),
		InFlight:    len(f.leases),
		Hosts:       int(f.counts.hosts),
		Active:      len(f.hosts),
		Seen:        int(f.counts.seen),
		BloomFPRate: f.fp.rate(),
		Recrawl:     f.recrawlStats(now),
	}
}

func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

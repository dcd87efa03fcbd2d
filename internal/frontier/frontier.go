package frontier

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/netip"
	"path/filepath"
	"sync"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/dedup"
	"github.com/godwit-crawler/godwit/internal/freshness"
	"github.com/godwit-crawler/godwit/internal/kv"
	"github.com/godwit-crawler/godwit/internal/politeness"
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
	keepPut     bool        // putURL keeps what it writes (add.go)
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
	ipWaits int64 // hosts parked by their IP group, since Open (ipview.go)
	// resolving counts hosts handed to a Next to resolve (out of the
	// ready heap, not leased): the crawl is not exhausted meanwhile.
	resolving int
	visits    int // visits out on hosts (visit.go): the crawl is not over
	// ipVisits are the visits out counted in their hosts' IP groups,
	// each as a lease of its own (visit.go).
	ipVisits map[*lease]struct{}

	// failCommit, when set, fails every commit with it, discarding the
	// batch (tests: a store that cannot write).
	failCommit error
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
	// ipPending: counted in its group's pending starts until its request
	// is on the wire (Wrote) or it ends.
	ipPending bool
	// visiting and visitReady are the lease's shared visits (visit.go):
	// one in flight, and when the host may next be asked under the lease.
	visiting   bool
	visitReady time.Time
	// ipVisiting: a visit to another host of the lease's IP group is
	// out on the lease's IP slot (visit.go).
	ipVisiting bool
}

// counts are crawl-wide totals, persisted with every batch.
type counts struct {
	seen, queued, hosts uint64
	due                 uint64 // entries in the due-time index
	revisits            uint64 // queue entries in revisitBand (part of queued)
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
	// IPWire says that the crawler reports when each lease's request goes
	// on the wire (Wrote, crawl.WireReporter): IPDelay then runs from
	// that moment, and no lease of an address starts while another's
	// request is not yet on the wire (ipgroups.go). Without it, IPDelay
	// runs from lease starts.
	IPWire bool
	// Partial starts the frontier owning no shard: it keeps the state
	// it is given for every shard, but leases only hosts of the shards
	// SetShard makes its own, and never reports exhaustion (a cluster
	// decides that). Cluster mode; see shard.go.
	Partial bool
}

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
		ipc:          ipConfig{concurrency: max(o.IPConcurrency, 0), delay: max(o.IPDelay, 0), resolve: o.Resolve, wire: o.IPWire},
		groups:       make(map[string]*ipGroup),
		ipVisits:     make(map[*lease]struct{}),
	}
	if err := f.checkPartition(o.Partial); err != nil {
		db.Close()
		return nil, err
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

// Store is the crawl's key-value store, which the frontier owns (it closes
// it). Other adapters keep their tables in it under their own key tags
// (docs/formats.md); they must be done with it before Close.
func (f *Frontier) Store() *kv.DB { return f.db }

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

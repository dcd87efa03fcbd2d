package cluster_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/cluster"
	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/frontier"
	"github.com/godwit-crawler/godwit/internal/politeness"
	"github.com/godwit-crawler/godwit/internal/shard"
)

// memLog is a ShardLog in memory: one stream whose positions all shards
// share, like a JetStream stream holding several shards' subjects.
type memLog struct {
	mu      sync.Mutex
	seq     uint64
	shards  map[int][]entry
	lastOut map[int]uint64
	changed chan struct{}
}

type entry struct {
	seq uint64
	e   cluster.Event
}

func newMemLog() *memLog {
	return &memLog{shards: map[int][]entry{}, lastOut: map[int]uint64{}, changed: make(chan struct{})}
}

func (m *memLog) Append(_ context.Context, e cluster.Event, expect uint64) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e.Kind == cluster.KindOutcome {
		if m.lastOut[e.Shard] != expect {
			return 0, cluster.ErrFenced
		}
	}
	m.seq++
	e.Links = slices.Clone(e.Links)
	m.shards[e.Shard] = append(m.shards[e.Shard], entry{m.seq, e})
	if e.Kind == cluster.KindOutcome {
		m.lastOut[e.Shard] = m.seq
	}
	close(m.changed)
	m.changed = make(chan struct{})
	return m.seq, nil
}

func (m *memLog) Claim(ctx context.Context, p int, epoch, lastOutcome uint64) (uint64, error) {
	return m.Append(ctx, cluster.Event{Kind: cluster.KindOutcome, Shard: p, Epoch: epoch}, lastOutcome)
}

func (m *memLog) Last(_ context.Context, p int) (uint64, uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	es := m.shards[p]
	if len(es) == 0 {
		return 0, 0, nil
	}
	return es[len(es)-1].seq, m.lastOut[p], nil
}

func (m *memLog) Read(ctx context.Context, p int, from uint64, fn func(uint64, cluster.Event) error) error {
	for {
		m.mu.Lock()
		var next []entry
		for _, en := range m.shards[p] {
			if en.seq > from {
				next = append(next, en)
			}
		}
		ch := m.changed
		m.mu.Unlock()
		for _, en := range next {
			if err := fn(en.seq, en.e); err != nil {
				return err
			}
			from = en.seq
		}
		if len(next) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ch:
		}
	}
}

// web is a toy web judged from its side: page n of each host links to
// pages 2n+1 and 2n+2 of its host (below size) and to page n of the next
// host. It counts fetches per URL and catches two requests to one host at
// once.
type web struct {
	hosts []string
	size  int

	mu         sync.Mutex
	fetches    map[string]int
	busy       map[string]bool
	violations int
}

func newWeb(hosts, size int) *web {
	w := &web{size: size, fetches: map[string]int{}, busy: map[string]bool{}}
	for i := range hosts {
		w.hosts = append(w.hosts, fmt.Sprintf("h%d.test", i))
	}
	return w
}

func pageLink(host string, n int) crawl.Link {
	u := fmt.Sprintf("http://%s/p/%d", host, n)
	return crawl.Link{URL: u, Key: u, Host: host}
}

func (w *web) fetch(t crawl.Task) []crawl.Link {
	w.mu.Lock()
	if w.busy[t.Host] {
		w.violations++
	}
	w.busy[t.Host] = true
	w.fetches[t.URL]++
	w.mu.Unlock()
	time.Sleep(time.Millisecond)
	w.mu.Lock()
	w.busy[t.Host] = false
	w.mu.Unlock()
	var n int
	fmt.Sscanf(t.URL[len("http://"+t.Host+"/p/"):], "%d", &n)
	var out []crawl.Link
	for _, c := range []int{2*n + 1, 2*n + 2} {
		if c < w.size {
			out = append(out, pageLink(t.Host, c))
		}
	}
	i := slices.Index(w.hosts, t.Host)
	return append(out, pageLink(w.hosts[(i+1)%len(w.hosts)], n))
}

// fetched is how many distinct URLs were fetched, and how many times in all.
func (w *web) fetched() (distinct, total int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.fetches {
		distinct++
		total += c
	}
	return distinct, total
}

func (w *web) all() int { return len(w.hosts) * w.size }

// member is a crawler node under test: a Node over its own partial
// frontier, with workers fetching from the toy web.
type member struct {
	node     *cluster.Node
	f        *frontier.Frontier
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	inFlight atomic.Int64
}

func startMember(t *testing.T, name string, log cluster.ShardLog, w *web, workers int) *member {
	t.Helper()
	return startMemberWith(t, name, log, w, workers, nil)
}

// startMemberWith is startMember with a hook that sees each lease, before
// its fetch, and may add to its outcome.
func startMemberWith(t *testing.T, name string, log cluster.ShardLog, w *web, workers int,
	hook func(l crawl.Lease, out *crawl.Outcome)) *member {
	t.Helper()
	f, err := frontier.Open(frontier.Options{Dir: t.TempDir(), Partial: true,
		Policy: politeness.Policy{Delay: 2 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	n, err := cluster.NewNode(cluster.NodeConfig{Name: name, Shards: f, Log: log,
		EncodeOutcome: frontier.EncodeOutcome, DecodeOutcome: frontier.DecodeOutcome})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	m := &member{node: n, f: f, cancel: cancel}
	m.wg.Go(func() { n.Run(ctx) })
	for range workers {
		m.wg.Go(func() {
			for {
				l, err := n.Next(ctx)
				if err != nil {
					return
				}
				m.inFlight.Add(1)
				var out crawl.Outcome
				if hook != nil {
					hook(l, &out)
				}
				links := w.fetch(l.Task)
				if ctx.Err() != nil {
					return // killed mid-fetch: the outcome is never written
				}
				n.Add(crawl.WithLease(ctx, l), links) // as the crawler adds a page's links
				now := time.Now()
				out.Disposition, out.Requested, out.Start, out.End, out.Status = crawl.Done, true, now, now, 200
				err = n.Complete(ctx, l, out)
				m.inFlight.Add(-1)
				if err != nil && ctx.Err() == nil {
					t.Errorf("%s: Complete: %v", name, err)
					return
				}
			}
		})
	}
	return m
}

// kill stops the member as SIGKILL would: workers stop mid-fetch, nothing
// more is written, and it returns how many fetches were in flight.
func (m *member) kill() int {
	m.cancel()
	m.wg.Wait()
	m.node.Close()
	m.f.Close()
	return int(m.inFlight.Load())
}

func acquireAll(t *testing.T, n *cluster.Node, shards []int, epoch uint64) {
	t.Helper()
	for _, p := range shards {
		if err := n.Acquire(t.Context(), p, epoch); err != nil {
			t.Fatalf("Acquire(%d): %v", p, err)
		}
	}
}

func shardsOf(w *web) []int {
	var s []int
	for _, h := range w.hosts {
		if p := shard.Of(h, cluster.DefaultShards); !slices.Contains(s, p) {
			s = append(s, p)
		}
	}
	slices.Sort(s)
	return s
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestNodesCrawlTogether: two nodes, each owning half the shards, crawl
// one web through the shards' logs: every page is fetched exactly once,
// by the node owning its host, never two requests to a host at once.
func TestNodesCrawlTogether(t *testing.T) {
	w := newWeb(12, 20)
	log := newMemLog()
	a := startMember(t, "a", log, w, 3)
	b := startMember(t, "b", log, w, 3)
	defer a.kill()
	defer b.kill()
	shards := shardsOf(w)
	acquireAll(t, a.node, shards[:len(shards)/2], 1)
	acquireAll(t, b.node, shards[len(shards)/2:], 1)
	a.node.Add(t.Context(), []crawl.Link{pageLink(w.hosts[0], 0)})

	waitFor(t, "every page", func() bool { d, _ := w.fetched(); return d == w.all() })
	time.Sleep(50 * time.Millisecond) // a second fetch of some page would show now
	if d, total := w.fetched(); total != d {
		t.Errorf("%d fetches of %d pages: some fetched twice", total, d)
	}
	if w.violations > 0 {
		t.Errorf("%d times two requests to one host at once", w.violations)
	}
}

// TestOutcomeCarriesOwnLinks: a page's links to hosts of its own shard
// go in its outcome event, not in a links event of their own, and the
// crawl is the same: every page fetched once.
func TestOutcomeCarriesOwnLinks(t *testing.T) {
	w := newWeb(6, 20)
	log := newMemLog()
	a := startMember(t, "a", log, w, 3)
	defer a.kill()
	acquireAll(t, a.node, shardsOf(w), 1)
	a.node.Add(t.Context(), []crawl.Link{pageLink(w.hosts[0], 0)})
	waitFor(t, "every page", func() bool { d, _ := w.fetched(); return d == w.all() })
	if d, total := w.fetched(); total != d {
		t.Errorf("%d fetches of %d pages: some fetched twice", total, d)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	carried, inLinkEvents := 0, 0
	for p, es := range log.shards {
		for _, en := range es {
			for _, l := range en.e.Links {
				if shard.Of(l.Host, cluster.DefaultShards) != p {
					t.Errorf("shard %d's log has a link to %s", p, l.Host)
				}
			}
			if en.e.Kind == cluster.KindOutcome {
				carried += len(en.e.Links)
			} else {
				inLinkEvents += len(en.e.Links)
			}
		}
	}
	// Every page but a host's first is linked from its parent on the
	// same host: those links are carried.
	if want := len(w.hosts) * (w.size - 1); carried < want {
		t.Errorf("outcome events carry %d links, want at least the %d links between pages of one host (%d in links events)", carried, want, inLinkEvents)
	}
	t.Logf("%d links carried by outcome events, %d in links events", carried, inLinkEvents)
}

// TestNodeDeathLosesNoURL: a node killed mid-crawl loses nothing: its
// shards, taken over by the survivor from the logs alone, finish; the
// only pages fetched twice are those in flight at the kill.
func TestNodeDeathLosesNoURL(t *testing.T) {
	w := newWeb(12, 40)
	log := newMemLog()
	a := startMember(t, "a", log, w, 3)
	b := startMember(t, "b", log, w, 3)
	defer a.kill()
	shards := shardsOf(w)
	aShards, bShards := shards[:len(shards)/2], shards[len(shards)/2:]
	acquireAll(t, a.node, aShards, 1)
	acquireAll(t, b.node, bShards, 1)
	a.node.Add(t.Context(), []crawl.Link{pageLink(w.hosts[0], 0)})

	waitFor(t, "a third of the pages", func() bool { d, _ := w.fetched(); return d >= w.all()/3 })
	inFlight := b.kill()
	acquireAll(t, a.node, bShards, 2)

	waitFor(t, "every page", func() bool { d, _ := w.fetched(); return d == w.all() })
	time.Sleep(50 * time.Millisecond)
	d, total := w.fetched()
	if total-d > inFlight {
		t.Errorf("%d pages fetched twice, more than the %d in flight at the kill", total-d, inFlight)
	}
	t.Logf("%d pages, %d fetches, %d in flight at the kill", d, total, inFlight)
	if w.violations > 0 {
		t.Errorf("%d times two requests to one host at once", w.violations)
	}
}

// TestGracefulHandover: shards handed over while the crawl runs move
// with their state: nothing is fetched twice, no host sees two requests
// at once.
func TestGracefulHandover(t *testing.T) {
	w := newWeb(6, 30)
	log := newMemLog()
	a := startMember(t, "a", log, w, 2)
	b := startMember(t, "b", log, w, 2)
	defer a.kill()
	defer b.kill()
	shards := shardsOf(w)
	acquireAll(t, a.node, shards, 1)
	a.node.Add(t.Context(), []crawl.Link{pageLink(w.hosts[0], 0)})
	waitFor(t, "a quarter of the pages", func() bool { d, _ := w.fetched(); return d >= w.all()/4 })

	moved := shards[:len(shards)/2]
	for _, p := range moved {
		if err := a.node.Release(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	acquireAll(t, b.node, moved, 2)
	if got := len(a.node.Owned()); got != len(shards)-len(moved) {
		t.Errorf("a owns %d shards after the handover, want %d", got, len(shards)-len(moved))
	}

	waitFor(t, "every page", func() bool { d, _ := w.fetched(); return d == w.all() })
	time.Sleep(50 * time.Millisecond)
	if d, total := w.fetched(); total != d {
		t.Errorf("%d fetches of %d pages: some fetched twice", total, d)
	}
	if w.violations > 0 {
		t.Errorf("%d times two requests to one host at once", w.violations)
	}
}

// hostFetches is how many requests host had.
func (w *web) hostFetches(host string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for u, c := range w.fetches {
		if strings.HasPrefix(u, "http://"+host+"/") {
			n += c
		}
	}
	return n
}

// TestTrapStateTravels: the trap state a host's outcomes carry
// (crawl.HostTraps, here a count of the host's fetches, as the crawl
// core keeps its page budget) goes with the host's shard when it is
// handed over: every lease, on the old owner or the new, carries the
// count of every fetch of the host before it.
func TestTrapStateTravels(t *testing.T) {
	w := newWeb(6, 30)
	log := newMemLog()
	var mu sync.Mutex
	var wrong []string
	var moved []int
	carried := 0 // leases on b of a moved host that carried a count from a
	count := func(node string) func(crawl.Lease, *crawl.Outcome) {
		return func(l crawl.Lease, out *crawl.Outcome) {
			prev := crawl.HostTraps{}
			if l.Traps != nil {
				prev = *l.Traps
			}
			done := w.hostFetches(l.Task.Host)
			mu.Lock()
			if prev.Fetched != int64(done) {
				wrong = append(wrong, fmt.Sprintf("%s: a lease of %s carried %d fetches, the host had %d", node, l.Task.Host, prev.Fetched, done))
			}
			if node == "b" && prev.Fetched > 0 && slices.Contains(moved, shard.Of(l.Task.Host, cluster.DefaultShards)) {
				carried++
			}
			mu.Unlock()
			out.Traps = &crawl.HostTraps{Seq: prev.Seq + 1, Fetched: prev.Fetched + 1}
		}
	}
	a := startMemberWith(t, "a", log, w, 2, count("a"))
	b := startMemberWith(t, "b", log, w, 2, count("b"))
	defer a.kill()
	defer b.kill()
	shards := shardsOf(w)
	acquireAll(t, a.node, shards, 1)
	a.node.Add(t.Context(), []crawl.Link{pageLink(w.hosts[0], 0)})
	waitFor(t, "a quarter of the pages", func() bool { d, _ := w.fetched(); return d >= w.all()/4 })

	mu.Lock()
	moved = shards[:len(shards)/2]
	mu.Unlock()
	for _, p := range moved {
		if err := a.node.Release(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	acquireAll(t, b.node, moved, 2)
	waitFor(t, "every page", func() bool { d, _ := w.fetched(); return d == w.all() })

	mu.Lock()
	defer mu.Unlock()
	for i, s := range wrong {
		if i == 10 {
			break
		}
		t.Error(s)
	}
	if carried == 0 {
		t.Error("no lease on the new owner carried a count from the old one: the test moved nothing")
	}
}

// gated is a ShardLog whose readers stop delivering while it is closed:
// a node whose reader lags (paused, partitioned).
type gated struct {
	*memLog
	closed atomic.Bool
}

func (g *gated) Read(ctx context.Context, p int, from uint64, fn func(uint64, cluster.Event) error) error {
	return g.memLog.Read(ctx, p, from, func(seq uint64, e cluster.Event) error {
		for g.closed.Load() {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			time.Sleep(time.Millisecond)
		}
		return fn(seq, e)
	})
}

// TestZombieIsFenced: a node that still believes it owns a shard another
// node has claimed cannot write its outcome, whether its reader lags
// (its append is fenced) or has seen the new claim (it gives the shard up
// before writing): the URL it fetched stays queued for the new owner.
func TestZombieIsFenced(t *testing.T) {
	for _, lagging := range []bool{true, false} {
		t.Run(fmt.Sprintf("lagging=%v", lagging), func(t *testing.T) {
			mem := newMemLog()
			open := func(name string, log cluster.ShardLog) (*cluster.Node, *frontier.Frontier) {
				f, err := frontier.Open(frontier.Options{Dir: t.TempDir(), Partial: true, Policy: politeness.Policy{Delay: time.Millisecond}})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { f.Close() })
				n, err := cluster.NewNode(cluster.NodeConfig{Name: name, Shards: f, Log: log,
					EncodeOutcome: frontier.EncodeOutcome, DecodeOutcome: frontier.DecodeOutcome})
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan struct{})
				go func() { n.Run(ctx); close(done) }()
				t.Cleanup(func() { cancel(); <-done; n.Close() })
				return n, f
			}
			ctx := t.Context()
			alog := &gated{memLog: mem}
			a, _ := open("a", alog)
			b, fb := open("b", mem)
			host := "z.test"
			p := shard.Of(host, cluster.DefaultShards)
			if err := a.Acquire(ctx, p, 1); err != nil {
				t.Fatal(err)
			}
			a.Add(ctx, []crawl.Link{pageLink(host, 1), pageLink(host, 2)})
			l, err := a.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}

			alog.closed.Store(lagging)
			if err := b.Acquire(ctx, p, 2); err != nil { // a's lease expired while it was paused, say
				t.Fatal(err)
			}
			if !lagging {
				waitFor(t, "a to see b's claim", func() bool { return len(a.Owned()) == 0 })
			}
			now := time.Now()
			if err := a.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, Start: now, End: now, Status: 200}); err != nil {
				t.Fatal(err)
			}
			if got := a.Owned(); len(got) != 0 {
				t.Errorf("the zombie still owns %v", got)
			}
			info, ok, err := fb.URL(host, l.Task.Key)
			if err != nil || !ok || !info.Queued {
				t.Errorf("at the new owner, the zombie's URL is %+v (found %v, %v); want still queued", info, ok, err)
			}
			var got []string
			for range 2 {
				l, err := b.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, l.Task.Key)
				now := time.Now()
				if err := b.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, Start: now, End: now, Status: 200}); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Contains(got, l.Task.Key) {
				t.Errorf("the new owner leased %v, not the zombie's %s", got, l.Task.Key)
			}
		})
	}
}

// unclaimable is a ShardLog whose claims go unanswered while refuse is
// set: a takeover that fails after the shard's log was read.
type unclaimable struct {
	*memLog
	refuse atomic.Bool
}

func (u *unclaimable) Claim(ctx context.Context, p int, epoch, lastOutcome uint64) (uint64, error) {
	if u.refuse.Load() {
		return 0, context.DeadlineExceeded
	}
	return u.memLog.Claim(ctx, p, epoch, lastOutcome)
}

// TestFailedTakeoverLeavesNoState: a takeover that fails after reading
// part of the shard's log (its claim unanswered) leaves none of the shard
// behind: kept, its URLs would count as this node's queued work though
// another node owns the shard, and the crawl would never be found over.
// The next takeover reads the log again.
func TestFailedTakeoverLeavesNoState(t *testing.T) {
	log := &unclaimable{memLog: newMemLog()}
	const host = "h0.test"
	p := shard.Of(host, cluster.DefaultShards)
	links := []crawl.Link{pageLink(host, 0), pageLink(host, 1), pageLink(host, 2)}
	if _, err := log.Append(t.Context(), cluster.Event{Kind: cluster.KindLinks, Shard: p, Links: links}, 0); err != nil {
		t.Fatal(err)
	}
	f, err := frontier.Open(frontier.Options{Dir: t.TempDir(), Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := cluster.NewNode(cluster.NodeConfig{Name: "a", Shards: f, Log: log,
		EncodeOutcome: frontier.EncodeOutcome, DecodeOutcome: frontier.DecodeOutcome})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()

	log.refuse.Store(true)
	if err := n.Acquire(t.Context(), p, 1); err == nil {
		t.Fatal("Acquire succeeded with its claim unanswered")
	}
	if s := n.Stats(); s.Queued != 0 || s.Hosts != 0 {
		t.Errorf("after a failed takeover: %d URLs of %d hosts queued here, want none", s.Queued, s.Hosts)
	}
	if _, ok := n.Epoch(p); ok {
		t.Errorf("after a failed takeover the node holds shard %d", p)
	}

	log.refuse.Store(false)
	if err := n.Acquire(t.Context(), p, 2); err != nil {
		t.Fatal(err)
	}
	if s := n.Stats(); s.Queued != len(links) {
		t.Errorf("after the takeover: %d URLs queued, want the log's %d", s.Queued, len(links))
	}
}

// TestAddCountsNewLinks: Add reports how many of the links are new, as
// crawl.Frontier promises and the single-node frontier answers: the
// crawl's template-yield defence reads the count, and a count of 0 for
// new links cut genuine pagination in cluster mode. A link added again,
// or twice in one call, is not new.
func TestAddCountsNewLinks(t *testing.T) {
	f, err := frontier.Open(frontier.Options{Dir: t.TempDir(), Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := cluster.NewNode(cluster.NodeConfig{Name: "a", Shards: f, Log: newMemLog(),
		EncodeOutcome: frontier.EncodeOutcome, DecodeOutcome: frontier.DecodeOutcome})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	single, err := frontier.Open(frontier.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer single.Close()

	link := func(host string, page int) crawl.Link {
		u := fmt.Sprintf("http://%s/list?page=%d", host, page)
		return crawl.Link{URL: u, Key: u, Host: host, Depth: page}
	}
	for i, c := range []struct {
		links []crawl.Link
		want  int
	}{
		{[]crawl.Link{link("a.test", 1), link("a.test", 2), link("b.test", 1)}, 3},
		{[]crawl.Link{link("a.test", 2), link("a.test", 3)}, 1},
		{[]crawl.Link{link("a.test", 4), link("a.test", 4)}, 1},
		{[]crawl.Link{link("a.test", 1), link("b.test", 1)}, 0},
		{nil, 0},
	} {
		got, err := n.Add(t.Context(), c.links)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := single.Add(t.Context(), c.links)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want || ref != c.want {
			t.Errorf("call %d: cluster Add = %d, single-node Add = %d, want %d", i, got, ref, c.want)
		}
	}
}

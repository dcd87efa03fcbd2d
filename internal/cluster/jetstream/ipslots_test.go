package jetstream

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slotWeb counts the requests in flight to one address over every node,
// as the server would see them.
type slotWeb struct {
	inflight, peak atomic.Int64

	mu     sync.Mutex
	starts []slotStart // with spaced starts (slotFrontier.delay)
	wires  []slotStart // when their requests went on the wire
}

// slotStart is a start as its node recorded it.
type slotStart struct {
	node string
	at   time.Time
}

func (w *slotWeb) start() {
	n := w.inflight.Add(1)
	for {
		p := w.peak.Load()
		if n <= p || w.peak.CompareAndSwap(p, n) {
			return
		}
	}
}

// slotFrontier is a node's frontier for the tests: workers lease
// requests to one address as frontier.Frontier does, within its
// concurrency and the IPSlots' Limit, and ask for a slot (Want) when
// Limit holds them back.
type slotFrontier struct {
	key         string
	concurrency int
	slots       *IPSlots
	web         *slotWeb
	// delay spaces this node's starts, from each request's wire time,
	// and asks the IPSlots for the start hold as frontier.Frontier does
	// with Options.IPWire (IPStarts); 0: not.
	delay time.Duration
	name  string
	// lag is how long the request of the n-th start (from 0) takes to
	// go on the wire (nil: none); a negative lag: until the worker
	// stops, and then it was never sent.
	lag func(n int) time.Duration

	mu       sync.Mutex
	last     time.Time // this node's last wire time
	pending  int       // starts whose requests are not on the wire yet
	nstarts  int
	inflight int
	used     bool
	changed  chan struct{}
	done     atomic.Int64 // requests made
}

func (f *slotFrontier) broadcast() {
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *slotFrontier) IPRoom(key string) {
	f.mu.Lock()
	f.broadcast()
	f.mu.Unlock()
}

// IPWaits: the workers always want the address while it is used.
func (f *slotFrontier) IPWaits(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return key == f.key && f.used
}

func (f *slotFrontier) IPUse(key string) (int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if key != f.key {
		return 0, false
	}
	return f.inflight, f.used
}

// work runs one worker until ctx ends: each request holds its lease for
// hold.
func (f *slotFrontier) work(ctx context.Context, hold time.Duration) {
	for ctx.Err() == nil {
		f.mu.Lock()
		if f.inflight >= f.concurrency || f.inflight >= f.slots.Limit(f.key) {
			if f.inflight < f.concurrency {
				f.slots.Want(f.key)
			}
			ch := f.changed
			f.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
			}
			continue
		}
		var lag time.Duration
		if f.delay > 0 {
			now := time.Now()
			var wait time.Duration
			if f.pending > 0 {
				wait = time.Hour // until its request is on the wire
			} else if at, ok := f.slots.StartAt(f.key, now); !ok {
				f.slots.WantStart(f.key, laterOf(now, f.last.Add(f.delay)))
				wait = time.Hour // until IPRoom
			} else {
				wait = laterOf(f.last.Add(f.delay), at).Sub(now)
			}
			if wait > 0 {
				ch := f.changed
				f.mu.Unlock()
				tm := time.NewTimer(wait)
				select {
				case <-ch:
				case <-tm.C:
				case <-ctx.Done():
				}
				tm.Stop()
				continue
			}
			f.slots.Started(f.key)
			f.pending++
			if f.lag != nil {
				lag = f.lag(f.nstarts)
			}
			f.nstarts++
			f.web.mu.Lock()
			f.web.starts = append(f.web.starts, slotStart{f.name, now})
			f.web.mu.Unlock()
		}
		f.inflight++
		f.web.start()
		f.mu.Unlock()
		if f.delay > 0 {
			f.wire(ctx, lag)
		}
		select {
		case <-time.After(hold): // the request
		case <-ctx.Done():
		}
		f.mu.Lock()
		f.web.inflight.Add(-1)
		f.inflight--
		f.slots.Freed(f.key)
		f.broadcast()
		f.mu.Unlock()
		f.done.Add(1)
	}
}

// wire puts a started request on the wire after lag (< 0: never; it
// is not sent), records its wire time and tells the IPSlots, as the
// frontier does (Frontier.Wrote).
func (f *slotFrontier) wire(ctx context.Context, lag time.Duration) {
	sent := true
	if lag < 0 {
		<-ctx.Done()
		sent = false
	} else if lag > 0 {
		select {
		case <-time.After(lag):
		case <-ctx.Done():
			sent = false
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending--
	var at time.Time
	if sent {
		at = time.Now()
		f.last = at
		f.web.mu.Lock()
		f.web.wires = append(f.web.wires, slotStart{f.name, at})
		f.web.mu.Unlock()
	}
	f.slots.Wrote(f.key, at)
	f.broadcast()
}

// slotNode is a node with its IPSlots running over a slotFrontier.
type slotNode struct {
	fr     *slotFrontier
	cancel context.CancelFunc // stops the workers
	stop   context.CancelFunc // stops IPSlots.Run
	ran    chan struct{}
}

func startSlots(t *testing.T, r *running, key string, concurrency, workers int, web *slotWeb) *slotNode {
	t.Helper()
	fr := &slotFrontier{key: key, concurrency: concurrency, web: web, used: true, changed: make(chan struct{})}
	s, err := r.IPSlots(t.Context(), fr, concurrency)
	if err != nil {
		t.Fatal(err)
	}
	fr.slots = s
	sctx, stop := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { _ = s.Run(sctx); close(ran) }()
	wctx, cancel := context.WithCancel(context.Background())
	for range workers {
		go fr.work(wctx, 5*time.Millisecond)
	}
	n := &slotNode{fr: fr, cancel: cancel, stop: stop, ran: ran}
	t.Cleanup(func() { n.cancel(); n.stop(); <-n.ran })
	return n
}

// TestIPSlotsAcrossNodes: three nodes whose workers all want one
// address never have more than its concurrency in flight together, each
// gets its share, and when one dies (no slot given back) the others take
// its slots only once they expired.
func TestIPSlotsAcrossNodes(t *testing.T) {
	s := startServer(t, ServerConfig{})
	const key, concurrency = "127.0.0.2", 4
	web := &slotWeb{}
	var nodes []*slotNode
	var conns []*running
	for _, name := range []string{"a", "b", "c"} {
		r := startNode(t, connect(t, s.ClientURL()), testConfig(name))
		conns = append(conns, r)
		nodes = append(nodes, startSlots(t, r, key, concurrency, 8, web))
	}
	waitFor(t, 20*time.Second, "every node to make 40 requests", func() bool {
		for _, n := range nodes {
			if n.fr.done.Load() < 40 {
				return false
			}
		}
		return true
	})
	if p := web.peak.Load(); p > concurrency {
		t.Fatalf("%d requests in flight to the address at once over 3 nodes; its budget is %d", p, concurrency)
	}
	if p := web.peak.Load(); p < concurrency-1 {
		t.Errorf("at most %d requests in flight over 3 nodes with 24 workers: the budget of %d is not used", p, concurrency)
	}
	// Any node's view of the bucket shows who holds the address's slots.
	var view []IPSlotView
	waitFor(t, 5*time.Second, "node a's view to show all the slots, by holder", func() bool {
		view = nodes[0].fr.slots.View()
		if len(view) != 1 || view[0].Key != key {
			return false
		}
		sum := 0
		for node, n := range view[0].Holders {
			if node != "a" && node != "b" && node != "c" {
				return false
			}
			sum += n
		}
		return sum == concurrency && view[0].Here == nodes[0].fr.slots.Held(key) && view[0].Holders["a"] == view[0].Here
	})
	t.Logf("node a's view: %+v", view)

	// c dies: its connection goes first, so nothing is given back.
	dead := nodes[2]
	held := dead.fr.slots.Held(key)
	if held == 0 {
		waitFor(t, 5*time.Second, "c to hold a slot", func() bool { held = dead.fr.slots.Held(key); return held > 0 })
	}
	conns[2].nc.Close()
	died := time.Now()
	dead.cancel()
	dead.stop()
	<-dead.ran
	waitFor(t, 3*testTTL, "a and b to hold every slot", func() bool {
		return nodes[0].fr.slots.Held(key)+nodes[1].fr.slots.Held(key) == concurrency
	})
	// The server keeps c's slots a TTL after c's last write, at most a
	// tick or so before it died: not given back at once.
	if took := time.Since(died); took < testTTL/2 {
		t.Errorf("a and b held c's %d slot(s) %v after it died, before they could expire (TTL %v)", held, took, testTTL)
	}
	before := nodes[0].fr.done.Load() + nodes[1].fr.done.Load()
	waitFor(t, 10*time.Second, "a and b to go on", func() bool {
		return nodes[0].fr.done.Load()+nodes[1].fr.done.Load() > before+40
	})
	if p := web.peak.Load(); p > concurrency {
		t.Fatalf("%d requests in flight to the address at once; its budget is %d", p, concurrency)
	}
	for i, n := range nodes {
		st := n.fr.slots.Stats()
		t.Logf("node %d: %d requests, %+v", i, n.fr.done.Load(), st)
	}
}

// TestIPSlotsOneNodeNoRoundTrip: an address only one node uses costs
// no round trip per request: the node takes its slots once and keeps
// them; and when NATS stops answering it stops counting them within the
// margin (no request without confirmation).
func TestIPSlotsOneNodeNoRoundTrip(t *testing.T) {
	s := startServer(t, ServerConfig{})
	p := newProxy(t, s.Addr())
	const key, concurrency = "10.0.0.1", 4
	web := &slotWeb{}
	r := startNode(t, connect(t, p.url()), testConfig("a"))
	n := startSlots(t, r, key, concurrency, 8, web)
	waitFor(t, 20*time.Second, "400 requests", func() bool { return n.fr.done.Load() >= 400 })
	st := n.fr.slots.Stats()
	if st.Takes > concurrency || st.Gives != 0 || st.WantPuts != 0 {
		t.Errorf("one node alone on the address: %+v for %d requests; want at most %d takes and nothing else but renewals", st, n.fr.done.Load(), concurrency)
	}
	if web.peak.Load() != concurrency {
		t.Errorf("peak %d requests in flight, want %d", web.peak.Load(), concurrency)
	}
	p.freeze()
	froze := time.Now()
	waitFor(t, 2*testTTL, "the slots to stop counting", func() bool { return n.fr.slots.Limit(key) == 0 })
	if took := time.Since(froze); took > testTTL*2/3+500*time.Millisecond {
		t.Errorf("slots counted %v after NATS stopped answering; the margin is %v", took, testTTL*2/3)
	}
	p.thaw()
}

// TestIPSlotsMoreNodesThanSlots: with three nodes wanting an address
// whose budget is 2, the budget holds, and the node left without a
// share gets the slots once the others have no host on the address.
func TestIPSlotsMoreNodesThanSlots(t *testing.T) {
	s := startServer(t, ServerConfig{})
	const key, concurrency = "127.0.0.3", 2
	web := &slotWeb{}
	var nodes []*slotNode
	for _, name := range []string{"a", "b", "c"} {
		r := startNode(t, connect(t, s.ClientURL()), testConfig(name))
		nodes = append(nodes, startSlots(t, r, key, concurrency, 4, web))
	}
	waitFor(t, 20*time.Second, "200 requests", func() bool {
		var n int64
		for _, x := range nodes {
			n += x.fr.done.Load()
		}
		return n >= 200
	})
	// Every node but one is done with the address.
	var last *slotNode
	for _, x := range nodes {
		if last == nil && x.fr.slots.Held(key) == 0 {
			last = x
			continue
		}
		x.cancel()
		x.fr.mu.Lock()
		x.fr.used = false
		x.fr.mu.Unlock()
	}
	if last == nil {
		t.Fatalf("three nodes each hold a slot of a budget of %d", concurrency)
	}
	before := last.fr.done.Load()
	waitFor(t, 4*testTTL, "the node left out to go on", func() bool { return last.fr.done.Load() >= before+40 })
	waitFor(t, 4*testTTL, "it to hold both slots", func() bool { return last.fr.slots.Held(key) == concurrency })
	if p := web.peak.Load(); p > concurrency {
		t.Fatalf("%d requests in flight to the address at once; its budget is %d", p, concurrency)
	}
}

// TestAddrKey: the address part of a slot key spells the frontier's
// group key back.
func TestAddrKey(t *testing.T) {
	for _, key := range []string{"127.0.0.2", "10.1.2.3", "2001:db8:1:2::/64", "::/64"} {
		if got := addrKey(addrPart(key)); got != key {
			t.Errorf("addrKey(addrPart(%q)) = %q", key, got)
		}
	}
}

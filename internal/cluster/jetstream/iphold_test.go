package jetstream

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// startSpaced is startSlots with each node's starts spaced delay from
// its requests' wire times, as the frontier spaces them (IPWire), and,
// with spread, across nodes by the start hold (SpaceStarts). lag says
// how long each request takes to go on the wire (nil: at once).
func startSpaced(t testing.TB, r *running, name, key string, delay time.Duration, spread bool, web *slotWeb, lag func(int) time.Duration) *slotNode {
	t.Helper()
	fr := &slotFrontier{key: key, concurrency: 4, web: web, used: true, changed: make(chan struct{}), delay: delay, name: name, lag: lag}
	s, err := r.IPSlots(t.Context(), fr, 4)
	if err != nil {
		t.Fatal(err)
	}
	if spread {
		s.SpaceStarts(delay)
	}
	fr.slots = s
	sctx, stop := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { _ = s.Run(sctx); close(ran) }()
	wctx, cancel := context.WithCancel(context.Background())
	for range 4 {
		go fr.work(wctx, 5*time.Millisecond)
	}
	n := &slotNode{fr: fr, cancel: cancel, stop: stop, ran: ran}
	t.Cleanup(func() { n.cancel(); n.stop(); <-n.ran })
	return n
}

// tlsLag is a request's way to the wire: every fourth opens a
// connection (12 ms, longer than a start token's window was), the others
// reuse one.
func tlsLag(n int) time.Duration {
	if n%4 == 1 {
		return 12 * time.Millisecond
	}
	return 200 * time.Microsecond
}

// closeWires lists the pairs of consecutive wire times to the address,
// over every node, less than delay apart (wall clock: the hold hands on
// wall-clock times), and the smallest gap.
func closeWires(web *slotWeb, delay time.Duration) (close []string, minGap time.Duration, total int) {
	web.mu.Lock()
	ws := slices.Clone(web.wires)
	web.mu.Unlock()
	for i := range ws {
		ws[i].at = ws[i].at.Round(0)
	}
	slices.SortFunc(ws, func(a, b slotStart) int { return a.at.Compare(b.at) })
	minGap = time.Hour
	for i := 1; i < len(ws); i++ {
		g := ws[i].at.Sub(ws[i-1].at)
		minGap = min(minGap, g)
		if g < delay {
			close = append(close, fmt.Sprintf("%s then %s %v apart", ws[i-1].node, ws[i].node, g))
		}
	}
	return close, minGap, len(ws)
}

// holdTrips sums the nodes' start-hold round trips and starts.
func holdTrips(t *testing.T, nodes []*slotNode) (trips, starts int64) {
	for i, n := range nodes {
		st := n.fr.slots.Stats()
		trips += st.HoldTrips()
		starts += st.Starts
		t.Logf("node %d: %d requests, %+v", i, n.fr.done.Load(), st)
		if st.StartsUnheld != 0 {
			t.Errorf("node %d started %d requests without the hold", i, st.StartsUnheld)
		}
	}
	return trips, starts
}

// TestIPHoldAcrossNodes: three nodes whose workers all want one address,
// each request going on the wire up to 12 ms after its start, put their
// requests on the wire at least the IP delay apart over all of them,
// with no tolerance, as the nodes recorded their wire times (one clock:
// the test's); and each node gets starts. (Start tokens failed this:
// a request on the wire after its token's window could come within the
// delay of another node's next start.)
func TestIPHoldAcrossNodes(t *testing.T) {
	s := startServer(t, ServerConfig{})
	const key, delay = "127.0.0.4", 20 * time.Millisecond
	web := &slotWeb{}
	var nodes []*slotNode
	for _, name := range []string{"a", "b", "c"} {
		r := startNode(t, connect(t, s.ClientURL()), testConfig(name))
		nodes = append(nodes, startSpaced(t, r, name, key, delay, true, web, tlsLag))
	}
	began := time.Now()
	waitFor(t, 30*time.Second, "every node to make 12 requests", func() bool {
		for _, n := range nodes {
			if n.fr.done.Load() < 12 {
				return false
			}
		}
		return true
	})
	took := time.Since(began)
	// Any node's view shows who holds the address's start hold.
	waitFor(t, 5*time.Second, "node a's view to show the start hold's holder", func() bool {
		v := nodes[0].fr.slots.View()
		return len(v) == 1 && v[0].Key == key && (v[0].Starter == "a" || v[0].Starter == "b" || v[0].Starter == "c")
	})
	for _, n := range nodes {
		n.cancel()
	}
	close, minGap, total := closeWires(web, delay)
	if len(close) > 0 {
		t.Errorf("%d of %d requests on the wire within %v of the one before over 3 nodes (smallest gap %v): %v", len(close), total, delay, minGap, close)
	}
	trips, starts := holdTrips(t, nodes)
	t.Logf("%d requests on the wire in %v, smallest gap %v; %.2f hold round trips per start", total, took.Round(time.Millisecond), minGap, float64(trips)/float64(max(starts, 1)))
}

// TestIPHoldOneNodeNoRoundTrip: an address only one node uses keeps the
// node's own spacing and costs one round trip in all (taking the hold),
// none per start.
func TestIPHoldOneNodeNoRoundTrip(t *testing.T) {
	s := startServer(t, ServerConfig{})
	const key, delay = "10.0.0.5", 5 * time.Millisecond
	web := &slotWeb{}
	n := startSpaced(t, startNode(t, connect(t, s.ClientURL()), testConfig("a")), "a", key, delay, true, web, tlsLag)
	waitFor(t, 20*time.Second, "60 requests", func() bool { return n.fr.done.Load() >= 60 })
	n.cancel()
	st := n.fr.slots.Stats()
	if st.HoldTrips() > 1 || st.Starts < 60 {
		t.Errorf("one node alone on the address: %d hold round trips for %d starts, want 1 (%+v)", st.HoldTrips(), st.Starts, st)
	}
	if close, minGap, total := closeWires(web, delay); len(close) > 0 {
		t.Errorf("%d of %d requests on the wire within %v of the one before (smallest gap %v)", len(close), total, delay, minGap)
	}
}

// TestIPHoldTwoNodesOneTripPerStart: two nodes that alternate on an
// address pay about one round trip per start (the hand-over), and none
// while one of them is alone on it.
func TestIPHoldTwoNodesOneTripPerStart(t *testing.T) {
	s := startServer(t, ServerConfig{})
	const key, delay = "10.0.0.7", 10 * time.Millisecond
	web := &slotWeb{}
	var nodes []*slotNode
	for _, name := range []string{"a", "b"} {
		r := startNode(t, connect(t, s.ClientURL()), testConfig(name))
		nodes = append(nodes, startSpaced(t, r, name, key, delay, true, web, nil))
	}
	waitFor(t, 20*time.Second, "100 requests", func() bool { return nodes[0].fr.done.Load()+nodes[1].fr.done.Load() >= 100 })
	for _, n := range nodes {
		n.cancel()
	}
	trips, starts := holdTrips(t, nodes)
	perStart := float64(trips) / float64(max(starts, 1))
	t.Logf("%d starts, %.2f hold round trips per start", starts, perStart)
	if perStart > 1.5 {
		t.Errorf("%.2f hold round trips per start with two nodes alternating, want about 1", perStart)
	}
	if close, minGap, total := closeWires(web, delay); len(close) > 0 {
		t.Errorf("%d of %d requests on the wire within %v of the one before (smallest gap %v): %v", len(close), total, delay, minGap, close)
	}
}

// TestIPHoldHolderDies: a node that dies holding an address (its request
// not yet on the wire, its connection gone) blocks the others only until
// its record expires: they start again within the TTL and a second of
// its last renewal, and every request is still on the wire at least the
// IP delay after the one before.
func TestIPHoldHolderDies(t *testing.T) {
	s := startServer(t, ServerConfig{})
	const key, delay = "127.0.0.5", 20 * time.Millisecond
	web := &slotWeb{}
	stall := make(chan struct{})
	var nodes []*slotNode
	var conns []*running
	for _, name := range []string{"a", "b", "c"} {
		lag := tlsLag
		if name == "c" {
			// c's 6th request never goes on the wire: c holds the
			// address until it dies.
			lag = func(n int) time.Duration {
				if n == 5 {
					close(stall)
					return -1
				}
				return tlsLag(n)
			}
		}
		r := startNode(t, connect(t, s.ClientURL()), testConfig(name))
		conns = append(conns, r)
		nodes = append(nodes, startSpaced(t, r, name, key, delay, true, web, lag))
	}
	select {
	case <-stall:
	case <-time.After(30 * time.Second):
		t.Fatal("c never made its 6th start")
	}
	// The others queue for the hold c keeps (as their slots allow);
	// c dies holding it.
	waitFor(t, 10*time.Second, "a or b to queue behind c", func() bool {
		sl := nodes[0].fr.slots
		sl.mu.Lock()
		defer sl.mu.Unlock()
		a := sl.addrs[addrPart(key)]
		return a != nil && a.rec.Holder == "c" && len(a.rec.Queue) > 0
	})
	dead := nodes[2]
	conns[2].nc.Close()
	died := time.Now()
	dead.cancel()
	dead.stop()
	<-dead.ran
	before := nodes[0].fr.done.Load() + nodes[1].fr.done.Load()
	waitFor(t, 3*testTTL, "a or b to start again", func() bool {
		return nodes[0].fr.done.Load()+nodes[1].fr.done.Load() > before
	})
	took := time.Since(died)
	// c's last write was at most a tick before it died; its record
	// expires TTL after it (the queue's writes keep that TTL, rounded
	// up to a second), and the server's expiry and the watch take a
	// moment more.
	if bound := testTTL + 2*time.Second; took > bound {
		t.Errorf("a and b started again %v after c died holding the address; the bound is %v", took, bound)
	}
	waitFor(t, 10*time.Second, "a and b to go on", func() bool {
		return nodes[0].fr.done.Load()+nodes[1].fr.done.Load() > before+20
	})
	for _, n := range nodes[:2] {
		n.cancel()
	}
	close, minGap, total := closeWires(web, delay)
	if len(close) > 0 {
		t.Errorf("%d of %d requests on the wire within %v of the one before (smallest gap %v): %v", len(close), total, delay, minGap, close)
	}
	t.Logf("a and b started again %v after c died holding the address (TTL %v)", took.Round(time.Millisecond), testTTL)
	holdTrips(t, nodes[:2])
}

// TestIPHoldStaleHolder: a holder cut off from NATS (its connection
// frozen, not closed) stops starting within the margin, the others take
// the address once its record expired, and when it comes back it does
// not start on its old hold: it queues like any node. Every request is
// on the wire at least the IP delay after the one before throughout.
func TestIPHoldStaleHolder(t *testing.T) {
	s := startServer(t, ServerConfig{})
	p := newProxy(t, s.Addr())
	const key, delay = "127.0.0.6", 20 * time.Millisecond
	web := &slotWeb{}
	stale := startSpaced(t, startNode(t, connect(t, p.url()), testConfig("a")), "a", key, delay, true, web, tlsLag)
	waitFor(t, 10*time.Second, "a to make 10 requests alone", func() bool { return stale.fr.done.Load() >= 10 })
	p.freeze()
	froze := time.Now()
	var others []*slotNode
	for _, name := range []string{"b", "c"} {
		others = append(others, startSpaced(t, startNode(t, connect(t, s.ClientURL()), testConfig(name)), name, key, delay, true, web, tlsLag))
	}
	waitFor(t, 3*testTTL, "b and c to start", func() bool { return others[0].fr.done.Load()+others[1].fr.done.Load() > 0 })
	if took := time.Since(froze); took < testTTL/3 {
		t.Errorf("b and c started %v after a, holding the address, was cut off: before its hold could lapse", took)
	}
	// a made no start from the margin after it was cut off on.
	margin := testTTL * 2 / 3
	web.mu.Lock()
	for _, st := range web.starts {
		if st.node == "a" && st.at.Sub(froze) > margin {
			t.Errorf("a started a request %v after it was cut off (margin %v)", st.at.Sub(froze), margin)
		}
	}
	web.mu.Unlock()
	p.thaw()
	back := stale.fr.done.Load()
	waitFor(t, 3*testTTL, "a to start again, sharing the address", func() bool { return stale.fr.done.Load() > back+5 })
	for _, n := range append(others, stale) {
		n.cancel()
	}
	close, minGap, total := closeWires(web, delay)
	if len(close) > 0 {
		t.Errorf("%d of %d requests on the wire within %v of the one before (smallest gap %v): %v", len(close), total, delay, minGap, close)
	}
	holdTrips(t, append(others, stale))
}

// BenchmarkIPHoldAlternating measures the start hold with two nodes
// that both always want one address, 1 ms apart: its round trips per
// start (trips/start: about 1, the hand-over) and the starts per second
// it allows (each start waits for the previous request's wire time + 1
// ms, and for the hand-over).
func BenchmarkIPHoldAlternating(b *testing.B) {
	s := startServer(b, ServerConfig{})
	const key, delay = "10.0.0.8", time.Millisecond
	web := &slotWeb{}
	var nodes []*slotNode
	for _, name := range []string{"a", "b"} {
		r := startNode(b, connect(b, s.ClientURL()), testConfig(name))
		nodes = append(nodes, startSpaced(b, r, name, key, delay, true, web, nil))
	}
	count := func() int64 { return nodes[0].fr.slots.Stats().Starts + nodes[1].fr.slots.Stats().Starts }
	for count() < 20 { // both nodes running
		time.Sleep(time.Millisecond)
	}
	st0 := []IPSlotStats{nodes[0].fr.slots.Stats(), nodes[1].fr.slots.Stats()}
	from := count()
	b.ResetTimer()
	began := time.Now()
	for count() < from+int64(b.N) {
		time.Sleep(100 * time.Microsecond)
	}
	took := time.Since(began)
	b.StopTimer()
	var trips, starts int64
	for i, n := range nodes {
		st := n.fr.slots.Stats()
		trips += st.HoldTrips() - st0[i].HoldTrips()
		starts += st.Starts - st0[i].Starts
		n.cancel()
	}
	b.ReportMetric(float64(trips)/float64(max(starts, 1)), "trips/start")
	b.ReportMetric(float64(starts)/took.Seconds(), "starts/s")
}

// TestIPHoldSlowWire: a holder whose request takes longer to go on the
// wire than the record's TTL (a slow handshake) keeps the hold, renewed,
// until it is on the wire: the node queued behind it starts only after,
// at least the IP delay after it.
func TestIPHoldSlowWire(t *testing.T) {
	s := startServer(t, ServerConfig{})
	const key, delay = "127.0.0.7", 20 * time.Millisecond
	web := &slotWeb{}
	slow := make(chan struct{})
	var nodes []*slotNode
	for _, name := range []string{"a", "b"} {
		lag := tlsLag
		if name == "b" {
			lag = func(n int) time.Duration {
				if n == 3 {
					close(slow)
					return 2 * testTTL
				}
				return tlsLag(n)
			}
		}
		r := startNode(t, connect(t, s.ClientURL()), testConfig(name))
		nodes = append(nodes, startSpaced(t, r, name, key, delay, true, web, lag))
	}
	select {
	case <-slow:
	case <-time.After(30 * time.Second):
		t.Fatal("b never made its 4th start")
	}
	began := time.Now()
	waitFor(t, 5*testTTL, "the slow request to go on the wire and a to go on", func() bool {
		return time.Since(began) > 2*testTTL && nodes[0].fr.done.Load() > 20
	})
	for _, n := range nodes {
		n.cancel()
	}
	close, minGap, total := closeWires(web, delay)
	if len(close) > 0 {
		t.Errorf("%d of %d requests on the wire within %v of the one before (smallest gap %v): %v", len(close), total, delay, minGap, close)
	}
	holdTrips(t, nodes)
}

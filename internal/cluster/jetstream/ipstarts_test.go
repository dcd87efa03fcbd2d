package jetstream

import (
	"context"
	"slices"
	"testing"
	"time"
)

// startSpaced is startSlots with starts spaced delay apart: each node's
// own, and across nodes by start tokens when spread (SpaceStarts).
func startSpaced(t *testing.T, r *running, name, key string, delay time.Duration, spread bool, web *slotWeb) *slotNode {
	t.Helper()
	fr := &slotFrontier{key: key, concurrency: 4, web: web, used: true, changed: make(chan struct{}), delay: delay, name: name}
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

// closeStarts counts the starts within delay of the one before, over
// every node, and the smallest gap.
func closeStarts(web *slotWeb, delay time.Duration) (n int, minGap time.Duration, total int) {
	web.mu.Lock()
	ss := slices.Clone(web.starts)
	web.mu.Unlock()
	slices.SortFunc(ss, func(a, b slotStart) int { return a.at.Compare(b.at) })
	minGap = time.Hour
	for i := 1; i < len(ss); i++ {
		g := ss[i].at.Sub(ss[i-1].at)
		minGap = min(minGap, g)
		if g < delay {
			n++
		}
	}
	return n, minGap, len(ss)
}

// TestIPStartsAcrossNodes: three nodes whose workers all want one
// address start to it at least the IP delay apart over all of them, as
// the nodes recorded their starts (one clock: the test's), and each node
// gets starts.
func TestIPStartsAcrossNodes(t *testing.T) {
	s := startServer(t, ServerConfig{})
	const key, delay = "127.0.0.4", 20 * time.Millisecond
	web := &slotWeb{}
	var nodes []*slotNode
	for _, name := range []string{"a", "b", "c"} {
		r := startNode(t, connect(t, s.ClientURL()), testConfig(name))
		nodes = append(nodes, startSpaced(t, r, name, key, delay, true, web))
	}
	began := time.Now()
	waitFor(t, 20*time.Second, "every node to make 10 requests", func() bool {
		for _, n := range nodes {
			if n.fr.done.Load() < 10 {
				return false
			}
		}
		return true
	})
	took := time.Since(began)
	for _, n := range nodes {
		n.cancel()
	}
	close, minGap, total := closeStarts(web, delay)
	if close > 0 {
		t.Errorf("%d of %d starts to the address within %v of another's (smallest gap %v) over 3 nodes", close, total, delay, minGap)
	}
	var reserves, used int64
	for i, n := range nodes {
		st := n.fr.slots.Stats()
		reserves += st.Reserves
		used += st.TokensUsed
		t.Logf("node %d: %d requests, %+v", i, n.fr.done.Load(), st)
	}
	t.Logf("%d starts in %v, smallest gap %v; %.2f reservation round trips per start", total, took.Round(time.Millisecond), minGap, float64(reserves)/float64(max(used, 1)))
}

// TestIPStartsOneNodeNoRoundTrip: an address only one node uses keeps
// the node's own spacing and reserves no start token.
func TestIPStartsOneNodeNoRoundTrip(t *testing.T) {
	s := startServer(t, ServerConfig{})
	const key, delay = "10.0.0.5", 5 * time.Millisecond
	web := &slotWeb{}
	n := startSpaced(t, startNode(t, connect(t, s.ClientURL()), testConfig("a")), "a", key, delay, true, web)
	waitFor(t, 20*time.Second, "60 requests", func() bool { return n.fr.done.Load() >= 60 })
	n.cancel()
	if st := n.fr.slots.Stats(); st.Reserves != 0 || st.TokensUsed != 0 {
		t.Errorf("one node alone on the address reserved start tokens: %+v", st)
	}
	if close, minGap, total := closeStarts(web, delay); close > 0 {
		t.Errorf("%d of %d starts within %v of the one before (smallest gap %v)", close, total, delay, minGap)
	}
}

// TestIPStartsWireLate: a start that used a token and whose request went
// on the wire after the token's window ended is counted (WireLate); one
// on the wire within it, one that sent nothing, and a start without a
// token are not.
func TestIPStartsWireLate(t *testing.T) {
	s := startServer(t, ServerConfig{})
	r := startNode(t, connect(t, s.ClientURL()), testConfig("a"))
	const key = "10.0.0.6"
	fr := &slotFrontier{key: key, concurrency: 4, web: &slotWeb{}, used: true, changed: make(chan struct{}), delay: 20 * time.Millisecond, name: "a"}
	slots, err := r.IPSlots(t.Context(), fr, 4)
	if err != nil {
		t.Fatal(err)
	}
	slots.SpaceStarts(20 * time.Millisecond)
	at := time.Now()
	start := func(wire time.Time) {
		slots.mu.Lock()
		a := slots.addr(addrPart(key))
		a.tokAt, a.tokUntil = at, at.Add(slots.valid)
		slots.mu.Unlock()
		slots.Started(key)
		slots.Wrote(key, wire)
	}
	start(at.Add(time.Millisecond))  // within the window
	start(time.Time{})               // no request
	start(at.Add(slots.valid + 1e6)) // after the window: late
	slots.Started(key)               // no token held
	slots.Wrote(key, at.Add(time.Hour))
	if st := slots.Stats(); st.WireLate != 1 || st.TokensUsed != 3 {
		t.Errorf("WireLate %d of %d tokens used, want 1 of 3", st.WireLate, st.TokensUsed)
	}
}

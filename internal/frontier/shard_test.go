package frontier

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

// event is one entry of a shard's log, as cluster mode writes it: a
// link batch, or an outcome encoded by EncodeOutcome.
type event struct {
	links   []crawl.Link
	outcome []byte
}

// logged wraps a frontier and writes every change to it into per-shard
// logs, the way a cluster node publishes them.
type logged struct {
	f    *Frontier
	logs map[uint16][]event
}

func (l *logged) add(t *testing.T, links []crawl.Link) {
	t.Helper()
	byShard := map[uint16][]crawl.Link{}
	for _, k := range links {
		p := ShardOf(k.Host)
		byShard[p] = append(byShard[p], k)
	}
	for p, ls := range byShard {
		l.logs[p] = append(l.logs[p], event{links: ls})
	}
	if _, err := l.f.Add(t.Context(), links); err != nil {
		t.Fatal(err)
	}
}

func (l *logged) complete(t *testing.T, ls crawl.Lease, out crawl.Outcome) {
	t.Helper()
	p := ShardOf(ls.Task.Host)
	l.logs[p] = append(l.logs[p], event{outcome: EncodeOutcome(ls.Task, out)})
	if err := l.f.Complete(t.Context(), ls, out); err != nil {
		t.Fatal(err)
	}
}

// replay applies every shard's log to f, each event at its position.
func replay(t *testing.T, f *Frontier, logs map[uint16][]event) {
	t.Helper()
	ctx := t.Context()
	for p, evs := range logs {
		for i, ev := range evs {
			m := crawl.Position{Shard: p, Seq: uint64(i + 1)}
			if ev.outcome == nil {
				if _, err := f.AddAt(ctx, ev.links, m); err != nil {
					t.Fatalf("AddAt(%v): %v", m, err)
				}
				continue
			}
			task, out, err := DecodeOutcome(ev.outcome)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.ApplyOutcome(ctx, task, out, m); err != nil {
				t.Fatalf("ApplyOutcome(%v): %v", m, err)
			}
		}
	}
}

// toyWeb links page n of each host to pages 2n+1 and 2n+2 (below size)
// and page n of the next host.
func toyLinks(hosts []string, host string, n, size int) []crawl.Link {
	var out []crawl.Link
	for _, c := range []int{2*n + 1, 2*n + 2} {
		if c < size {
			l := link(host, c)
			l.Via = fmt.Sprintf("http://%s/p/%d", host, n)
			out = append(out, l)
		}
	}
	i := slices.Index(hosts, host)
	out = append(out, link(hosts[(i+1)%len(hosts)], n))
	return out
}

// crawlSome runs a crawl of the toy web on l for steps leases: every
// fourth first attempt is retried, the rest archived. It leaves the
// leases of the last step out (a node killed mid-fetch) and returns
// them.
func crawlSome(t *testing.T, l *logged, hosts []string, size, steps int) []crawl.Lease {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	var out []crawl.Lease
	for i := 0; i < steps; i++ {
		ls, err := l.f.Next(ctx)
		if errors.Is(err, crawl.ErrExhausted) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		if i == steps-1 {
			return append(out, ls)
		}
		var n int
		fmt.Sscanf(ls.Task.URL[len("http://"+ls.Task.Host+"/p/"):], "%d", &n)
		time.Sleep(5 * time.Millisecond) // the fetch, on synctest's clock
		now := time.Now()
		o := crawl.Outcome{Disposition: crawl.Done, Requested: true, Start: now.Add(-5 * time.Millisecond),
			FirstByte: now.Add(-2 * time.Millisecond), End: now, Status: 200,
			Validators: crawl.Validators{ETag: fmt.Sprintf(`"%d"`, i)},
			Capture:    &crawl.Capture{File: "a.warc.gz", Offset: int64(i) * 100, Length: 100, RecordID: fmt.Sprint(i), Date: now},
			Content:    uint64(i)}
		if n%4 == 1 && ls.Task.Attempt == 0 {
			o = crawl.Outcome{Disposition: crawl.Retry, Requested: true, Start: now.Add(-5 * time.Millisecond),
				End: now, Class: crawl.ClassTransient, Reason: "timeout", Health: politeness.Transient}
		}
		if o.Disposition == crawl.Done {
			l.add(t, toyLinks(hosts, ls.Task.Host, n, size))
		}
		l.complete(t, ls, o)
	}
	return out
}

// state is what the frontier knows of every URL and host of the toy web,
// for comparing two frontiers.
func state(t *testing.T, f *Frontier, hosts []string, size int) map[string]any {
	t.Helper()
	s := map[string]any{}
	for _, h := range hosts {
		if info, ok, err := f.Host(h); err != nil {
			t.Fatal(err)
		} else if ok {
			info.Leased = false // a lease is a process's, not the shard's
			s[h] = info
		}
		for n := range size {
			l := link(h, n)
			info, ok, err := f.URL(h, l.Key)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				s[l.Key] = info
			}
		}
	}
	return s
}

func diff(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	for k, w := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: %s missing", what, k)
		} else if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: %s =\n %+v\nwant\n %+v", what, k, g, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s should not be there", what, k)
		}
	}
}

func openPartial(t *testing.T) *Frontier {
	t.Helper()
	f, err := Open(Options{Dir: t.TempDir(), Policy: adaptivePolicy(), Partial: true, Rand: func() float64 { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestReplayBuildsTheSameState: applying the shard logs of a crawl, with
// no lease (the outcomes of a node that died), gives another frontier the
// crawl's state: every URL's fate, record and every host's politeness
// clock. Applying the logs again changes nothing.
func TestReplayBuildsTheSameState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hosts := []string{"a.test", "b.test", "c.test", "d.test", "e.test"}
		const size = 24
		a := &logged{f: openAt(t, t.TempDir(), adaptivePolicy()), logs: map[uint16][]event{}}
		defer a.f.Close()
		a.add(t, []crawl.Link{link(hosts[0], 0)})
		inFlight := crawlSome(t, a, hosts, size, 60)
		if len(inFlight) != 1 {
			t.Fatalf("the crawl ended early: %d leases out", len(inFlight))
		}

		b := openPartial(t)
		replay(t, b, a.logs)
		want := state(t, a.f, hosts, size)
		// A lease out reserves its host in the store of the node that
		// holds it (see lease), not in the log: the replay knows the ready
		// time the host had before.
		busy := inFlight[0].Task.Host
		w := want[busy].(crawl.HostInfo)
		if got, _, _ := b.Host(busy); !got.NextReady.Before(w.NextReady) {
			t.Errorf("replayed ready time of the leased host %v, want before the lease's reservation %v", got.NextReady, w.NextReady)
		} else {
			w.NextReady = got.NextReady
			want[busy] = w
		}
		diff(t, "replayed", state(t, b, hosts, size), want)
		as, bs := a.f.Stats(), b.Stats()
		if as.Seen != bs.Seen || as.Queued != bs.Queued || as.Hosts != bs.Hosts {
			t.Errorf("Stats: replayed %+v, crawled %+v", bs, as)
		}

		replay(t, b, a.logs) // delivered twice: every event is at or before its shard's position
		diff(t, "replayed twice", state(t, b, hosts, size), want)
		if bs2 := b.Stats(); bs2.Seen != as.Seen || bs2.Queued != as.Queued {
			t.Errorf("Stats after a second replay: %+v, want %+v", bs2, as)
		}
		for p, evs := range a.logs {
			if got, err := b.Applied(p); err != nil || got != uint64(len(evs)) {
				t.Errorf("Applied(%d) = %d, %v; want %d", p, got, err, len(evs))
			}
		}
	})
}

// TestOwnLeaseEndsThroughTheLog: a node's own outcome, coming back
// through its shard's log, ends the lease it holds (the host gets its
// next lease), and Complete of that lease is then a no-op.
func TestOwnLeaseEndsThroughTheLog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openPartial(t)
		ctx := t.Context()
		p := ShardOf("a.test")
		if _, err := f.AddAt(ctx, []crawl.Link{link("a.test", 1), link("a.test", 2)}, crawl.Position{Shard: p, Seq: 1}); err != nil {
			t.Fatal(err)
		}
		if err := f.SetShard(p, true); err != nil {
			t.Fatal(err)
		}
		l := mustNext(t, f)
		out := crawl.Outcome{Disposition: crawl.Done, Requested: true, Start: time.Now(), End: time.Now(), Status: 200}
		task, dec, err := DecodeOutcome(EncodeOutcome(l.Task, out))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.ApplyOutcome(ctx, task, dec, crawl.Position{Shard: p, Seq: 2}); err != nil {
			t.Fatal(err)
		}
		if s := f.Stats(); s.InFlight != 0 || s.Queued != 1 {
			t.Fatalf("after the outcome: %+v, want no lease out and 1 queued", s)
		}
		if err := f.Complete(ctx, l, out); err != nil {
			t.Fatal(err)
		}
		if l2 := mustNext(t, f); l2.Task.Key == l.Task.Key {
			t.Fatalf("leased %s again", l.Task.Key)
		}
		if f.Stats().Queued != 1 {
			t.Errorf("Complete after the log's outcome changed the queue: %+v", f.Stats())
		}
	})
}

// TestPartialLeasesOwnedShardsOnly: a partial frontier leases the hosts
// of the shards it owns and no others, waits rather than reporting
// exhaustion, stops leasing a released shard at once, and forgets a
// dropped one.
func TestPartialLeasesOwnedShardsOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openPartial(t)
		ctx := t.Context()
		a, b := "a.test", "b.test"
		pa, pb := ShardOf(a), ShardOf(b)
		if pa == pb {
			t.Fatal("pick hosts in different shards")
		}
		f.AddAt(ctx, []crawl.Link{link(a, 1), link(a, 2), link(a, 3)}, crawl.Position{Shard: pa, Seq: 1})
		f.AddAt(ctx, []crawl.Link{link(b, 1)}, crawl.Position{Shard: pb, Seq: 1})

		short, cancel := context.WithTimeout(ctx, time.Minute)
		if l, err := f.Next(short); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Next owning no shard = %+v, %v; want to wait", l, err)
		}
		cancel()
		f.SetShard(pa, true)
		l := mustNext(t, f)
		if l.Task.Host != a {
			t.Fatalf("leased %s, want %s", l.Task.Host, a)
		}
		f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, Start: time.Now(), End: time.Now(), Status: 200})
		f.SetShard(pa, false)
		short, cancel = context.WithTimeout(ctx, time.Minute)
		if l, err := f.Next(short); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Next after releasing the shard = %+v, %v; want to wait", l, err)
		}
		cancel()
		if f.Owns(pa) || f.Owns(pb) {
			t.Error("Owns: still owns a released shard")
		}

		f.SetShard(pb, true)
		if err := f.DropShard(pb); err == nil {
			t.Error("DropShard of an owned shard succeeded")
		}
		if err := f.DropShard(pa); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := f.Host(a); ok {
			t.Error("a dropped shard's host is still known")
		}
		if _, ok, _ := f.URL(a, link(a, 2).Key); ok {
			t.Error("a dropped shard's URL is still known")
		}
		if got, _ := f.Applied(pa); got != 0 {
			t.Errorf("Applied of a dropped shard = %d", got)
		}
		if s := f.Stats(); s.Queued != 1 || s.Seen != 1 || s.Hosts != 1 {
			t.Errorf("Stats after the drop = %+v, want b's 1 queued, 1 seen, 1 host", s)
		}
		if l := mustNext(t, f); l.Task.Host != b {
			t.Errorf("leased %s", l.Task.Host)
		}
		if _, err := f.AddAt(ctx, []crawl.Link{link(a, 9)}, crawl.Position{Shard: pb, Seq: 2}); err == nil {
			t.Error("AddAt took a link of another shard")
		}
	})
}

// TestSnapshotMovesAShard: a shard exported from one frontier and
// imported into another carries its whole state and log position: the
// new owner leases exactly the URLs the old one had not finished, none it
// had, and its counts agree.
func TestSnapshotMovesAShard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hosts := []string{"a.test", "b.test", "c.test"}
		const size = 16
		a := &logged{f: openAt(t, t.TempDir(), adaptivePolicy()), logs: map[uint16][]event{}}
		defer a.f.Close()
		a.add(t, []crawl.Link{link(hosts[0], 0)})
		crawlSome(t, a, hosts, size, 25)

		src := openPartial(t) // the old owner, built from the logs so it has positions
		replay(t, src, a.logs)
		dst := openPartial(t)
		dst.AddAt(t.Context(), []crawl.Link{link(hosts[1], 99)}, crawl.Position{Shard: ShardOf(hosts[1]), Seq: 1}) // stale state, replaced by the import
		for p := range a.logs {
			var buf bytes.Buffer
			at, err := src.ExportShard(p, &buf)
			if err != nil {
				t.Fatal(err)
			}
			got, err := dst.ImportShard(p, &buf)
			if err != nil {
				t.Fatal(err)
			}
			if want := uint64(len(a.logs[p])); at != want || got != want {
				t.Errorf("shard %d: exported at %d, imported at %d, want %d", p, at, got, want)
			}
		}
		diff(t, "imported", state(t, dst, hosts, size), state(t, src, hosts, size))
		if s, d := src.Stats(), dst.Stats(); s.Seen != d.Seen || s.Queued != d.Queued || s.Hosts != d.Hosts {
			t.Errorf("Stats: imported %+v, exported %+v", d, s)
		}

		var queued []string
		for _, h := range hosts {
			for n := range size {
				if info, ok, _ := src.URL(h, link(h, n).Key); ok && info.Queued {
					queued = append(queued, info.Key)
				}
			}
		}
		for p := range a.logs {
			dst.SetShard(p, true)
		}
		var leased []string
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		for {
			l, err := dst.Next(ctx)
			if err != nil {
				break // nothing left: a partial frontier waits until ctx ends
			}
			leased = append(leased, l.Task.Key)
			dst.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, Start: time.Now(), End: time.Now(), Status: 200})
		}
		slices.Sort(queued)
		slices.Sort(leased)
		if !slices.Equal(queued, leased) {
			t.Errorf("the new owner leased\n %v\nwant the old owner's queue\n %v", leased, queued)
		}
	})
}

// TestImportRefusesForeignData: a snapshot of another shard, or bytes
// that are not a snapshot, are refused.
func TestImportRefusesForeignData(t *testing.T) {
	f := openPartial(t)
	p := ShardOf("a.test")
	f.AddAt(t.Context(), []crawl.Link{link("a.test", 1)}, crawl.Position{Shard: p, Seq: 1})
	var buf bytes.Buffer
	if _, err := f.ExportShard(p, &buf); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ImportShard(p+1, bytes.NewReader(buf.Bytes())); err == nil {
		t.Error("imported a snapshot of another shard")
	}
	if _, err := f.ImportShard(p, bytes.NewReader([]byte("not a snapshot"))); err == nil {
		t.Error("imported garbage")
	}
}

func TestOutcomeRoundTrip(t *testing.T) {
	now := time.Unix(1_700_000_000, 123456789)
	task := crawl.Task{Link: crawl.Link{URL: "http://a.test/x?y", Key: "http://a.test/x?y", Host: "a.test", Depth: 3, Hops: 1, Via: "http://a.test/"},
		Attempt: 2, Validators: crawl.Validators{ETag: `"e"`}, Prior: &crawl.Capture{File: "f", Offset: 1, Length: 2}}
	outs := []crawl.Outcome{
		{Disposition: crawl.Done},
		{Disposition: crawl.Done, Requested: true, Status: 200, Start: now, FirstByte: now.Add(time.Millisecond), End: now.Add(2 * time.Millisecond),
			Capture: &crawl.Capture{File: "w.warc.gz", Offset: 10, Length: 20, RecordID: "<urn:uuid:1>", Date: now}, Content: 42, Spent: 0.25,
			Validators: crawl.Validators{ETag: `"v"`, LastModified: "Mon, 01 Jan 2024 00:00:00 GMT"}},
		{Disposition: crawl.Retry, Requested: true, Class: crawl.ClassTransient, Reason: "timeout", Health: politeness.Throttled,
			RetryAfter: 3 * time.Second, HasRetryAfter: true, End: now},
		{Disposition: crawl.Done, Requested: true, Status: 200, End: now, Aliases: &crawl.HostAliases{Rules: []crawl.AliasEvidence{
			{Rule: crawl.AliasRule{Kind: 1}, Confirmations: 3, Adopted: true},
			{Rule: crawl.AliasRule{Kind: 2, Param: "utm_source"}, Confirmations: 1, Contradicted: true}}}},
		{Disposition: crawl.Requeue, Requested: true, Status: 200, End: now,
			Robots: &crawl.RobotsState{Status: crawl.RobotsOK, Body: []byte("User-agent: *\nDisallow: /x\n"), FetchedAt: now, URL: "http://a.test/robots.txt"}},
		{Disposition: crawl.Done, Requested: true, Status: 200, End: now, Traps: trapState()},
		{Disposition: crawl.Done, Requested: true, Status: 200, End: now, Traps: &crawl.HostTraps{Seq: 1},
			Aliases: &crawl.HostAliases{Rules: []crawl.AliasEvidence{{Rule: crawl.AliasRule{Kind: 3}, Confirmations: 1}}}},
	}
	for i, out := range outs {
		gt, got, err := DecodeOutcome(EncodeOutcome(task, out))
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if !reflect.DeepEqual(gt, task) || !reflect.DeepEqual(got, out) {
			t.Errorf("%d: DecodeOutcome(EncodeOutcome(%+v, %+v)) = %+v, %+v", i, task, out, gt, got)
		}
	}
}

func FuzzDecodeOutcome(f *testing.F) {
	task := crawl.Task{Link: crawl.Link{URL: "http://a.test/", Key: "http://a.test/", Host: "a.test"}}
	f.Add(EncodeOutcome(task, crawl.Outcome{Disposition: crawl.Done, Requested: true, Status: 200,
		Capture: &crawl.Capture{File: "f", Length: 1}}))
	f.Add(EncodeOutcome(task, crawl.Outcome{Robots: &crawl.RobotsState{Status: crawl.RobotsOK, Body: []byte("x")}}))
	f.Add(EncodeOutcome(task, crawl.Outcome{Disposition: crawl.Done, Traps: trapState()}))
	f.Fuzz(func(t *testing.T, b []byte) {
		task, out, err := DecodeOutcome(b)
		if err != nil {
			return
		}
		again := EncodeOutcome(task, out)
		t2, o2, err := DecodeOutcome(again)
		if err != nil || !reflect.DeepEqual(t2, task) || !reflect.DeepEqual(o2, out) {
			t.Fatalf("re-encoding a decoded outcome changed it: %v\n%#v\n%#v\n%#v\n%#v", err, task, out, t2, o2)
		}
	})
}

// TestDroppedShardIsForgotten: a URL a node fetched, whose shard it then
// dropped, is new again when the shard comes back through its log: the
// cache of finished URLs (recent.go) must not answer for it. The seen-set
// filter still says "maybe seen" (a filter cannot forget), so only the
// store and the cache decide.
func TestDroppedShardIsForgotten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openPartial(t)
		ctx := t.Context()
		a := "a.test"
		pa := ShardOf(a)
		f.AddAt(ctx, []crawl.Link{link(a, 1)}, crawl.Position{Shard: pa, Seq: 1})
		f.SetShard(pa, true)
		l := mustNext(t, f)
		f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, Start: time.Now(), End: time.Now(), Status: 200})
		if n, _ := f.AddAt(ctx, []crawl.Link{link(a, 1)}, crawl.Position{Shard: pa, Seq: 2}); n != 0 {
			t.Fatalf("a link to the fetched URL counted %d new", n)
		}
		f.SetShard(pa, false)
		if err := f.DropShard(pa); err != nil {
			t.Fatal(err)
		}
		if n, _ := f.AddAt(ctx, []crawl.Link{link(a, 1)}, crawl.Position{Shard: pa, Seq: 1}); n != 1 {
			t.Errorf("the URL of a dropped shard, added again: %d new, want 1", n)
		}
	})
}

// TestSeenFilterMeasureAfterAShardCameBack: a shard dropped and then read
// again from its log brings back keys the filter holds from before; they
// are not false positives of the filter, and the measure says so, also
// after a restart with the filter's snapshot.
func TestSeenFilterMeasureAfterAShardCameBack(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(Options{Dir: dir, Policy: adaptivePolicy(), Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	var links []crawl.Link
	for i := range 200 {
		links = append(links, link("a.test", i))
	}
	p := ShardOf("a.test")
	if err := f.SetShard(p, true); err != nil {
		t.Fatal(err)
	}
	if _, err := f.AddAt(ctx, links, crawl.Position{Shard: p, Seq: 1}); err != nil {
		t.Fatal(err)
	}
	// The shard moves away and comes back: its log is read again.
	if err := f.SetShard(p, false); err != nil {
		t.Fatal(err)
	}
	if err := f.DropShard(p); err != nil {
		t.Fatal(err)
	}
	if err := f.SetShard(p, true); err != nil {
		t.Fatal(err)
	}
	if n, err := f.AddAt(ctx, links, crawl.Position{Shard: p, Seq: 1}); err != nil || n != len(links) {
		t.Fatalf("AddAt after the shard came back = %d, %v; want %d", n, err, len(links))
	}
	if got := f.Stats().BloomFPRate; got > 0.05 {
		t.Errorf("BloomFPRate = %.2f after a shard came back, want the filter's own (about 0.01)", got)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// The filter's snapshot keeps which shards are stale.
	f, err = Open(Options{Dir: dir, Policy: adaptivePolicy(), Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !f.fp.stale[p] || f.fp.stale[p+1] {
		t.Errorf("after a restart: shard %d stale %v, shard %d stale %v; want true, false", p, f.fp.stale[p], p+1, f.fp.stale[p+1])
	}
}

// TestDropUnowned: a partial frontier opened again holds the state of
// shards it owned before; DropUnowned drops it (nothing queued, nothing
// seen) and keeps the shards it owns now.
func TestDropUnowned(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	f, err := Open(Options{Dir: dir, Policy: adaptivePolicy(), Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	a, b := ShardOf("a.test"), ShardOf("b.test")
	if a == b {
		t.Fatal("a.test and b.test share a shard")
	}
	for _, h := range []string{"a.test", "b.test"} {
		p := ShardOf(h)
		if err := f.SetShard(p, true); err != nil {
			t.Fatal(err)
		}
		if _, err := f.AddAt(ctx, []crawl.Link{link(h, 1), link(h, 2)}, crawl.Position{Shard: p, Seq: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err = Open(Options{Dir: dir, Policy: adaptivePolicy(), Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.SetShard(b, true); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Queued != 4 {
		t.Fatalf("reopened: %d queued, want the 4 of before", s.Queued)
	}
	if n, err := f.DropUnowned(); err != nil || n != 1 {
		t.Fatalf("DropUnowned() = %d, %v; want 1 (shard %d)", n, err, a)
	}
	if s := f.Stats(); s.Queued != 2 || s.Hosts != 1 || s.Seen != 2 {
		t.Errorf("after DropUnowned: %d queued, %d hosts, %d seen; want b.test's 2, 1, 2", s.Queued, s.Hosts, s.Seen)
	}
	if seq, err := f.Applied(a); err != nil || seq != 0 {
		t.Errorf("Applied(%d) = %d, %v after the drop; want 0", a, seq, err)
	}
	if n, err := f.DropUnowned(); err != nil || n != 0 {
		t.Errorf("DropUnowned() again = %d, %v; want 0", n, err)
	}
	// The filter forgot the dropped keys: they are new again, not false
	// positives, and the dropped shard counts in the measure again.
	if f.fp.stale[a] {
		t.Errorf("shard %d stale after DropUnowned rebuilt the filter", a)
	}
	if n, err := f.AddAt(ctx, []crawl.Link{link("a.test", 1), link("a.test", 2)}, crawl.Position{Shard: a, Seq: 1}); err != nil || n != 2 {
		t.Fatalf("AddAt(dropped keys) = %d, %v; want 2", n, err)
	}
	if fp := f.fp; fp.falsePositives != 0 || fp.trueNegatives != 2 {
		t.Errorf("filter measure after the drop: %d false positives, %d true negatives; want 0, 2", fp.falsePositives, fp.trueNegatives)
	}
}

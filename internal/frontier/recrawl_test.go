package frontier

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/freshness"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

// openRecrawl opens a frontier whose revisit interval is always every.
func openRecrawl(t testing.TB, dir string, recrawl bool, every time.Duration) *Frontier {
	t.Helper()
	f, err := Open(Options{Dir: dir, Policy: politeness.Policy{Delay: time.Second}, Recrawl: recrawl, Rand: func() float64 { return 0 },
		Freshness: freshness.Policy{MinInterval: every, MaxInterval: every}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestRevisitDue: a fetched URL with a next visit is leased again at that
// time, not before, with its validators and capture for a conditional
// request; the due-time index survives a restart; meanwhile Next waits
// rather than reporting the crawl exhausted.
func TestRevisitDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		f := openRecrawl(t, dir, true, time.Hour)
		ctx := t.Context()
		f.Add(ctx, []crawl.Link{link("a", 1)})
		l := mustNext(t, f)
		end := time.Now()
		capture := &crawl.Capture{File: "x.warc.gz", Offset: 1, Length: 2, RecordID: "<urn:uuid:1>", Date: end}
		valid := crawl.Validators{ETag: `"v1"`}
		f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: end, Status: 200,
			Capture: capture, Validators: valid})
		if s := f.Stats(); s.Queued != 0 {
			t.Fatalf("queued after the fetch = %d", s.Queued)
		}
		f.Close()

		f = openRecrawl(t, dir, true, time.Hour)
		defer f.Close()
		l = mustNext(t, f) // waits for the due time: no ErrExhausted
		if got := time.Since(end); got != time.Hour {
			t.Errorf("revisit leased %v after the fetch, want 1h", got)
		}
		if l.Task.Key != link("a", 1).Key || l.Task.Validators != valid || l.Task.Prior == nil || l.Task.Prior.RecordID != capture.RecordID {
			t.Errorf("revisit task = %+v (prior %+v)", l.Task, l.Task.Prior)
		}
		f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: time.Now(), Status: 304})
		if info, _, _ := f.URL("a", l.Task.Key); info.NextVisit != time.Now().Add(time.Hour) || info.Visits != 2 {
			t.Errorf("after the revisit: next visit %v (want in 1h), %d visits (want 2)", info.NextVisit, info.Visits)
		}
	})
}

// TestRevisitWakesWaitingNext: a revisit that falls due while Next waits
// for a host's politeness gap is promoted in time.
func TestRevisitWakesWaitingNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openRecrawl(t, t.TempDir(), true, 2*time.Second)
		defer f.Close()
		ctx := t.Context()
		f.Add(ctx, []crawl.Link{link("a", 1), link("b", 1), link("b", 2)})
		la := mustNext(t, f)
		lb := mustNext(t, f)
		if la.Task.Host != "a" {
			la, lb = lb, la
		}
		now := time.Now()
		f.Complete(ctx, la, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: now, Status: 200})
		// b's next URL waits for a long Crawl-delay: 10 minutes.
		f.Complete(ctx, lb, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: now,
			Robots: &crawl.RobotsState{Status: crawl.RobotsMissing, FetchedAt: now}})
		f.mu.Lock()
		f.hosts["b"].rec.readyAt = now.Add(10 * time.Minute)
		f.schedule(f.hosts["b"])
		f.mu.Unlock()
		l := mustNext(t, f)
		if l.Task.Host != "a" || time.Since(now) != 2*time.Second {
			t.Errorf("leased %s after %v, want the revisit of a after 2s", l.Task.Host, time.Since(now))
		}
	})
}

// TestNoRecrawlIsOnePass: without Recrawl a crawl is one pass.
func TestNoRecrawlIsOnePass(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openRecrawl(t, t.TempDir(), false, time.Minute)
		defer f.Close()
		f.Add(t.Context(), []crawl.Link{link("a", 1)})
		l := mustNext(t, f)
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: time.Now(), Status: 200})
		if _, err := f.Next(t.Context()); !errors.Is(err, crawl.ErrExhausted) {
			t.Errorf("Next = %v, want ErrExhausted", err)
		}
	})
}

// done completes l as a fetch that ended now with a 200 whose content has
// fingerprint content.
func done(t *testing.T, f *Frontier, l crawl.Lease, content uint64) {
	t.Helper()
	now := time.Now()
	err := f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done, Requested: true, Start: now, End: now,
		Status: 200, Content: content, Spent: l.Task.Cash, Validators: crawl.Validators{ETag: fmt.Sprintf(`"%d"`, content)}})
	if err != nil {
		t.Fatal(err)
	}
}

// TestChangeEstimatePersists: each fetch is an observation, changed when
// the content fingerprint differs, and the estimate, history and next
// visit are kept in the URL record across a restart. A page whose
// content changes at every visit is estimated to change far more often
// than one that never does.
func TestChangeEstimatePersists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		f := openRecrawl(t, dir, true, time.Minute)
		ctx := t.Context()
		fast, static := link("a", 1), link("b", 1)
		f.Add(ctx, []crawl.Link{fast, static})
		for v := range uint64(8) {
			for range 2 {
				l := mustNext(t, f) // waits for the revisit, a minute after the last
				content := uint64(1)
				if l.Task.Key == fast.Key {
					content = 100 + v
				}
				if v > 0 && (!l.Task.Revisit || l.Task.Validators.IsZero()) {
					t.Fatalf("visit %d of %s: revisit %v, validators %+v: want a conditional revisit", v, l.Task.Key, l.Task.Revisit, l.Task.Validators)
				}
				done(t, f, l, content)
			}
		}
		before := map[string]crawl.URLInfo{}
		for _, l := range []crawl.Link{fast, static} {
			info, _, _ := f.URL(l.Host, l.Key)
			before[l.Key] = info
		}
		f.Close()

		f = openRecrawl(t, dir, true, time.Minute)
		defer f.Close()
		for _, l := range []crawl.Link{fast, static} {
			info, ok, err := f.URL(l.Host, l.Key)
			if err != nil || !ok || info != before[l.Key] {
				t.Errorf("%s after a restart: %+v (ok %v, err %v), before %+v", l.Key, info, ok, err, before[l.Key])
			}
			if info.Visits != 8 || info.NextVisit != info.FetchedAt.Add(time.Minute) || info.Interval != time.Minute {
				t.Errorf("%s: %d visits, next %v after the last fetch at %v (interval %v): want 8, a minute later", l.Key,
					info.Visits, info.NextVisit, info.FetchedAt, info.Interval)
			}
		}
		fi, si := before[fast.Key], before[static.Key]
		if fi.Changed != 7 || si.Changed != 0 || fi.LastChange != fi.FetchedAt {
			t.Errorf("changes seen: fast %d (last %v, fetched %v), static %d; want 7 and 0", fi.Changed, fi.LastChange, fi.FetchedAt, si.Changed)
		}
		if !(fi.ChangeRate > 10*si.ChangeRate) || !(fi.ChangeRate > 1/120.0) {
			t.Errorf("change rates: fast %g/s, static %g/s; want fast above one per 2 minutes and 10× static", fi.ChangeRate, si.ChangeRate)
		}
	})
}

// TestRevisitShareSplitsHost: a host with revisits due and discovery
// waiting gives revisits the configured share of its leases; without
// discovery, revisits take every lease. The share set through Control
// survives a restart, and is refused out of range or without recrawl.
func TestRevisitShareSplitsHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		f := openRecrawl(t, dir, true, time.Minute)
		ctx := t.Context()
		for i := range 20 {
			f.Add(ctx, []crawl.Link{link("a", i)})
		}
		for range 20 {
			done(t, f, mustNext(t, f), 1)
		}
		time.Sleep(2 * time.Minute) // all 20 due
		for i := range 20 {
			f.Add(ctx, []crawl.Link{link("a", 100+i)})
		}
		revisits := 0
		for range 20 {
			l := mustNext(t, f)
			if l.Task.Revisit {
				revisits++
			}
			done(t, f, l, 1)
		}
		if revisits < 5 || revisits > 7 {
			t.Errorf("%d of 20 leases were revisits with a share of 0.3, want 6±1", revisits)
		}
		if s := f.Stats().Recrawl; s.DueBacklog != 20-revisits || s.Share != DefaultRevisitShare {
			t.Errorf("stats: %+v, want %d revisits waiting and the default share", s, 20-revisits)
		}

		if err := f.Control(ctx, crawl.Control{Op: crawl.SetRevisitShare, Share: 1}); err != nil {
			t.Fatal(err)
		}
		for _, bad := range []float64{-0.1, 1.5} {
			if err := f.Control(ctx, crawl.Control{Op: crawl.SetRevisitShare, Share: bad}); err == nil {
				t.Errorf("share %v accepted", bad)
			}
		}
		// A fetch on another host: a calibration, which saves its state
		// beside the share, must keep the share.
		f.Add(ctx, []crawl.Link{link("b", 1)})
		if l := mustNext(t, f); l.Task.Host != "b" {
			t.Fatalf("leased %s, want b's page (a waits for its gap)", l.Task.Key)
		} else {
			done(t, f, l, 1)
		}
		f.Close()
		f = openRecrawl(t, dir, true, time.Minute)
		defer f.Close()
		if s := f.Stats().Recrawl.Share; s != 1 {
			t.Errorf("share after a restart = %v, want 1", s)
		}
		for i := range 20 - revisits {
			if l := mustNext(t, f); !l.Task.Revisit {
				t.Fatalf("lease %d with a share of 1 and revisits waiting: %s is not a revisit", i, l.Task.Key)
			} else {
				done(t, f, l, 1)
			}
		}

		one := openRecrawl(t, t.TempDir(), false, time.Minute)
		defer one.Close()
		if err := one.Control(ctx, crawl.Control{Op: crawl.SetRevisitShare, Share: 0.5}); err == nil {
			t.Error("a one-pass frontier accepted a revisit share")
		}
	})
}

// TestImportanceOrdersQueue: within a host, URLs with more OPIC cash are
// leased first, and cash arriving later moves a queued URL up; a link
// bringing cash and a shorter path at once leaves one entry.
func TestImportanceOrdersQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openRecrawl(t, t.TempDir(), false, time.Minute)
		defer f.Close()
		ctx := t.Context()
		withCash := func(l crawl.Link, depth int, cash float64) crawl.Link {
			l.Depth, l.Cash = depth, cash
			return l
		}
		f.Add(ctx, []crawl.Link{withCash(link("a", 0), 0, 1)}) // the seed
		f.Add(ctx, []crawl.Link{withCash(link("a", 1), 3, 0.01), withCash(link("a", 2), 3, 0.01),
			withCash(link("a", 3), 3, 0.01), withCash(link("a", 4), 3, 0.01)})
		// Many pages link to 3; 4 is found again by a shorter path, with cash.
		for range 8 {
			f.Add(ctx, []crawl.Link{withCash(link("a", 3), 3, 0.5)})
		}
		f.Add(ctx, []crawl.Link{withCash(link("a", 4), 1, 0.02)})
		if s := f.Stats(); s.Queued != 5 {
			t.Fatalf("queued = %d, want 5 (one entry per URL)", s.Queued)
		}
		var order []string
		for range 5 {
			l := mustNext(t, f)
			order = append(order, l.Task.Key[len("http://a/p/"):])
			done(t, f, l, 1)
		}
		if order[0] != "3" || order[1] != "0" {
			t.Errorf("lease order %v: want 3 (cash 4.01), then the seed (1), then the rest", order)
		}
		if _, err := f.Next(ctx); !errors.Is(err, crawl.ErrExhausted) {
			t.Errorf("after every URL once: %v, want ErrExhausted", err)
		}
		info, _, _ := f.URL("a", link("a", 3).Key)
		if info.History < 4 || info.Cash != 0 {
			t.Errorf("3 after its fetch: history %v, cash %v; want its cash (4.01) plus the grant in history, none left", info.History, info.Cash)
		}
	})
}

// TestReplanFollowsMu: when the budget's multiplier µ changes, the
// planned visits move to where the new µ puts them, from the same last
// visit; the due-time index keeps one entry per URL.
func TestReplanFollowsMu(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, err := Open(Options{Dir: t.TempDir(), Policy: politeness.Policy{Delay: time.Second}, Recrawl: true,
			Freshness: freshness.Policy{MinInterval: time.Second, MaxInterval: 24 * time.Hour}})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		f.Add(t.Context(), []crawl.Link{link("a", 1)})
		l := mustNext(t, f)
		done(t, f, l, 1)
		key := link("a", 1).Key
		f.mu.Lock()
		f.re.mu = 10 // a small budget
		err = f.replan(time.Now())
		f.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		before, _, _ := f.URL("a", key)

		f.mu.Lock()
		f.re.mu /= 100 // a budget a hundred times larger
		err = f.replan(time.Now())
		due := f.counts.due
		rec := mustRecord(t, f, key)
		want := f.re.policy.Interval(before.ChangeRate, f.importance(rec), f.re.mu)
		spread := f.re.spread(want, key, rec.fresh.Visits)
		f.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		after, _, _ := f.URL("a", key)
		if !after.NextVisit.Before(before.NextVisit) || after.Interval != want.Truncate(time.Millisecond) || !after.NextVisit.Equal(after.FetchedAt.Add(spread)) {
			t.Errorf("next visit %v (interval %v) before, %v (%v) after; want the last visit plus %v spread to %v", before.NextVisit, before.Interval,
				after.NextVisit, after.Interval, want, spread)
		}
		if due != 1 {
			t.Errorf("%d entries in the due-time index, want 1", due)
		}
		time.Sleep(time.Until(after.NextVisit))
		if l := mustNext(t, f); l.Task.Key != key || !l.Task.Revisit {
			t.Errorf("leased %+v at the replanned time, want the revisit", l.Task)
		}
	})
}

func mustRecord(t *testing.T, f *Frontier, key string) urlRecord {
	t.Helper()
	rec, err := f.urlRecord("a", key)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestSpreadRevisits: URLs fetched together with the same interval fall
// due spread over the band around it rather than at once, within the
// policy's bounds, and the same URL after the same visit always gets
// the same time.
func TestSpreadRevisits(t *testing.T) {
	r := &recrawler{policy: freshness.Policy{MinInterval: time.Second, MaxInterval: time.Hour}}
	const iv = 10 * time.Minute
	lo, hi := time.Duration(math.MaxInt64), time.Duration(0)
	buckets := make([]int, 10)
	for i := range 1000 {
		key := fmt.Sprintf("/p/%d", i)
		d := r.spread(iv, key, 1)
		if d != r.spread(iv, key, 1) {
			t.Fatalf("spread(%v, %q, 1) differs between two calls", iv, key)
		}
		lo, hi = min(lo, d), max(hi, d)
		buckets[min(int(float64(d-9*time.Minute)/float64(2*time.Minute)*10), 9)]++
	}
	if lo < 9*time.Minute || hi > 11*time.Minute || hi-lo < 110*time.Second {
		t.Errorf("1000 URLs at %v spread over [%v, %v], want most of [9m, 11m]", iv, lo, hi)
	}
	for i, n := range buckets {
		if n < 50 || n > 150 {
			t.Errorf("spread: %d of 1000 URLs in the %d-th tenth of the band, want about 100 (%v)", n, i, buckets)
			break
		}
	}
	// At the bounds the band moves inside them: URLs at the maximum
	// interval are spread too, not half of them at exactly the maximum.
	atMax, atMin := 0, 0
	for i := range 1000 {
		key := fmt.Sprintf("/p/%d", i)
		if d := r.spread(time.Second, key, 1); d < time.Second || d > 1200*time.Millisecond {
			t.Fatalf("spread(1s, %q) = %v, want within [1s, 1.2s]", key, d)
		} else if d == time.Second {
			atMin++
		}
		if d := r.spread(time.Hour, key, 1); d > time.Hour || d < 48*time.Minute {
			t.Fatalf("spread(1h, %q) = %v, want within [48m, 1h]", key, d)
		} else if d == time.Hour {
			atMax++
		}
	}
	if atMin > 10 || atMax > 10 {
		t.Errorf("of 1000 URLs, %d fall due exactly at the minimum interval and %d at the maximum: bunched", atMin, atMax)
	}
	same := 0
	for v := range uint32(100) {
		if r.spread(iv, "/p/1", v) == r.spread(iv, "/p/1", v+1) {
			same++
		}
	}
	if same > 1 {
		t.Errorf("one URL's successive visits kept the same offset %d times in 100: its phase is fixed", same)
	}
}

// TestEstimatedFreshnessIsHonest: the estimated freshness of the
// collection says how much of it is current, not how fresh the schedule
// would keep it: 0 before anything is fetched, a page queued but never
// fetched counts as stale, and a page seen to change at every visit
// counts as stale once long unvisited.
func TestEstimatedFreshnessIsHonest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openRecrawl(t, t.TempDir(), true, time.Hour)
		defer f.Close()
		ctx := t.Context()
		f.Add(ctx, []crawl.Link{link("a", 1), link("a", 2)})
		if got := f.Stats().Recrawl.Freshness; got != 0 {
			t.Errorf("estimated freshness before any fetch = %v, want 0", got)
		}
		done(t, f, mustNext(t, f), 1)
		// One of two pages held, and one that (by its prior) rarely changes.
		if got := f.Stats().Recrawl.Freshness; got < 0.45 || got > 0.5 {
			t.Errorf("estimated freshness with one of two pages fetched = %v, want about 0.5", got)
		}
		done(t, f, mustNext(t, f), 1)
		if got := f.Stats().Recrawl.Freshness; got < 0.99 {
			t.Errorf("estimated freshness with both pages just fetched = %v, want about 1", got)
		}
		if rs := f.Stats().Recrawl; rs.ChangingPages != 0 || rs.FreshnessChanging != 0 {
			t.Errorf("no page seen to change yet, but an estimate of %v over %d of them", rs.FreshnessChanging, rs.ChangingPages)
		}
		// Page 1 changes at every hourly visit, page 2 never: after 8
		// visits, half an hour after the last, page 1 is likely stale.
		for v := range uint64(8) {
			for range 2 {
				l := mustNext(t, f)
				content := uint64(1)
				if l.Task.Key == link("a", 1).Key {
					content = 100 + v
				}
				done(t, f, l, content)
			}
		}
		time.Sleep(59 * time.Minute)
		if got := f.Stats().Recrawl.Freshness; got < 0.5 || got > 0.75 {
			t.Errorf("estimated freshness an hour after visits that always found page 1 changed = %v, want about 0.5", got)
		}
		// Over the pages seen to change (page 1 only): likely stale.
		if rs := f.Stats().Recrawl; rs.ChangingPages != 1 || rs.FreshnessChanging > 0.5 {
			t.Errorf("estimated freshness of the pages seen to change = %v over %d, want page 1 alone, below 0.5", rs.FreshnessChanging, rs.ChangingPages)
		}
	})
}

// TestBudgetMoveRecalibrates: when the revisit budget moves (here, the
// host's discovery ends, and revisits get its whole capacity instead of
// their share), µ is calibrated again at once, even if the observations
// alone would not ask for it yet: visits planned under the old budget
// may all be far away, and nothing would be observed until then.
func TestBudgetMoveRecalibrates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, err := Open(Options{Dir: t.TempDir(), Policy: politeness.Policy{Delay: time.Second}, Recrawl: true,
			Freshness: freshness.Policy{MinInterval: time.Minute, MaxInterval: time.Hour}})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("a", 2)})
		done(t, f, mustNext(t, f), 1)
		f.mu.Lock()
		before := f.re.budget
		f.re.nextCalib = 1000 // as in a crawl past its first observations
		f.mu.Unlock()
		time.Sleep(2 * time.Second)
		done(t, f, mustNext(t, f), 1) // the last discovery: the budget moves
		f.mu.Lock()
		budget, want := f.re.budget, f.revisitBudget()
		f.mu.Unlock()
		if budget != want || budget <= before {
			t.Errorf("budget planned for %v before, %v after the end of discovery; want the budget now, %v", before, budget, want)
		}
	})
}

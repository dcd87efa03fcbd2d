package frontier

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/politeness"
	"github.com/godwit-crawler/godwit/internal/robots"
)

func ptr[T any](v T) *T { return &v }

// TestBlockHost: a blocked host gets no lease, survives a restart
// blocked, leaves the crawl exhausted with its URLs queued, and an
// unblocked one is leased again.
func TestBlockHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		f := openAt(t, dir, adaptivePolicy())
		ctx := t.Context()
		f.Add(ctx, []crawl.Link{link("a", 1), link("a", 2), link("b", 1)})
		if err := f.Control(ctx, crawl.Control{Op: crawl.BlockHost, Host: "a"}); err != nil {
			t.Fatal(err)
		}
		l := mustNext(t, f)
		if l.Task.Host != "b" {
			t.Fatalf("leased %s, a blocked host", l.Task.Host)
		}
		f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: time.Now()})
		if _, err := f.Next(ctx); !errors.Is(err, crawl.ErrExhausted) {
			t.Fatalf("Next with only a blocked host left = %v, want ErrExhausted", err)
		}
		if s := f.Stats(); s.Queued != 2 || s.Blocked != 1 {
			t.Errorf("Stats = %+v, want 2 queued, 1 blocked", s)
		}
		if info := hostInfo(t, f, "a"); !info.Blocked || info.Waiting != politeness.ReasonBlocked {
			t.Errorf("Host(a) = %+v", info)
		}
		f.Close()

		f = openAt(t, dir, adaptivePolicy())
		defer f.Close()
		if _, err := f.Next(ctx); !errors.Is(err, crawl.ErrExhausted) {
			t.Fatalf("after a restart the block was lost: %v", err)
		}
		if err := f.Control(ctx, crawl.Control{Op: crawl.UnblockHost, Host: "a"}); err != nil {
			t.Fatal(err)
		}
		if l := mustNext(t, f); l.Task.Host != "a" {
			t.Errorf("after unblock leased %s", l.Task.Host)
		}
	})
}

// TestUnblockWakesNext: Next waiting while the only host with work is
// blocked returns once it is unblocked.
func TestUnblockWakesNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openAt(t, t.TempDir(), adaptivePolicy())
		defer f.Close()
		ctx := t.Context()
		f.Add(ctx, []crawl.Link{link("a", 1), link("b", 1)})
		f.Control(ctx, crawl.Control{Op: crawl.BlockHost, Host: "a"})
		if lb := mustNext(t, f); lb.Task.Host != "b" { // held: Next waits rather than ends
			t.Fatalf("leased %s", lb.Task.Host)
		}
		got := make(chan crawl.Lease)
		go func() {
			l, _ := f.Next(ctx)
			got <- l
		}()
		synctest.Wait()
		select {
		case l := <-got:
			t.Fatalf("leased %s while it is blocked", l.Task.Host)
		default:
		}
		f.Control(ctx, crawl.Control{Op: crawl.UnblockHost, Host: "a"})
		if l := <-got; l.Task.Host != "a" {
			t.Errorf("leased %s", l.Task.Host)
		}
	})
}

// TestHostPolicyOverride: an operator's delay replaces the configured one
// (a larger Crawl-delay would still win), and max pages marks leases
// over budget.
func TestHostPolicyOverride(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openAt(t, t.TempDir(), adaptivePolicy()) // configured delay 1s
		defer f.Close()
		ctx := t.Context()
		for i := range 4 {
			f.Add(ctx, []crawl.Link{link("a", i)})
		}
		if err := f.Control(ctx, crawl.Control{Op: crawl.SetHostPolicy, Host: "a",
			Policy: crawl.HostPolicy{Delay: ptr(5 * time.Second), MaxPages: ptr(int64(2))}}); err != nil {
			t.Fatal(err)
		}
		info := hostInfo(t, f, "a")
		if info.Delay != (politeness.Delay{Gap: 5 * time.Second, Reason: politeness.ReasonOverride}) || *info.Policy.MaxPages != 2 {
			t.Errorf("Host = %+v", info)
		}
		var over []bool
		for range 3 {
			l := mustNext(t, f)
			over = append(over, l.OverBudget)
			end := time.Now()
			f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: !l.OverBudget, End: end})
			if l.OverBudget {
				continue
			}
			next := mustNext(t, f)
			if got := time.Since(end); got != 5*time.Second {
				t.Errorf("gap %v, want the override's 5s", got)
			}
			f.Complete(ctx, next, crawl.Outcome{Disposition: crawl.Requeue})
		}
		if over[0] || over[1] || !over[2] {
			t.Errorf("over budget per lease = %v, want false, false, true", over)
		}
		f.Control(ctx, crawl.Control{Op: crawl.ClearHostPolicy, Host: "a"})
		if info := hostInfo(t, f, "a"); !info.Policy.IsZero() || info.Delay.Reason != politeness.ReasonConfigured {
			t.Errorf("after clear: %+v", info)
		}
	})
}

// TestHostsAndURL: the host listing orders and limits; URL finds a
// queued and a done URL.
func TestHostsAndURL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openAt(t, t.TempDir(), adaptivePolicy())
		defer f.Close()
		ctx := context.Background()
		f.Add(ctx, []crawl.Link{link("a", 1), link("b", 1), link("b", 2), link("c", 1), link("c", 2), link("c", 3)})
		hosts, err := f.Hosts("queued", 2)
		if err != nil || len(hosts) != 2 || hosts[0].Name != "c" || hosts[1].Name != "b" {
			t.Fatalf("Hosts(queued, 2) = %+v, %v", hosts, err)
		}
		if _, err := f.Hosts("nonsense", 1); err == nil {
			t.Error("Hosts accepted an unknown order")
		}
		l := mustNext(t, f)
		f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: time.Now(), Status: 200,
			Capture: &crawl.Capture{File: "x.warc.gz", Offset: 1, Length: 2, RecordID: "<urn:uuid:x>"}})
		info, ok, err := f.URL(l.Task.Host, l.Task.Key)
		if err != nil || !ok || info.Queued || info.Status != 200 || info.Capture == nil || info.Capture.RecordID != "<urn:uuid:x>" {
			t.Errorf("URL(done) = %+v, %v, %v", info, ok, err)
		}
		if info, ok, _ := f.URL("c", link("c", 3).Key); !ok || !info.Queued {
			t.Errorf("URL(queued) = %+v, %v", info, ok)
		}
		if _, ok, _ := f.URL("z", "http://z/"); ok {
			t.Error("URL(unknown) found")
		}
	})
}

// TestHostPolicyFloor: an operator's delay below the configured one is
// refused unless forced, the refused policy leaves the host as it was,
// and a forced one still waits for the host's robots.txt Crawl-delay.
func TestHostPolicyFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openAt(t, t.TempDir(), adaptivePolicy()) // configured delay 1s
		defer f.Close()
		ctx := t.Context()
		f.Add(ctx, []crawl.Link{link("a", 1), link("a", 2), link("a", 3)})
		fast := crawl.HostPolicy{Delay: ptr(time.Millisecond)}
		err := f.Control(ctx, crawl.Control{Op: crawl.SetHostPolicy, Host: "a", Policy: fast})
		if !errors.Is(err, crawl.ErrBelowFloor) {
			t.Fatalf("Control(delay 1ms, no force) = %v, want ErrBelowFloor", err)
		}
		if info := hostInfo(t, f, "a"); !info.Policy.IsZero() || info.Delay.Gap != time.Second {
			t.Errorf("a refused policy changed the host: %+v", info)
		}
		if err := f.Control(ctx, crawl.Control{Op: crawl.SetHostPolicy, Host: "unknown", Policy: fast}); !errors.Is(err, crawl.ErrBelowFloor) {
			t.Errorf("Control on an unknown host = %v, want ErrBelowFloor", err)
		}
		if err := f.Control(ctx, crawl.Control{Op: crawl.SetHostPolicy, Host: "a", Policy: crawl.HostPolicy{Delay: ptr(time.Second)}}); err != nil {
			t.Errorf("Control(delay at the floor) = %v", err)
		}
		if err := f.Control(ctx, crawl.Control{Op: crawl.SetHostPolicy, Host: "a", Policy: fast, Force: true}); err != nil {
			t.Fatalf("Control(delay 1ms, forced) = %v", err)
		}
		if info := hostInfo(t, f, "a"); info.Delay.Gap != time.Millisecond {
			t.Errorf("forced delay not applied: %+v", info.Delay)
		}
		// The host's robots.txt asks for 3 s: the forced 1 ms gives way.
		l := mustNext(t, f)
		end := time.Now()
		f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Requeue, Requested: true, End: end,
			Robots: &crawl.RobotsState{Status: crawl.RobotsOK, Rules: robots.Parse([]byte("User-agent: *\nCrawl-delay: 3\n")).Group("godwit")}})
		mustNext(t, f)
		if got := time.Since(end); got != 3*time.Second {
			t.Errorf("next lease %v after the exchange, want robots.txt's Crawl-delay of 3s", got)
		}
	})
}

// TestHostsByErrors: "errors" orders hosts by their failed attempts over
// the crawl, not by the current streak (which a success resets), and the
// count survives a restart.
func TestHostsByErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		f := openAt(t, dir, adaptivePolicy())
		ctx := t.Context()
		f.Add(ctx, []crawl.Link{link("a", 1), link("a", 2), link("a", 3), link("b", 1), link("b", 2)})
		outcome := func(class crawl.Class) crawl.Outcome {
			return crawl.Outcome{Disposition: crawl.Done, Requested: true, End: time.Now(), Class: class, Status: 500}
		}
		// a: two failures then a success (streak 0); b: one failure then
		// nothing more (streak 1).
		script := map[string][]crawl.Class{
			"a": {crawl.ClassPermanent, crawl.ClassTransient, crawl.ClassNone},
			"b": {crawl.ClassPermanent, crawl.ClassNone},
		}
		for len(script["a"]) > 0 || len(script["b"]) > 1 {
			l := mustNext(t, f)
			steps := script[l.Task.Host]
			if l.Task.Host == "b" && len(steps) == 1 {
				f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Requeue, Requested: true, End: time.Now().Add(time.Hour)})
				continue
			}
			f.Complete(ctx, l, outcome(steps[0]))
			script[l.Task.Host] = steps[1:]
		}
		f.Close()
		f = openAt(t, dir, adaptivePolicy())
		defer f.Close()
		hosts, err := f.Hosts("errors", 10)
		if err != nil || len(hosts) != 2 {
			t.Fatalf("Hosts(errors) = %+v, %v", hosts, err)
		}
		if hosts[0].Name != "a" || hosts[0].Errors != 2 || hosts[1].Name != "b" || hosts[1].Errors != 1 {
			t.Errorf("Hosts(errors) = %s %d, %s %d; want a 2, b 1", hosts[0].Name, hosts[0].Errors, hosts[1].Name, hosts[1].Errors)
		}
	})
}

package frontier

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

// fakeResolve answers from a table; a name not in it does not resolve.
func fakeResolve(table map[string]string) func(context.Context, string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		a, ok := table[host]
		if !ok {
			return nil, errors.New("no such host")
		}
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
}

func openIP(t testing.TB, delay time.Duration, conc int, ipDelay time.Duration, table map[string]string) *Frontier {
	t.Helper()
	f, err := Open(Options{Dir: t.TempDir(), Policy: politeness.Policy{Delay: delay},
		Resolve: fakeResolve(table), IPConcurrency: conc, IPDelay: ipDelay})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	})
	return f
}

func TestIPKey(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.2":                 "127.0.0.2",
		"::ffff:10.1.2.3":           "10.1.2.3",
		"2001:db8:1:2:3:4:5:6":      "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1":      "2001:db8:1:2::/64",
		"fe80::1%eth0":              "fe80::/64",
		"2001:db8:1:3:3:4:5:6":      "2001:db8:1:3::/64",
		"2001:0db8:0001:0002:0::99": "2001:db8:1:2::/64",
	} {
		if got := IPKey(netip.MustParseAddr(in)); got != want {
			t.Errorf("IPKey(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestIPConcurrencyOne: hosts on one address with an IP concurrency of
// 1 are never leased together, while a host on another address is; a
// host held back says it waits for its IP.
func TestIPConcurrencyOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openIP(t, time.Millisecond, 1, 0, map[string]string{
			"a": "10.0.0.1", "b": "10.0.0.1", "c": "10.0.0.1", "d": "10.0.0.2"})
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("b", 1), link("c", 1), link("d", 1)})
		l1 := mustNext(t, f)
		l2 := mustNext(t, f)
		if l1.Task.Host == "d" || l2.Task.Host != "d" {
			t.Fatalf("leased %s then %s, want one of a, b, c then d", l1.Task.Host, l2.Task.Host)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		if l, err := f.Next(ctx); err == nil {
			t.Fatalf("leased %s while %s, on the same address, is in flight", l.Task.Host, l1.Task.Host)
		}
		for _, h := range []string{"a", "b", "c"} {
			info := hostInfo(t, f, h)
			if info.IPGroup != "10.0.0.1" {
				t.Errorf("host %s: IP group %q, want 10.0.0.1", h, info.IPGroup)
			}
			if h != l1.Task.Host && info.Waiting != politeness.ReasonIP {
				t.Errorf("host %s waits for %q, want %q", h, info.Waiting, politeness.ReasonIP)
			}
		}
		f.Complete(t.Context(), l1, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: time.Now()})
		l3 := mustNext(t, f)
		if l3.Task.Host == l1.Task.Host || l3.Task.Host == "d" {
			t.Errorf("after %s completed, leased %s, want the other host on its address", l1.Task.Host, l3.Task.Host)
		}
	})
}

// TestIPConcurrencyModel runs workers over hosts on two addresses and
// checks, at every lease, the leases out per address against the
// budget; every URL is leased once.
func TestIPConcurrencyModel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		table := map[string]string{}
		var links []crawl.Link
		for i := range 8 {
			h := string(rune('a' + i))
			table[h] = []string{"10.0.0.1", "10.0.0.2"}[i%2]
			for n := range 5 {
				links = append(links, link(h, n))
			}
		}
		const conc = 2
		f := openIP(t, 10*time.Millisecond, conc, 0, table)
		f.Add(t.Context(), links)
		var mu sync.Mutex
		inflight := map[string]int{}
		peak := map[string]int{}
		done := 0
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() {
				for {
					l, err := f.Next(t.Context())
					if errors.Is(err, crawl.ErrExhausted) {
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					ip := table[l.Task.Host]
					mu.Lock()
					inflight[ip]++
					peak[ip] = max(peak[ip], inflight[ip])
					mu.Unlock()
					time.Sleep(25 * time.Millisecond)
					mu.Lock()
					inflight[ip]--
					done++
					mu.Unlock()
					f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: time.Now()})
				}
			})
		}
		wg.Wait()
		for ip, p := range peak {
			if p != conc {
				t.Errorf("address %s: peak %d leases at once, want %d (the budget, reached)", ip, p, conc)
			}
		}
		if done != len(links) {
			t.Errorf("%d URLs fetched, want %d", done, len(links))
		}
	})
}

// TestIPDelay: lease starts to one address are at least IPDelay apart,
// though each host is ready sooner; a host on another address is not
// held back, nor is a host whose name does not resolve.
func TestIPDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openIP(t, time.Second, 0, 3*time.Second, map[string]string{
			"a": "10.0.0.1", "b": "10.0.0.1", "c": "10.0.0.1", "d": "10.0.0.2"})
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("a", 2), link("b", 1), link("c", 1), link("d", 1), link("x", 1)})
		start := time.Now()
		var starts []time.Duration
		other := 0
		for range 6 {
			l := mustNext(t, f)
			f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: time.Now()})
			switch l.Task.Host {
			case "d", "x":
				if got := time.Since(start); got != 0 {
					t.Errorf("host %s leased after %v, want at once", l.Task.Host, got)
				}
				other++
			default:
				starts = append(starts, time.Since(start))
			}
		}
		want := []time.Duration{0, 3 * time.Second, 6 * time.Second, 9 * time.Second}
		if other != 2 || len(starts) != len(want) {
			t.Fatalf("leases on 10.0.0.1 at %v and %d elsewhere", starts, other)
		}
		for i := range want {
			if starts[i] != want[i] {
				t.Errorf("leases on 10.0.0.1 started at %v, want %v", starts, want)
				break
			}
		}
	})
}

// TestIPDelayNoRequest: a lease that sent no request (robots.txt
// disallowed the URL) gives its address's start back.
func TestIPDelayNoRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openIP(t, time.Second, 0, time.Minute, map[string]string{"a": "10.0.0.1", "b": "10.0.0.1"})
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("b", 1)})
		start := time.Now()
		l := mustNext(t, f)
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done, Class: crawl.ClassPolicy})
		mustNext(t, f)
		if got := time.Since(start); got != 0 {
			t.Errorf("address held %v after a lease without a request", got)
		}
	})
}

// TestIPDelayFromFirstByte: a lease whose request reached the server
// late (its answer's first byte came 2s after the lease) holds its
// address IPDelay from that first byte, not from the lease.
func TestIPDelayFromFirstByte(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openIP(t, time.Second, 1, 3*time.Second, map[string]string{"a": "10.0.0.1", "b": "10.0.0.1"})
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("b", 1)})
		start := time.Now()
		l := mustNext(t, f)
		time.Sleep(2 * time.Second)
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done, Requested: true,
			Start: start.Add(time.Second), FirstByte: time.Now(), End: time.Now()})
		mustNext(t, f)
		if got := time.Since(start); got != 5*time.Second {
			t.Errorf("second lease on the address %v after the first, want 5s (3s after its first byte)", got)
		}
	})
}

// TestIPMetrics: a host held back by its address shows in the hosts
// gauge as waiting_ip, and in Stats; the groups are counted.
func TestIPMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openIP(t, time.Millisecond, 1, 0, map[string]string{"a": "10.0.0.1", "b": "10.0.0.1", "c": "10.0.0.2"})
		reg := prometheus.NewPedanticRegistry()
		if err := f.RegisterMetrics(reg); err != nil {
			t.Fatal(err)
		}
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("b", 1), link("c", 1), link("c", 2)})
		mustNext(t, f) // a or b
		mustNext(t, f) // c
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		if l, err := f.Next(ctx); err == nil {
			t.Fatalf("leased %s", l.Task.Host)
		}
		if s := f.Stats(); s.WaitingIP != 1 || s.IPGroups != 2 {
			t.Errorf("Stats() = %+v, want 1 host waiting for its IP and 2 groups", s)
		}
		want := `
# HELP godwit_hosts Hosts by state.
# TYPE godwit_hosts gauge
godwit_hosts{state="active"} 3
godwit_hosts{state="blocked"} 0
godwit_hosts{state="known"} 3
godwit_hosts{state="ready"} 0
godwit_hosts{state="waiting"} 0
godwit_hosts{state="waiting_ip"} 1
# HELP godwit_ip_groups IP addresses (IPv6: /64 prefixes) the active hosts resolved to, each with its IP budget.
# TYPE godwit_ip_groups gauge
godwit_ip_groups 2
# HELP godwit_ip_groups_full IP groups with as many requests in flight as their IP budget allows (cluster mode: as this node's slots of the address allow).
# TYPE godwit_ip_groups_full gauge
godwit_ip_groups_full 2
# HELP godwit_ip_waits_total Times a host ready by its own rules was held back by its IP address's budget.
# TYPE godwit_ip_waits_total counter
godwit_ip_waits_total 1
`
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "godwit_hosts", "godwit_ip_groups",
			"godwit_ip_groups_full", "godwit_ip_waits_total"); err != nil {
			t.Error(err)
		}
		groups := f.IPGroups()
		slices.SortFunc(groups, func(a, b IPGroup) int { return strings.Compare(a.Key, b.Key) })
		if len(groups) != 2 || groups[0] != (IPGroup{Key: "10.0.0.1", Hosts: 2, InFlight: 1, Parked: 1, Limit: 1, Full: true, Waits: 1}) ||
			groups[1] != (IPGroup{Key: "10.0.0.2", Hosts: 1, InFlight: 1, Limit: 1, Full: true}) {
			t.Errorf("IPGroups() = %+v", groups)
		}
		if s := f.IPSummary(); s != (IPSummary{On: true, Concurrency: 1, Groups: 2, Full: 2, Waiting: 1, Waits: 1}) {
			t.Errorf("IPSummary() = %+v", s)
		}
	})
}

// TestNotExhaustedWhileResolving: while one Next resolves the only host,
// another does not report the crawl exhausted; it leases the host once
// its address is known.
func TestNotExhaustedWhileResolving(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		f, err := Open(Options{Dir: t.TempDir(), Policy: politeness.Policy{Delay: time.Millisecond}, IPConcurrency: 1,
			Resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
				<-release
				return nil, errors.New("no such host")
			}})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		f.Add(t.Context(), []crawl.Link{link("a", 1)})
		first := make(chan error, 1)
		go func() {
			_, err := f.Next(t.Context())
			first <- err
		}()
		synctest.Wait() // the first Next is resolving a
		second := make(chan error, 1)
		go func() {
			_, err := f.Next(t.Context())
			second <- err
		}()
		synctest.Wait()
		select {
		case err := <-second:
			t.Fatalf("second Next returned %v while a was being resolved", err)
		default:
		}
		close(release)
		if err := <-first; err != nil {
			t.Errorf("first Next: %v", err)
		}
		synctest.Wait()
		select {
		case err := <-second:
			t.Errorf("second Next returned %v with a leased", err)
		default:
		}
		f.Close()
		<-second
	})
}

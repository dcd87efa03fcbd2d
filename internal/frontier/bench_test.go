package frontier

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/kv"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

func benchLink(host, page int) crawl.Link {
	h := fmt.Sprintf("host%d.example.com", host)
	u := fmt.Sprintf("https://%s/section/%d/article-%d.html", h, page%97, page)
	return crawl.Link{URL: u, Key: u, Host: h, Depth: 1 + page%4, Via: "https://" + h + "/"}
}

// BenchmarkAdd adds batches of 50 links, about 80% of them already seen,
// as a crawl's pages typically produce (navigation repeats on every page).
// The links carry no OPIC cash; BenchmarkAddCash is the same with cash,
// as a crawl in importance order adds them (a link to a queued URL adds
// to its unsaved cash, or moves it up a band: cash.go).
func BenchmarkAdd(b *testing.B) { benchAdd(b, 0) }

func BenchmarkAddCash(b *testing.B) { benchAdd(b, 0.05) }

func benchAdd(b *testing.B, cash float64) {
	f := openTest(b, politeness.Policy{})
	ctx := context.Background()
	const hosts, batch = 1000, 50
	next := 0 // pages 0..next-1 are known
	// The links are built before the timer, a chunk of batches at a
	// time (fmt.Sprintf costs more than Add): the timer measures Add.
	chunk := make([][]crawl.Link, 1024)
	for i := range chunk {
		chunk[i] = make([]crawl.Link, batch)
	}
	build := func() {
		for _, links := range chunk {
			for i := range links {
				if i%5 == 0 || next < batch { // 20% new
					links[i] = benchLink(next%hosts, next)
					next++
				} else {
					p := (next * 7919 * (i + 1)) % next
					links[i] = benchLink(p%hosts, p)
				}
				links[i].Cash = cash
			}
		}
	}
	build()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if n == len(chunk) {
			b.StopTimer()
			build()
			n = 0
			b.StartTimer()
		}
		if _, err := f.Add(ctx, chunk[n]); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "links/s")
	b.ReportMetric(100*f.Stats().BloomFPRate, "bloom-fp-%")
}

// BenchmarkNextComplete leases and completes URLs spread over many hosts,
// one at a time: every operation waits for its own fsync.
func BenchmarkNextComplete(b *testing.B) { benchNextComplete(b, 1, nil) }

// BenchmarkNextCompleteWorkers does the same from 32 goroutines, as a
// crawl's workers do: concurrent operations share fsyncs.
func BenchmarkNextCompleteWorkers(b *testing.B) { benchNextComplete(b, 32, nil) }

// BenchmarkNextCompleteIP is BenchmarkNextCompleteWorkers with an IP
// budget: the 1000 hosts on 10 addresses (100 hosts each). "open" lets
// every lease through (no bound, no delay): the cost of resolving and
// accounting; "bound" allows 2 leases per address, 20 for 32 workers, so
// hosts park in their groups and are released as leases end.
func BenchmarkNextCompleteIP(b *testing.B) {
	resolve := func(_ context.Context, host string) ([]netip.Addr, error) {
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(host, "host"), ".example.com"))
		return []netip.Addr{netip.AddrFrom4([4]byte{10, 0, 0, byte(n % 10)})}, nil
	}
	b.Run("open", func(b *testing.B) {
		benchNextComplete(b, 32, func(o *Options) { o.Resolve = resolve })
	})
	b.Run("bound", func(b *testing.B) {
		benchNextComplete(b, 32, func(o *Options) { o.Resolve, o.IPConcurrency = resolve, 2 })
	})
	// "bound" has at most 20 leases out, and fewer operations share each
	// fsync: this is the same without an IP budget.
	b.Run("20workers", func(b *testing.B) { benchNextComplete(b, 20, nil) })
}

func benchNextComplete(b *testing.B, workers int, opt func(*Options)) {
	var clock atomic.Int64 // nanoseconds; every operation moves it on
	clock.Store(1e18)
	now := func() time.Time { return time.Unix(0, clock.Add(int64(time.Millisecond))) }
	o := Options{Dir: b.TempDir(), Policy: politeness.Policy{Delay: time.Nanosecond}, LeaseTimeout: time.Nanosecond, Now: now}
	if opt != nil {
		opt(&o)
	}
	f, err := Open(o)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	const hosts = 1000
	links := make([]crawl.Link, 0, 1000)
	for i := range b.N + workers {
		links = append(links, benchLink(i%hosts, i))
		if len(links) == cap(links) {
			f.Add(ctx, links)
			links = links[:0]
		}
	}
	f.Add(ctx, links)
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := range workers {
		n := b.N / workers
		if w == 0 {
			n += b.N % workers
		}
		wg.Go(func() {
			for range n {
				l, err := f.Next(ctx)
				if err != nil {
					b.Error(err)
					return
				}
				if err := f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: now()}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkFill queues GODWIT_FILL URLs (default 1M) over 100k hosts and
// reports the Go heap and the store's size on disk per queued URL: memory
// must not grow with the queue. Run the 10M case with
//
//	GODWIT_FILL=10000000 go test -run '^$' -bench Fill -benchtime 1x ./internal/frontier
func BenchmarkFill(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("GODWIT_FILL")); err == nil && v > 0 {
		n = v
	}
	const hosts = 100_000
	for b.Loop() {
		dir := b.TempDir()
		f, err := Open(Options{Dir: dir, ExpectedURLs: uint64(n)})
		if err != nil {
			b.Fatal(err)
		}
		stopProbe := probeMemory(b, f)
		ctx := context.Background()
		links := make([]crawl.Link, 0, 1000)
		var urlBytes int64
		for i := range n {
			l := benchLink(i%hosts, i)
			urlBytes += int64(len(l.URL))
			links = append(links, l)
			if len(links) == cap(links) {
				if _, err := f.Add(ctx, links); err != nil {
					b.Fatal(err)
				}
				links = links[:0]
			}
		}
		f.Add(ctx, links)
		stopProbe()
		runtime.GC()
		if path := os.Getenv("GODWIT_FILL_HEAPPROFILE"); path != "" {
			if hf, err := os.Create(path); err == nil {
				pprof.WriteHeapProfile(hf)
				hf.Close()
			}
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		disk := f.db.DiskBytes()
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
		b.ReportMetric(float64(disk)/float64(n), "disk-B/url")
		b.ReportMetric(float64(int64(disk)-urlBytes)/float64(n), "disk-B/url-beyond-text")
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "links/s")
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// probeMemory samples the process's resident memory while a benchmark
// runs, when GODWIT_FILL_MEM is set, and at the end reports the breakdown
// at the peak: the Go runtime's memory (heap in use, heap free but not
// returned to the system, the rest), the store's memory outside the Go
// heap (block cache, memtables), and what neither accounts for (the C
// allocator's overhead and fragmentation, binaries, stacks).
func probeMemory(b *testing.B, f *Frontier) (stop func()) {
	if os.Getenv("GODWIT_FILL_MEM") == "" {
		return func() {}
	}
	type sample struct {
		rss                        int64
		heapInuse, heapIdle, goSys int64
		goReleased                 int64
		mem                        kv.Memory
		at                         time.Duration
	}
	var peak sample
	start := time.Now()
	take := func() {
		rss := readRSS()
		if rss <= peak.rss {
			return
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = sample{rss: rss, heapInuse: int64(ms.HeapInuse), heapIdle: int64(ms.HeapIdle),
			goSys: int64(ms.Sys), goReleased: int64(ms.HeapReleased), mem: f.db.Memory(), at: time.Since(start)}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				take()
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		take()
		const mib = 1 << 20
		goRes := peak.goSys - peak.goReleased
		pebble := peak.mem.CacheBytes + int64(peak.mem.MemTableBytes)
		b.Logf("peak RSS %.1f MiB at %v: Go %.1f MiB (heap in use %.1f, heap idle unreleased %.1f, other %.1f); "+
			"store %.1f MiB (block cache %.1f, memtables %.1f in %d, %d tables open); unaccounted %.1f MiB",
			float64(peak.rss)/mib, peak.at.Round(time.Second), float64(goRes)/mib, float64(peak.heapInuse)/mib,
			float64(peak.heapIdle-peak.goReleased)/mib, float64(goRes-peak.heapIdle-peak.heapInuse+peak.goReleased)/mib,
			float64(pebble)/mib, float64(peak.mem.CacheBytes)/mib, float64(peak.mem.MemTableBytes)/mib,
			peak.mem.MemTables, peak.mem.Tables, float64(peak.rss-goRes-pebble)/mib)
		m := f.db.Memory()
		b.Logf("at the end: block cache %.1f MiB, memtables %.1f MiB in %d, %d tables open (%d B)",
			float64(m.CacheBytes)/mib, float64(m.MemTableBytes)/mib, m.MemTables, m.Tables, m.FileCacheSize)
	}
}

// readRSS is the process's resident set size in bytes (0 where /proc is
// not there).
func readRSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(b))
	if len(fields) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(fields[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// BenchmarkAddCashNav adds pages of 50 links carrying OPIC cash as a
// site's pages link them: 30 to the site's navigation (the same queued,
// not yet fetched URLs on every page) and 20 new ones. Each link to a
// navigation URL used to rewrite its record; it now adds to its unsaved
// cash (cash.go). Links are built before the timer, 4,096 pages at a
// time, each chunk's 20 links a page new (before, the same 4,096 pages
// repeated, so past 4,096 iterations the "new" links were queued URLs
// met again after 80,000 others).
func BenchmarkAddCashNav(b *testing.B) {
	f := openTest(b, politeness.Policy{})
	ctx := context.Background()
	const hosts, nav, fresh = 100, 30, 20
	pages := make([][]crawl.Link, 4096)
	for p := range pages {
		pages[p] = make([]crawl.Link, 0, nav+fresh)
	}
	next := 0
	build := func() {
		for p := range pages {
			h := p % hosts
			links := pages[p][:0]
			for i := range nav {
				links = append(links, benchLink(h, i))
			}
			for range fresh {
				links = append(links, benchLink(h, nav+next))
				next++
			}
			for i := range links {
				links[i].Cash = 0.02
			}
			pages[p] = links
		}
	}
	build()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == len(pages) {
			b.StopTimer()
			build()
			i = 0
			b.StartTimer()
		}
		if _, err := f.Add(ctx, pages[i]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N*(nav+fresh))/b.Elapsed().Seconds(), "links/s")
}

// BenchmarkApplyOutcome is BenchmarkNextCompleteWorkers as a cluster node
// runs it: a Partial frontier owning every shard, 32 workers leasing, and
// each outcome applied at its shard log's next position (ApplyOutcome),
// one shard's outcomes in order as its log's reader applies them.
// cpu-µs/op is the process's CPU (user+sys, fsyncs included) per outcome.
func BenchmarkApplyOutcome(b *testing.B) {
	var clock atomic.Int64
	clock.Store(1e18)
	now := func() time.Time { return time.Unix(0, clock.Add(int64(time.Millisecond))) }
	f, err := Open(Options{Dir: b.TempDir(), Partial: true, Policy: politeness.Policy{Delay: time.Nanosecond},
		LeaseTimeout: time.Nanosecond, Now: now})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for p := range uint16(Shards) {
		if err := f.SetShard(p, true); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	const hosts, workers = 1000, 32
	links := make([]crawl.Link, 0, 1000)
	for i := range b.N + workers {
		links = append(links, benchLink(i%hosts, i))
		if len(links) == cap(links) {
			f.Add(ctx, links)
			links = links[:0]
		}
	}
	f.Add(ctx, links)
	var shardMu [Shards]sync.Mutex
	var seqs [Shards]uint64
	b.ReportAllocs()
	cpu0 := processCPU()
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := range workers {
		n := b.N / workers
		if w == 0 {
			n += b.N % workers
		}
		wg.Go(func() {
			for range n {
				l, err := f.Next(ctx)
				if err != nil {
					b.Error(err)
					return
				}
				p := shardOf(l.Task.Host)
				shardMu[p].Lock()
				seqs[p]++
				err = f.ApplyOutcome(ctx, l.Task, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: now()},
					crawl.Position{Shard: p, Seq: seqs[p]})
				shardMu[p].Unlock()
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

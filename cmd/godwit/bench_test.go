package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// BenchmarkCrawl is the original whole-crawl benchmark, kept so that its
// numbers stay comparable with the history in docs/benchmarks.md: the full
// pipeline (frontier, robots.txt, fetch over loopback through the fakeweb
// proxy, WARC writing, extraction, discovery) against a 50-host simulated
// web, with a delay small enough that the crawler, not politeness, is the
// bottleneck. pages/s is the number to compare; run with -benchtime=3x.
func BenchmarkCrawl(b *testing.B) {
	cfg := fakeweb.Config{Hosts: 50, PagesPerHost: 200, PageSize: 8 << 10, Seed: 1}
	cfg.Default()
	web, err := fakeweb.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr, done, err := serveFakeweb(ctx, web)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { cancel(); <-done }()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var pages int64
	var elapsed time.Duration
	b.ReportAllocs()
	for b.Loop() {
		web.Reset()
		s := defaultSettings()
		s.Admin = "off"
		s.Data = b.TempDir()
		s.Proxy = "http://" + addr
		s.Delay = time.Millisecond
		s.Workers = 32
		res, err := runCrawl(b.Context(), s, web.Seeds(), log, newTerminal(io.Discard))
		if err != nil {
			b.Fatal(err)
		}
		pages += res.Stats.Pages
		elapsed += res.Stats.Elapsed
	}
	b.ReportMetric(float64(pages)/elapsed.Seconds(), "pages/s")
	b.ReportMetric(float64(pages)/float64(b.N), "pages/op")
}

// benchDelay and benchWorkers are the crawl settings of the throughput
// benchmarks (issue 15): a 1 ms gap per host, 64 workers.
const (
	benchDelay   = time.Millisecond
	benchWorkers = 64
)

// BenchmarkCrawlThroughput crawls fakeweb's "throughput" preset (200 hosts
// × 50 pages of ~15 KB, 20% of hosts with robots rules, sitemaps,
// duplicates, redirects) in-process. Its per-page figures count *unique*
// pages (the pages of fakeweb's ground truth fetched), and its CPU and RSS
// are the whole process's: the simulated web's serving share is in them.
// BenchmarkCrawlBinary measures the crawler alone.
//
//	unique-pages/s  ground-truth pages fetched ÷ wall time of runCrawl
//	cpu-ms/page     process user+sys CPU (getrusage) ÷ unique pages
//	allocs/page     heap allocations (runtime.MemStats) ÷ unique pages
//	B/page          heap bytes allocated ÷ unique pages
//	peak-RSS-MB     VmHWM, reset before each crawl (crawler + fakeweb)
//	violations      fakeweb's politeness and robots violations (must be 0)
//	coverage        fakeweb's coverage of its ground truth (must be 1)
func BenchmarkCrawlThroughput(b *testing.B) {
	cfg, err := fakeweb.Preset("throughput")
	if err != nil {
		b.Fatal(err)
	}
	web, err := fakeweb.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr, done, err := serveFakeweb(ctx, web)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { cancel(); <-done }()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var sum benchSum
	for b.Loop() {
		web.Reset()
		s := defaultSettings()
		s.Admin = "off"
		s.Data = b.TempDir()
		s.Proxy = "http://" + addr
		s.Delay = benchDelay
		s.Workers = benchWorkers
		runtime.GC()
		resetPeakRSS()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		cpu0 := selfCPU()
		start := time.Now()
		if _, err := runCrawl(b.Context(), s, web.Seeds(), log, newTerminal(io.Discard)); err != nil {
			b.Fatal(err)
		}
		wall := time.Since(start)
		cpu := selfCPU() - cpu0
		runtime.ReadMemStats(&m1)
		rep := web.Report(fakeweb.Judge{Delay: benchDelay})
		sum.add(b, rep, wall, cpu, peakRSS(), m1.Mallocs-m0.Mallocs, m1.TotalAlloc-m0.TotalAlloc)
	}
	sum.report(b)
}

// BenchmarkCrawlRequisites measures what page requisites cost: the
// "throughput" web with fakeweb's requisites (every page embeds a
// stylesheet that imports another, two images, two scripts, an icon and,
// through its stylesheet, a background, an image and a font; two of
// them on another host), crawled in-process with --requisites=false and
// with requisites on (the default). cpu-ms/page is per unique page in
// both, so the difference is the requisites' cost per page;
// requisites/op counts the distinct requisites fetched (fakeweb's
// RequisitesFetched).
func BenchmarkCrawlRequisites(b *testing.B) {
	cfg, err := fakeweb.Preset("throughput")
	if err != nil {
		b.Fatal(err)
	}
	cfg.Requisites = true
	web, err := fakeweb.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr, done, err := serveFakeweb(ctx, web)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { cancel(); <-done }()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			var sum benchSum
			requisites := 0
			for b.Loop() {
				web.Reset()
				s := defaultSettings()
				s.Admin = "off"
				s.Data = b.TempDir()
				s.Proxy = "http://" + addr
				s.Delay = benchDelay
				s.Workers = benchWorkers
				s.Requisites = &on
				runtime.GC()
				resetPeakRSS()
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				cpu0 := selfCPU()
				start := time.Now()
				if _, err := runCrawl(b.Context(), s, web.Seeds(), log, newTerminal(io.Discard)); err != nil {
					b.Fatal(err)
				}
				wall := time.Since(start)
				cpu := selfCPU() - cpu0
				runtime.ReadMemStats(&m1)
				rep := web.Report(fakeweb.Judge{Delay: benchDelay})
				sum.add(b, rep, wall, cpu, peakRSS(), m1.Mallocs-m0.Mallocs, m1.TotalAlloc-m0.TotalAlloc)
				requisites += rep.RequisitesFetched
			}
			sum.report(b)
			b.ReportMetric(float64(requisites)/float64(sum.runs), "requisites/op")
		})
	}
}

// BenchmarkCrawlBinary runs the built binary, `godwit crawl`, against
// `godwit fakeweb --preset throughput` in another process, so that the
// CPU time and peak RSS (the child's rusage) are the crawler's own. Set
// GODWIT_BENCH_CRAWLER to another godwit binary (a baseline build) to
// measure that crawler against the same web; the fakeweb process is always
// this tree's build. fakeweb-cpu-ms/page is the simulated web's share.
// benchProcessorArgs adds content processors and page events;
// GODWIT_BENCH_WEB_ARGS adds flags to fakeweb's ("--requisites") and
// GODWIT_BENCH_CRAWL_ARGS to the crawl's ("--requisites=false"). An exec:
// processor's CPU is in the crawler's: the crawler waits for its child,
// and a process's rusage includes its waited-for children's.
func BenchmarkCrawlBinary(b *testing.B) {
	bin := benchBinary(b)
	crawler := bin
	if c := os.Getenv("GODWIT_BENCH_CRAWLER"); c != "" {
		crawler = c
	}
	// Real pages carry far more links than the preset's 8 (Opera's MAMA
	// survey: 38 on average; the Python documentation: ~180): each
	// sub-benchmark sets fakeweb's --links (GODWIT_BENCH_WEB_ARGS may
	// set it again, and wins). cpu-µs/link is all the crawler's CPU over
	// the links it found, pages included; what one more link costs is the
	// slope between two sub-benchmarks (docs/benchmarks.md).
	for _, links := range []int{8, 30, 60} {
		b.Run("links="+strconv.Itoa(links), func(b *testing.B) {
			var sum benchSum
			var webCPU time.Duration
			found := 0
			for b.Loop() {
				dir := b.TempDir()
				seeds := filepath.Join(dir, "seeds.txt")
				addr, stop := startBenchFakeweb(b, bin, append([]string{"--preset", "throughput", "--links", strconv.Itoa(links), "--seeds-out", seeds},
					strings.Fields(os.Getenv("GODWIT_BENCH_WEB_ARGS"))...)...)
				cmd := exec.Command(crawler, "crawl", "--proxy", "http://"+addr, "--seeds", seeds,
					"--delay", benchDelay.String(), "--workers", strconv.Itoa(benchWorkers),
					"--data", filepath.Join(dir, "data"), "--admin", "off")
				cmd.Args = append(cmd.Args, benchProcessorArgs(dir)...)
				cmd.Args = append(cmd.Args, strings.Fields(os.Getenv("GODWIT_BENCH_CRAWL_ARGS"))...)
				cmd.Env = append(os.Environ(), "HTTP_PROXY=", "http_proxy=")
				var out strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &out
				start := time.Now()
				if err := cmd.Run(); err != nil {
					stop()
					b.Fatalf("godwit crawl: %v\n%s", err, out.String())
				}
				wall := time.Since(start)
				ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
				rep := fetchBenchReport(b, addr)
				webCPU += stop()
				sum.add(b, rep, wall, rusageCPU(ru), uint64(ru.Maxrss)<<10, 0, 0)
				found += linksFound(b, out.String())
			}
			sum.report(b)
			b.ReportMetric(float64(webCPU.Microseconds())/1e3/float64(sum.unique), "fakeweb-cpu-ms/page")
			b.ReportMetric(float64(sum.cpu.Nanoseconds())/1e3/float64(found), "cpu-µs/link")
			b.ReportMetric(float64(found)/float64(sum.runs), "links/op")
		})
	}
}

// linksFound reads the links a crawl found (outlinks and redirect
// targets considered) from its summary: "links N found, …".
func linksFound(b *testing.B, summary string) int {
	b.Helper()
	for line := range strings.SplitSeq(summary, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "links" && f[2] == "found," {
			n, err := strconv.Atoi(f[1])
			if err == nil {
				return n
			}
		}
	}
	b.Fatalf("no links line in the crawl's summary:\n%s", summary)
	return 0
}

// benchProcessorArgs are the processor and events flags the environment
// asks BenchmarkCrawlBinary to add: GODWIT_BENCH_PROCESSORS, processor
// specs separated by ";" ("structured;exec:python3 x.py"), and
// GODWIT_BENCH_EVENTS=1, page events to a file in dir.
func benchProcessorArgs(dir string) []string {
	var args []string
	for spec := range strings.SplitSeq(os.Getenv("GODWIT_BENCH_PROCESSORS"), ";") {
		if spec = strings.TrimSpace(spec); spec != "" {
			args = append(args, "--processor", spec)
		}
	}
	if os.Getenv("GODWIT_BENCH_EVENTS") == "1" {
		args = append(args, "--events", "jsonl:"+filepath.Join(dir, "events.jsonl"))
	}
	return args
}

// benchSum adds up the runs of a whole-crawl benchmark.
type benchSum struct {
	unique        int
	wall, cpu     time.Duration
	rss           uint64
	allocs, bytes uint64
	violations    int
	coverage      float64
	runs          int
}

func (s *benchSum) add(b *testing.B, rep fakeweb.Report, wall, cpu time.Duration, rss, allocs, bytes uint64) {
	b.Helper()
	s.runs++
	s.unique += rep.Covered
	s.wall += wall
	s.cpu += cpu
	s.rss = max(s.rss, rss)
	s.allocs += allocs
	s.bytes += bytes
	s.violations += rep.ConcurrencyViolations + rep.GapViolations + rep.DisallowedRequests +
		rep.BeforeRobots + rep.UnavailableHostRequests + rep.RetryAfterViolations
	s.coverage = min(s.coverage, rep.Coverage)
	if s.runs == 1 {
		s.coverage = rep.Coverage
	}
	if rep.Covered == 0 {
		b.Fatalf("the crawl fetched no page of the ground truth:\n%s", rep)
	}
}

func (s *benchSum) report(b *testing.B) {
	b.ReportMetric(float64(s.unique)/s.wall.Seconds(), "unique-pages/s")
	b.ReportMetric(float64(s.cpu.Microseconds())/1e3/float64(s.unique), "cpu-ms/page")
	if s.allocs > 0 {
		b.ReportMetric(float64(s.allocs)/float64(s.unique), "allocs/page")
		b.ReportMetric(float64(s.bytes)/float64(s.unique), "B/page")
	}
	b.ReportMetric(float64(s.rss)/(1<<20), "peak-RSS-MB")
	b.ReportMetric(float64(s.violations), "violations")
	b.ReportMetric(s.coverage, "coverage")
	b.ReportMetric(float64(s.unique)/float64(s.runs), "pages/op")
}

// selfCPU is the process's user+sys CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return rusageCPU(&ru)
}

func rusageCPU(ru *syscall.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resetPeakRSS resets the kernel's high-water mark of the process's RSS
// (Linux: writing 5 to clear_refs), so that peakRSS measures one crawl.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is VmHWM in bytes, or 0 where /proc is not there.
func peakRSS() uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

var (
	benchBinOnce sync.Once
	benchBinPath string
	benchBinErr  error
)

// benchBinary builds this tree's godwit once per test process.
func benchBinary(b *testing.B) string {
	b.Helper()
	benchBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "godwit-bench-")
		if err != nil {
			benchBinErr = err
			return
		}
		benchBinPath = filepath.Join(dir, "godwit")
		if out, err := exec.Command("go", "build", "-o", benchBinPath, ".").CombinedOutput(); err != nil {
			benchBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if benchBinErr != nil {
		b.Fatal(benchBinErr)
	}
	return benchBinPath
}

// startBenchFakeweb runs `godwit fakeweb` and returns its address and a
// function that stops it and returns the CPU time it used.
func startBenchFakeweb(b *testing.B, bin string, args ...string) (addr string, stop func() time.Duration) {
	b.Helper()
	cmd := exec.Command(bin, append([]string{"fakeweb", "--listen", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	stop = func() time.Duration {
		cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); err != nil {
			b.Errorf("godwit fakeweb exited with %v", err)
			return 0
		}
		return rusageCPU(cmd.ProcessState.SysUsage().(*syscall.Rusage))
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		stop()
		b.Fatal("godwit fakeweb printed nothing")
	}
	addr, ok := strings.CutPrefix(sc.Text(), "fakeweb listening on http://")
	if !ok {
		stop()
		b.Fatalf("unexpected first line %q", sc.Text())
	}
	go func() { // drain the rest so the process never blocks on its stdout; ends with the process
		for sc.Scan() {
		}
	}()
	return addr, stop
}

func fetchBenchReport(b *testing.B, addr string) fakeweb.Report {
	b.Helper()
	resp, err := http.Get("http://" + addr + "/_fakeweb/report?delay=" + benchDelay.String())
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var r fakeweb.Report
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkCrawlTransport crawls one web three ways (issue 25): through
// fakeweb as a plain-HTTP forward proxy (the path of most end-to-end
// tests), and served directly over HTTPS on three loopback addresses
// (--resolve, --ca-cert), once with HTTP/1.1 only and once with HTTP/2
// (--http2 auto). CPU is the whole process's (fakeweb's serving and TLS
// included), per page. Run the three in one invocation and compare
// ratios: -bench CrawlTransport -benchtime=2x -count=3.
func BenchmarkCrawlTransport(b *testing.B) {
	for _, mode := range []string{"proxy", "https-h1", "https-h2"} {
		b.Run(mode, func(b *testing.B) {
			cfg := fakeweb.Config{Hosts: 30, PagesPerHost: 100, PageSize: 8 << 10, Seed: 1, HTTPS: mode != "proxy"}
			web, err := fakeweb.New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer web.Close()
			s := defaultSettings()
			s.Admin = "off"
			s.Delay = time.Millisecond
			s.Workers = 32
			if mode == "proxy" {
				ctx, cancel := context.WithCancel(context.Background())
				addr, done, err := serveFakeweb(ctx, web)
				if err != nil {
					b.Fatal(err)
				}
				defer func() { cancel(); <-done }()
				s.Proxy = "http://" + addr
			} else {
				s.Resolve, s.CACert = startDirectWeb(b, web, []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"})
				s.AllowPrivate = true
				if mode == "https-h2" {
					s.HTTP2 = "auto"
				}
			}
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			var pages int64
			var elapsed, cpu time.Duration
			for b.Loop() {
				web.Reset()
				s.Data = b.TempDir()
				before := selfCPU()
				res, err := runCrawl(b.Context(), s, web.Seeds(), log, newTerminal(io.Discard))
				if err != nil {
					b.Fatal(err)
				}
				cpu += selfCPU() - before
				pages += res.Stats.Pages
				elapsed += res.Stats.Elapsed
			}
			b.ReportMetric(float64(pages)/elapsed.Seconds(), "pages/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(pages), "cpu-µs/page")
			b.ReportMetric(float64(pages)/float64(b.N), "pages/op")
		})
	}
}

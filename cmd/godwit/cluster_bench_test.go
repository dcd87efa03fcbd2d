package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/godwit-crawler/godwit/internal/cluster"
	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/shard"
	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// BenchmarkCluster crawls the throughput web (fakeweb's "throughput"
// preset, 14,400 pages, --delay 1ms: the crawlers' CPU, not politeness,
// bounds the rate) with 1, 2 and 3 `godwit crawl --cluster` processes on
// one `godwit nats`, seeds given to the first node, and, as the
// baseline, with one single-node `godwit crawl` (sub-benchmark
// "single"). Every process is this tree's binary; each run has its own
// NATS server and simulated web. Every node runs with --workers 64, like
// the single-node crawl.
//
// The time measured is from the start of the crawler processes to the
// first report of fakeweb that says coverage 1.0 (the single-node run is
// timed the same way; a cluster's end check, which takes a few lease TTLs
// more, is left out as it fetches nothing); then the
// nodes are stopped with SIGINT and their CPU is their rusage once they
// exited (start-up, shard handover and the stop included). Afterwards the
// benchmark reads every event of the crawl's streams back from NATS.
//
//	unique-pages/s   ground-truth pages fetched ÷ time to coverage 1.0
//	fetching-pages/s the same ÷ the time from fakeweb's first request to
//	                 coverage 1.0 (start-up left out; the log line says how long it was)
//	cpu-ms/page      all crawler processes' user+sys CPU ÷ unique pages
//	nats-cpu-ms/page the NATS server's CPU ÷ unique pages
//	fakeweb-cpu-ms/page the simulated web's CPU ÷ unique pages
//	machine-busy-%   the machine's CPUs' busy share (/proc/stat) from the
//	                 start to coverage, whoever used them: near 100, the
//	                 crawl was bound by CPU
//	peak-RSS-MB      the largest crawler process's peak RSS
//	link-msgs/s      link events (one JetStream message each) ÷ time to coverage
//	links/msg        links per link event
//	B/link           link events' bytes (as stored: encoded, compressed) ÷ links
//	cross-shard-%    links whose host's shard is not the shard of the page
//	                 that had them (every link goes through the log,
//	                 whichever node owns its shard)
//	log-msgs/page    every event ever appended to the streams (links,
//	                 outcomes, claims; their last sequence numbers) ÷ unique pages
//	B/msg            bytes per event of those the streams still keep (shard
//	                 snapshots cut the logs, at handovers too; the kept
//	                 ones are the sample for B/link, links/msg and cross-shard-%)
//	coverage, violations, duplicates   fakeweb's report (coverage must be 1,
//	                 violations 0, or the run fails: a faster, less polite
//	                 crawl does not count)
//
// GODWIT_BENCH_CRAWLER set to another godwit binary (a baseline build)
// runs the crawlers and the NATS server from it; the simulated web is
// always this tree's.
//
// It runs against real processes, so it is skipped under -race.
func BenchmarkCluster(b *testing.B) {
	if raceEnabled {
		b.Skip("the cluster benchmark runs without -race: its work is in other processes")
	}
	bin := benchBinary(b)
	crawler := bin // the nodes', the NATS server's and the single crawl's
	if c := os.Getenv("GODWIT_BENCH_CRAWLER"); c != "" {
		crawler = c
	}
	b.Run("single", func(b *testing.B) { benchClusterCrawl(b, bin, crawler, 0) })
	for n := 1; n <= 3; n++ {
		b.Run("nodes="+strconv.Itoa(n), func(b *testing.B) { benchClusterCrawl(b, bin, crawler, n) })
	}
}

// clusterBenchSum adds up the runs of one sub-benchmark of BenchmarkCluster.
type clusterBenchSum struct {
	runs, unique, duplicates, violations int
	coverage                             float64
	wall, fetching                       time.Duration // to coverage 1.0: from the start, from the first request
	cpu, natsCPU, webCPU                 time.Duration
	busy                                 float64 // the machine's busy share of its CPUs to coverage, summed over runs
	rss                                  int64
	log                                  logStats
}

// benchClusterCrawl runs the crawl with nodes cluster nodes, or the
// single-node crawl when nodes is 0, b.N times and reports the metrics.
func benchClusterCrawl(b *testing.B, webBin, bin string, nodes int) {
	var sum clusterBenchSum
	for b.Loop() {
		dir := b.TempDir()
		seeds := filepath.Join(dir, "seeds.txt")
		web, stopWeb := startBenchFakeweb(b, webBin, "--preset", "throughput", "--seeds-out", seeds)
		var natsURL string
		var nats *benchProcess
		if nodes > 0 {
			nats, natsURL = startBenchNATS(b, bin, dir)
		}
		common := []string{"--proxy", "http://" + web, "--allow-private",
			"--delay", benchDelay.String(), "--workers", strconv.Itoa(benchWorkers), "--admin", "off"}
		var procs []*benchProcess
		busy0, total0 := machineCPU()
		start := time.Now()
		if nodes == 0 {
			args := append([]string{"crawl", "--seeds", seeds, "--data", filepath.Join(dir, "data")}, common...)
			procs = append(procs, startBenchProcess(b, bin, filepath.Join(dir, "crawl.log"), args...))
		}
		for i := 1; i <= nodes; i++ {
			node := "n" + strconv.Itoa(i)
			args := append([]string{"crawl", "--cluster", natsURL, "--crawl", "bench", "--node", node,
				"--data", filepath.Join(dir, node)}, common...)
			if i == 1 {
				args = append(args, "--seeds", seeds)
			}
			procs = append(procs, startBenchProcess(b, bin, filepath.Join(dir, node+".log"), args...))
		}
		waitBenchCovered(b, web, procs)
		wall := time.Since(start)
		busy1, total1 := machineCPU()
		first := firstRequest(b, web)
		for _, p := range procs {
			p.cmd.Process.Signal(syscall.SIGINT) // an error: it has ended by itself
		}
		var fetched []int
		for i, p := range procs {
			ru, err := p.wait(2 * time.Minute)
			if err != nil {
				b.Fatalf("crawler %d: %v\n%s", i+1, err, p.logTail())
			}
			sum.cpu += rusageCPU(ru)
			sum.rss = max(sum.rss, ru.Maxrss<<10)
			fetched = append(fetched, p.pagesFetched())
		}
		rep := fetchBenchReport(b, web)
		sum.webCPU += stopWeb()
		if nodes > 0 {
			sum.log.add(readCrawlLog(b, natsURL, "bench"))
			ru, err := nats.stop(time.Minute)
			if err != nil {
				b.Fatalf("godwit nats: %v\n%s", err, nats.logTail())
			}
			sum.natsCPU += rusageCPU(ru)
		}
		violations := rep.ConcurrencyViolations + rep.GapViolations + rep.DisallowedRequests +
			rep.BeforeRobots + rep.UnavailableHostRequests + rep.RetryAfterViolations
		if rep.Coverage != 1 || violations != 0 {
			b.Fatalf("coverage %.3f, %d violations (want 1 and 0):\n%s", rep.Coverage, violations, rep)
		}
		if rep.Duplicates > 0 {
			for i, p := range procs {
				if lines := p.shardTrouble(); len(lines) > 0 {
					b.Logf("%d duplicate fetches; crawler %d's log tells of shard trouble (%d lines), first: %s",
						rep.Duplicates, i+1, len(lines), lines[0])
				}
			}
		}
		sum.runs++
		sum.unique += rep.Covered
		sum.duplicates += rep.Duplicates
		sum.violations += violations
		sum.coverage = rep.Coverage
		sum.wall += wall
		sum.fetching += wall - first.Sub(start)
		if total1 > total0 {
			sum.busy += float64(busy1-busy0) / float64(total1-total0)
		}
		b.Logf("covered in %.1fs, the first request %.2fs after the start; pages fetched by each crawler %v",
			wall.Seconds(), first.Sub(start).Seconds(), fetched)
	}
	pages := float64(sum.unique)
	b.ReportMetric(pages/sum.wall.Seconds(), "unique-pages/s")
	b.ReportMetric(pages/sum.fetching.Seconds(), "fetching-pages/s")
	b.ReportMetric(float64(sum.cpu.Microseconds())/1e3/pages, "cpu-ms/page")
	b.ReportMetric(float64(sum.webCPU.Microseconds())/1e3/pages, "fakeweb-cpu-ms/page")
	b.ReportMetric(100*sum.busy/float64(sum.runs), "machine-busy-%")
	b.ReportMetric(float64(sum.rss)/(1<<20), "peak-RSS-MB")
	if nodes > 0 {
		l := sum.log
		b.ReportMetric(float64(sum.natsCPU.Microseconds())/1e3/pages, "nats-cpu-ms/page")
		b.ReportMetric(float64(l.linkMsgs)/sum.wall.Seconds(), "link-msgs/s")
		b.ReportMetric(float64(l.links)/float64(l.linkMsgs), "links/msg")
		b.ReportMetric(float64(l.carried)/float64(l.msgs), "carried-links/msg")
		b.ReportMetric(float64(l.linkBytes)/float64(l.links), "B/link")
		b.ReportMetric(100*float64(l.crossShard)/float64(l.links), "cross-shard-%")
		b.ReportMetric(float64(l.appended)/pages, "log-msgs/page")
		b.ReportMetric(float64(l.bytes)/float64(l.msgs), "B/msg")
	}
	b.ReportMetric(sum.coverage, "coverage")
	b.ReportMetric(float64(sum.violations), "violations")
	b.ReportMetric(float64(sum.duplicates)/float64(sum.runs), "duplicates")
	b.ReportMetric(pages/float64(sum.runs), "pages/op")
}

// machineCPU is the machine's busy and total CPU time so far, in clock
// ticks (the first line of /proc/stat; busy is all but idle and iowait),
// or zeros where /proc is not there.
func machineCPU() (busy, total uint64) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line)
	if len(fields) < 6 || fields[0] != "cpu" {
		return 0, 0
	}
	for i, f := range fields[1:] {
		v, _ := strconv.ParseUint(f, 10, 64)
		total += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	return busy, total
}

// firstRequest is when fakeweb received its first request.
func firstRequest(b *testing.B, web string) time.Time {
	b.Helper()
	resp, err := http.Get("http://" + web + "/_fakeweb/requests")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var rs []fakeweb.Request
	if err := json.NewDecoder(resp.Body).Decode(&rs); err != nil {
		b.Fatal(err)
	}
	if len(rs) == 0 {
		b.Fatal("fakeweb has no request")
	}
	first := rs[0].Start
	for _, r := range rs {
		if r.Start.Before(first) {
			first = r.Start
		}
	}
	return first
}

// waitBenchCovered polls fakeweb until its report says coverage 1.0.
func waitBenchCovered(b *testing.B, web string, procs []*benchProcess) {
	b.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		r := fetchBenchReport(b, web)
		if r.Coverage == 1 {
			return
		}
		for i, p := range procs {
			if !p.running() {
				b.Fatalf("crawler %d ended at coverage %.3f:\n%s", i+1, r.Coverage, p.logTail())
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("coverage %.3f after 3 minutes:\n%s", r.Coverage, procs[0].logTail())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// logStats counts the events of a crawl's streams.
type logStats struct {
	msgs, bytes                int // kept in the streams
	appended                   int // ever appended
	linkMsgs, links, linkBytes int // links events
	carried                    int // links in outcome events
	crossShard                 int
}

func (s *logStats) add(o logStats) {
	s.msgs += o.msgs
	s.appended += o.appended
	s.bytes += o.bytes
	s.linkMsgs += o.linkMsgs
	s.links += o.links
	s.carried += o.carried
	s.linkBytes += o.linkBytes
	s.crossShard += o.crossShard
}

// readCrawlLog reads every event of crawl's streams from the NATS server
// at natsURL and counts them.
func readCrawlLog(b *testing.B, natsURL, crawl string) logStats {
	b.Helper()
	ctx, cancel := context.WithTimeout(b.Context(), 2*time.Minute)
	defer cancel()
	codec, err := cluster.NewCodec()
	if err != nil {
		b.Fatal(err)
	}
	defer codec.Close()
	var s logStats
	crawlStreams(b, ctx, natsURL, crawl, func(i int, stream natsjs.Stream) {
		left := int(stream.CachedInfo().State.Msgs) // the nodes have stopped: no more will come
		s.appended += int(stream.CachedInfo().State.LastSeq)
		if left == 0 {
			return
		}
		cons, err := stream.OrderedConsumer(ctx, natsjs.OrderedConsumerConfig{})
		if err != nil {
			b.Fatal(err)
		}
		for left > 0 {
			batch, err := cons.Fetch(min(left, 1000), natsjs.FetchMaxWait(10*time.Second))
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for m := range batch.Messages() {
				n++
				s.count(b, codec, m.Data())
			}
			if err := batch.Error(); err != nil {
				b.Fatalf("reading stream %d: %v", i, err)
			}
			if n == 0 {
				b.Fatalf("stream %d: no message in 10 s, %d left", i, left)
			}
			left -= n
		}
	})
	return s
}

// count adds one event to s.
func (s *logStats) count(b *testing.B, codec *cluster.Codec, data []byte) {
	e, err := codec.Decode(data)
	if err != nil {
		b.Fatalf("an event of the log: %v", err)
	}
	s.msgs++
	s.bytes += len(data)
	switch e.Kind {
	case cluster.KindOutcome:
		s.carried += len(e.Links) // the page's links to its own shard
		return
	case cluster.KindLinks:
	default:
		return
	}
	s.linkMsgs++
	s.linkBytes += len(data)
	s.links += len(e.Links)
	for _, l := range e.Links {
		if u, err := url.Parse(l.Via); err == nil && l.Via != "" &&
			shard.Of(urlnorm.Host(u), cluster.DefaultShards) != e.Shard {
			s.crossShard++
		}
	}
}

// benchProcess is a godwit process of a benchmark, its output in a file.
type benchProcess struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error // cmd.Wait's, once done is closed
}

// startBenchProcess runs bin with args, its stdout and stderr to logPath.
func startBenchProcess(b *testing.B, bin, logPath string, args ...string) *benchProcess {
	b.Helper()
	f, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	p := &benchProcess{cmd: exec.Command(bin, args...), log: logPath, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = f, f
	p.cmd.Env = append(os.Environ(), "HTTP_PROXY=", "http_proxy=")
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	b.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// startBenchNATS runs `godwit nats` with its store under dir and returns
// it and its client URL.
func startBenchNATS(b *testing.B, bin, dir string) (*benchProcess, string) {
	b.Helper()
	p := &benchProcess{cmd: exec.Command(bin, "nats", "--listen", "127.0.0.1:0", "--log-level", "warn",
		"--data", filepath.Join(dir, "nats")), log: filepath.Join(dir, "nats.log"), done: make(chan struct{})}
	f, err := os.Create(p.log)
	if err != nil {
		b.Fatal(err)
	}
	p.cmd.Stderr = f
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	sc := bufio.NewScanner(stdout)
	first := ""
	if sc.Scan() {
		first = sc.Text()
	}
	go func() {
		for sc.Scan() { // drain, so the server never blocks on its stdout
		}
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	b.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	u, ok := strings.CutPrefix(first, "nats listening on ")
	if !ok {
		b.Fatalf("godwit nats: first line %q", first)
	}
	return p, u
}

func (p *benchProcess) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// wait waits up to d for the process to exit and returns its rusage; an
// exit status other than 0 is an error.
func (p *benchProcess) wait(d time.Duration) (*syscall.Rusage, error) {
	select {
	case <-p.done:
	case <-time.After(d):
		return nil, fmt.Errorf("still running after %v", d)
	}
	if p.err != nil {
		return nil, p.err
	}
	return p.cmd.ProcessState.SysUsage().(*syscall.Rusage), nil
}

// stop interrupts the process and waits up to d for it to exit.
func (p *benchProcess) stop(d time.Duration) (*syscall.Rusage, error) {
	p.cmd.Process.Signal(syscall.SIGINT)
	return p.wait(d)
}

// pagesFetched is the page count of the crawl summary the process
// printed when it stopped, -1 if none.
func (p *benchProcess) pagesFetched() int {
	data, _ := os.ReadFile(p.log)
	m := summaryPages.FindSubmatch(data)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

var summaryPages = regexp.MustCompile(`(?m)^\s*pages\s+(\d+) fetched`)

// logTail is the end of the process's output, for a failure message.
func (p *benchProcess) logTail() string {
	data, _ := os.ReadFile(p.log)
	return tail(string(data), 4096)
}

// shardTrouble is the lines of p's log that tell of a shard suspended,
// lost or fenced: what makes a cluster fetch a page twice.
func (p *benchProcess) shardTrouble() []string {
	data, _ := os.ReadFile(p.log)
	var out []string
	for line := range strings.Lines(string(data)) {
		if strings.Contains(line, "shard") && (strings.Contains(line, "suspended") ||
			strings.Contains(line, "lost") || strings.Contains(line, "fenced")) {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

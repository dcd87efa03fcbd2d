package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/blobtest"
	"github.com/godwit-crawler/godwit/internal/cluster"
	"github.com/godwit-crawler/godwit/internal/cluster/jetstream"
	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/shard"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// startNATS runs a `godwit nats` server for a test and returns its
// client URL.
func startNATS(t *testing.T) string {
	t.Helper()
	return startNATSBinary(t, "nats", "--data", t.TempDir()).url
}

// clusterTest skips a cluster test under the race detector: its work
// is in other processes, so it runs once, in the plain run (and, not
// named Binary, not again in CI's e2e step).
func clusterTest(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("cluster tests run without -race: their work is in other processes")
	}
}

// clusterWeb serves a fakeweb for a cluster test and writes its seeds.
func clusterWeb(t *testing.T, hosts int) (addr, seeds string) {
	t.Helper()
	seeds = filepath.Join(t.TempDir(), "seeds.txt")
	addr = startFakewebBinary(t, "--hosts", strconv.Itoa(hosts), "--pages", "12", "--crawl-delay", "100ms", "--seeds-out", seeds)
	return addr, seeds
}

// clusterArgs are the flags of a cluster node n of crawl name.
func clusterArgs(nats, name, node, data, web string) []string {
	return []string{"--cluster", nats, "--crawl", name, "--node", node, "--data", data,
		"--proxy", "http://" + web, "--allow-private", "--delay", "20ms", "--workers", "8",
		"--admin", "off", "--cluster-ttl", "3s", "--timeout", "5s"}
}

// clusterNodes describes the crawler nodes a cluster test starts.
type clusterNodes struct {
	nats, crawl, web, seeds string
	env                     []string // added to the nodes' environment
	extra                   []string // flags added to clusterArgs
}

// start runs n nodes n1…nN of the crawl, each with a data directory of
// its own; the first is given the seeds. It returns the nodes and their
// data directories.
func (c clusterNodes) start(t *testing.T, n int) ([]*crawlProcess, []string) {
	t.Helper()
	var nodes []*crawlProcess
	var dirs []string
	for i := 1; i <= n; i++ {
		data := filepath.Join(t.TempDir(), "d")
		args := append(clusterArgs(c.nats, c.crawl, "n"+strconv.Itoa(i), data, c.web), c.extra...)
		if i == 1 {
			args = append(args, "--seeds", c.seeds)
		}
		nodes = append(nodes, startCrawlBinaryEnv(t, c.env, args...))
		dirs = append(dirs, data)
	}
	return nodes, dirs
}

// waitCovered polls fakeweb until the crawl covered the whole web.
func waitCovered(t *testing.T, web string, nodes ...*crawlProcess) fakeweb.Report {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		r := fetchReport(t, web, "20ms")
		if r.Coverage == 1 {
			return r
		}
		for i, p := range nodes {
			if p != nil && !p.running() {
				t.Fatalf("node %d ended before the web was covered (%.3f):\nstdout:\n%s\nstderr:\n%s", i+1, r.Coverage, &p.stdout, &p.stderr)
			}
		}
		if time.Now().After(deadline) {
			for i, p := range nodes {
				if p != nil {
					t.Logf("node %d stderr (last 4 KB):\n%s", i+1, tail(p.stderr.String(), 4096))
				}
			}
			t.Fatalf("coverage %.3f after 2 minutes; missing %v", r.Coverage, r.Missing)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitEnded waits for the nodes to end by themselves, the crawl over:
// each exits 0 and says so.
func waitEnded(t *testing.T, web string, within time.Duration, nodes ...*crawlProcess) {
	t.Helper()
	deadline := time.After(within)
	for i, p := range nodes {
		select {
		case <-p.done:
		case <-deadline:
			r := fetchReport(t, web, "20ms")
			dumpNodes(t, nodes...)
			t.Fatalf("node %d still running %v after the crawl started (coverage %.3f, missing %v)", i+1, within, r.Coverage, r.Missing)
		}
		if p.code != 0 || !strings.Contains(p.stdout.String(), "finished in") ||
			!strings.Contains(p.stderr.String(), "the cluster crawl is over") {
			t.Errorf("node %d exited with %d:\nstdout:\n%s\nstderr (last 4 KB):\n%s", i+1, p.code, &p.stdout, tail(p.stderr.String(), 4096))
		}
	}
}

// stopNodes interrupts the nodes and checks each stops cleanly.
func stopNodes(t *testing.T, nodes ...*crawlProcess) {
	t.Helper()
	for _, p := range nodes {
		p.cmd.Process.Signal(syscall.SIGINT)
	}
	for i, p := range nodes {
		if code := p.wait(t); code != 0 {
			t.Errorf("node %d exited with %d:\n%s", i+1, code, &p.stderr)
		}
	}
}

// warcFiles lists the WARC files a node wrote.
func warcFiles(t *testing.T, data string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(data, "warc", "*.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestClusterCrawl: three crawler processes on one NATS server crawl
// a 60-host web as one crawler, judged by the web: every page fetched,
// once, by whichever node owns its host, with no politeness or robots.txt
// violation across the cluster; the seeds were given to one node only.
// The crawl ends on every node by itself once the web is covered.
func TestClusterCrawl(t *testing.T) {
	clusterTest(t)
	nats := startNATS(t)
	web, seeds := clusterWeb(t, 60)
	// Snapshots every 10 events of a shard (to the crawl's JetStream
	// object store: no --store) cut the logs.
	nodes, dirs := clusterNodes{nats: nats, crawl: "c1", web: web, seeds: seeds,
		extra: []string{"--cluster-snapshot-events", "10"}}.start(t, 3)
	// The crawl ends by itself once every node is idle: not before the
	// web is covered, and not long after.
	waitEnded(t, web, 2*time.Minute, nodes...)
	r := fetchReport(t, web, "20ms")
	checkReport(t, r)
	st := clusterStatus(t, nats, "c1")
	if st.Done == nil || st.Log.Appended == 0 {
		t.Errorf("after the crawl: done %v, log %+v; want the crawl done", st.Done, st.Log)
	}
	// Each shard's log keeps at most the events since its last snapshot
	// (fewer than 10, plus those applied while it was being saved), its
	// last outcome and its owners' claims. Uncut, the shards that have
	// hosts hold ~40 events each.
	for p, n := range shardLogSizes(t, nats, "c1") {
		if n > 2*10+5 {
			t.Errorf("shard %d's log keeps %d events; want snapshots to cut it (log %+v)", p, n, st.Log)
		}
	}
	for i, d := range dirs {
		if len(warcFiles(t, d)) == 0 {
			t.Errorf("node %d wrote no WARC file:\n%s", i+1, &nodes[i].stderr)
		}
	}
	// A healthy run warns of nothing (a replay of a page another node
	// fetched used to: its WARC file is not here).
	for i, p := range nodes {
		for line := range strings.Lines(p.stderr.String()) {
			if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
				t.Errorf("node %d: %s", i+1, line)
			}
		}
	}
	// The status's totals are the crawl's, as the web counts them, with
	// every node gone.
	if st.Totals.Requests != int64(r.Requests) || st.Totals.Nodes != 3 || len(st.Nodes) != 0 {
		t.Errorf("after the end: totals %+v on %d live nodes; want fakeweb's %d requests by 3 nodes", st.Totals, len(st.Nodes), r.Requests)
	}
	// A node started again on a finished crawl has nothing to do.
	again := startCrawlBinary(t, clusterArgs(nats, "c1", "n2", dirs[1], web)...)
	waitEnded(t, web, 30*time.Second, again)
	if n := fetchReport(t, web, "20ms").Requests; n != r.Requests {
		t.Errorf("a node joining the finished crawl made %d requests", n-r.Requests)
	}
	if n := clusterStatus(t, nats, "c1").Totals.Requests; n != int64(r.Requests) {
		t.Errorf("after a node started again on the finished crawl: %d requests in the totals, want %d", n, r.Requests)
	}
}

// TestClusterNodeKilled: a node SIGKILLed mid-crawl loses nothing:
// its shards move to the survivors within the lease TTL and the crawl
// covers the web, politely; the only pages fetched twice are those in
// flight at the kill (at most its workers).
func TestClusterNodeKilled(t *testing.T) {
	clusterTest(t)
	nats := startNATS(t)
	web, seeds := clusterWeb(t, 60)
	// WARC files and shard snapshots (every 10 events of a shard) go to
	// an S3 API server.
	s3 := blobtest.New(t, "godwit-cluster")
	nodes, _ := clusterNodes{nats: nats, crawl: "c2", web: web, seeds: seeds, env: s3.Env(),
		extra: []string{"--cluster-snapshot-events", "10", "--store", "s3://godwit-cluster/c2/", "--store-path-style", "--store-crawl", "c2"}}.start(t, 3)
	deadline := time.Now().Add(time.Minute)
	for r := fetchReport(t, web, "20ms"); r.Coverage < 0.3; r = fetchReport(t, web, "20ms") {
		if time.Now().After(deadline) {
			t.Fatalf("coverage %.3f after a minute", r.Coverage)
		}
		time.Sleep(100 * time.Millisecond)
	}
	nodes[1].cmd.Process.Signal(syscall.SIGKILL)
	nodes[1].wait(t)
	killedAt := time.Now()
	waitCovered(t, web, nodes[0], nodes[2])
	t.Logf("covered %.1fs after the kill", time.Since(killedAt).Seconds())
	waitEnded(t, web, time.Minute, nodes[0], nodes[2])
	r := fetchReport(t, web, "20ms")
	if r.Duplicates > 8 {
		t.Errorf("%d pages fetched twice, more than the killed node's 8 workers had in flight", r.Duplicates)
	}
	r.Duplicates = 0
	checkReport(t, r)

	// The survivors took the killed node's shards over from their
	// snapshots in the bucket (and the log after them).
	if !strings.Contains(nodes[0].stderr.String()+nodes[2].stderr.String(), "shard restored from a snapshot") {
		t.Errorf("no survivor restored a shard from a snapshot")
	}
	var snaps, warcs []string
	for _, k := range s3.Keys(t, "c2/") {
		switch {
		case strings.HasPrefix(k, "c2/snapshots/c2/shard-") && strings.HasSuffix(k, ".snap"):
			snaps = append(snaps, k)
		case strings.HasSuffix(k, warc.Ext):
			warcs = append(warcs, k)
		}
	}
	if len(snaps) == 0 {
		t.Errorf("no shard snapshot in the bucket")
	}
	// Every WARC file in the bucket verifies: the survivors' (the killed
	// node's open file waits in its --data for its restart, as a single
	// node's does).
	down := t.TempDir()
	var files []string
	for _, k := range warcs {
		p := filepath.Join(down, strings.ReplaceAll(k, "/", "_"))
		if err := os.WriteFile(p, s3.Object(t, k), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	if len(files) < 2 {
		// Seen once in CI (2026-11-27), not reproduced: say what each
		// survivor did, so the next failure shows whether one fetched
		// nothing or fetched and did not upload.
		t.Errorf("%d WARC files in the bucket, want one per surviving node at least; keys %q", len(files), s3.Keys(t, "c2/"))
		for _, i := range []int{0, 2} {
			t.Logf("node %d's log, its uploads, warnings and errors:\n%s", i+1, lastLines(nodes[i].stderr.String(), 40, "upload", "WARC", "warc", "level=WARN", "level=ERROR", "pages"))
		}
	} else if v := runBinary(t, append([]string{"warc", "verify"}, files...)...); v.code != 0 {
		t.Errorf("godwit warc verify of the files in the bucket: exit %d\n%s\n%s", v.code, v.stdout, v.stderr)
	}
}

// observeAssignment reads crawl's assignment from the NATS servers at
// url.
func observeAssignment(t *testing.T, url, crawl string) (cluster.Assignment, error) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		return cluster.Assignment{}, err
	}
	defer nc.Close()
	jn, err := jetstream.Observe(t.Context(), nc, crawl, 5*time.Second)
	if err != nil {
		return cluster.Assignment{}, err
	}
	defer jn.Close()
	return jn.ReadAssignment(t.Context())
}

// clusterStatus is `godwit status --cluster NATS --crawl NAME --json`.
func clusterStatus(t *testing.T, nats, crawl string) admin.ClusterStatus {
	t.Helper()
	res := runBinary(t, "status", "--cluster", nats, "--crawl", crawl, "--json")
	var st admin.ClusterStatus
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &st) != nil {
		t.Fatalf("godwit status --cluster: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	return st
}

// crawlStreams calls fn with each of crawl's shard streams on the NATS
// server at url, in order.
func crawlStreams(tb testing.TB, ctx context.Context, url, crawl string, fn func(i int, s natsjs.Stream)) {
	tb.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer nc.Close()
	js, err := natsjs.New(nc)
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; ; i++ {
		stream, err := js.Stream(ctx, jetstream.StreamName(crawl, i))
		if errors.Is(err, natsjs.ErrStreamNotFound) && i > 0 {
			return
		}
		if err != nil {
			tb.Fatalf("stream %d: %v", i, err)
		}
		fn(i, stream)
	}
}

// shardLogSizes counts the events each shard's log keeps, by shard.
func shardLogSizes(t *testing.T, url, crawl string) map[int]uint64 {
	t.Helper()
	sizes := make(map[int]uint64)
	crawlStreams(t, t.Context(), url, crawl, func(i int, stream natsjs.Stream) {
		info, err := stream.Info(t.Context(), natsjs.WithSubjectFilter(">"))
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		for subject, n := range info.State.Subjects {
			p, err := strconv.Atoi(subject[strings.LastIndexByte(subject, '.')+1:])
			if err != nil {
				t.Fatalf("stream %d has subject %q", i, subject)
			}
			sizes[p] += n
		}
	})
	return sizes
}

// TestClusterRefusesOtherSettings: a node whose crawl-defining
// settings differ from the crawl's is refused, saying which.
func TestClusterRefusesOtherSettings(t *testing.T) {
	clusterTest(t)
	nats := startNATS(t)
	web, seeds := clusterWeb(t, 2)
	first := startCrawlBinary(t, append(clusterArgs(nats, "c3", "n1", filepath.Join(t.TempDir(), "d"), web), "--seeds", seeds)...)
	waitUntil(t, first, "the crawl exists", func() bool { return fetchReport(t, web, "20ms").Requests > 0 })
	args := append([]string{"crawl"}, clusterArgs(nats, "c3", "n2", filepath.Join(t.TempDir(), "d"), web)...)
	res := runBinary(t, append(args, "--delay", "1s")...)
	if res.code != 2 || !strings.Contains(res.stderr, "delay is 20ms in the crawl, 1s here") {
		t.Errorf("joining with another delay: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	stopNodes(t, first)
}

// dumpNodes stops the nodes of a stuck test with SIGQUIT, so that each
// prints its goroutines as it exits, and shows their logs.
func dumpNodes(t *testing.T, nodes ...*crawlProcess) {
	t.Helper()
	for _, p := range nodes {
		if p.running() {
			p.cmd.Process.Signal(syscall.SIGQUIT)
		}
	}
	for i, p := range nodes {
		p.wait(t)
		t.Logf("node %d stderr (last 256 KB):\n%s", i+1, tail(p.stderr.String(), 256<<10))
	}
}

// waitCoverage polls fakeweb until coverage reaches at least c; on a
// timeout it shows the nodes' logs.
func waitCoverage(t *testing.T, web string, c float64, nodes ...*crawlProcess) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for r := fetchReport(t, web, "20ms"); r.Coverage < c; r = fetchReport(t, web, "20ms") {
		if time.Now().After(deadline) {
			dumpNodes(t, nodes...)
			t.Fatalf("coverage %.3f after a minute, waiting for %.2f", r.Coverage, c)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestClusterNodeJoins: a fourth node started mid-crawl takes
// shards from the three running and fetches from them; the crawl covers
// the web with nothing fetched twice and no politeness violation.
func TestClusterNodeJoins(t *testing.T) {
	clusterTest(t)
	nats := startNATS(t)
	web, seeds := clusterWeb(t, 80)
	nodes, _ := clusterNodes{nats: nats, crawl: "c4", web: web, seeds: seeds}.start(t, 3)
	waitCoverage(t, web, 0.2, nodes...)
	late := filepath.Join(t.TempDir(), "d")
	nodes = append(nodes, startCrawlBinary(t, clusterArgs(nats, "c4", "n4", late, web)...))
	waitEnded(t, web, 2*time.Minute, nodes...)
	checkReport(t, fetchReport(t, web, "20ms"))
	if len(warcFiles(t, late)) == 0 {
		t.Errorf("the node that joined fetched nothing:\n%s", tail(nodes[3].stderr.String(), 4096))
	}
}

// freeLoopbackAddr returns a loopback address no one listens on now.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// defaultAdmin removes clusterArgs' "--admin off": the node serves its
// admin API on the default address, or on a free port when it is taken.
func defaultAdminArgs(args []string) []string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--admin" && args[i+1] == "off" {
			return append(args[:i:i], args[i+2:]...)
		}
	}
	return args
}

// assignments counts the assignments the nodes' leaders wrote that
// give the shards to exactly the nodes named (sorted, comma-separated).
func assignments(members string, nodes ...*crawlProcess) int {
	n := 0
	for _, p := range nodes {
		for line := range strings.Lines(p.stderr.String()) {
			if strings.Contains(line, "cluster: new assignment") && strings.Contains(line, "members="+members+" ") {
				n++
			}
		}
	}
	return n
}

// TestClusterStatus: three nodes on one machine. Any node's admin API,
// /metrics and `godwit status` show the whole cluster (nodes, their
// shards and pages, the totals), and so does `godwit status --cluster`
// with no node's help. Two nodes left at the default admin address find
// it taken (by each other or anyone) and serve on free ports, which the
// status lists and which answer. While the membership does not change,
// no shard changes owner. A node is killed: once the crawl is over, the
// status says so, and its totals are the crawl's, the dead node's pages
// included; the dead node started again on the finished crawl has
// nothing queued, and adds nothing.
func TestClusterStatus(t *testing.T) {
	clusterTest(t)
	nats := startNATS(t)
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	web := startFakewebBinary(t, "--hosts", "20", "--pages", "8", "--seeds-out", seeds)
	adminAddr := freeLoopbackAddr(t)
	// A slow crawl (half a second between requests to a host), so that
	// it runs while its status is read.
	n1 := startCrawlBinary(t, append(clusterArgs(nats, "c5", "n1", filepath.Join(t.TempDir(), "d"), web),
		"--seeds", seeds, "--admin", adminAddr, "--delay", "500ms")...)
	n2 := startCrawlBinary(t, append(defaultAdminArgs(clusterArgs(nats, "c5", "n2", filepath.Join(t.TempDir(), "d"), web)), "--delay", "500ms")...)
	d3 := filepath.Join(t.TempDir(), "d")
	n3args := append(defaultAdminArgs(clusterArgs(nats, "c5", "n3", d3, web)), "--delay", "500ms")
	n3 := startCrawlBinary(t, n3args...)

	var st admin.ClusterStatus
	settled := func() bool {
		res := runBinary(t, "status", "--cluster", nats, "--crawl", "c5", "--json")
		st = admin.ClusterStatus{}
		if res.code != 0 || json.Unmarshal([]byte(res.stdout), &st) != nil || len(st.Nodes) != 3 {
			return false
		}
		owned := 0
		for _, n := range st.Nodes {
			owned += n.OwnedShards
			// Balanced, too: a node whose lease renewals stall on a busy
			// machine loses its shards for a while, and gets them back.
			if n.Pages == 0 || n.Admin == "" || n.AssignedShards < st.Shards/3 || n.AssignedShards > st.Shards/3+1 {
				return false
			}
		}
		return owned == st.Shards
	}
	waitUntil(t, n1, "the three nodes own their shards and fetch", settled)
	if st.Crawl != "c5" || st.Shards != 1024 || st.UnownedShards != 0 || st.Seeds != 20 || st.Done != nil ||
		st.Nodes[0].ID != "n1" || st.Nodes[0].Admin != adminAddr || st.Leader == "" || st.Log.Messages == 0 {
		t.Errorf("godwit status --cluster: %+v", st)
	}
	// Each node's admin API answers at the address listed, as itself.
	admins := map[string]bool{}
	for _, n := range st.Nodes {
		admins[n.Admin] = true
		var api admin.ClusterStatus
		getJSON(t, "http://"+n.Admin+"/api/cluster", &api)
		if api.Node != n.ID || len(api.Nodes) != 3 || api.Crawl != "c5" {
			t.Errorf("/api/cluster at %s, listed for %s: %+v", n.Admin, n.ID, api)
		}
	}
	if len(admins) != 3 {
		t.Errorf("admin addresses listed: %v, want three", admins)
	}

	// The same from a node's admin API, and in words from `godwit status`.
	res := runBinary(t, "status", "--admin", adminAddr)
	if res.code != 0 || !strings.Contains(res.stdout, "cluster crawl  c5: running") || !strings.Contains(res.stdout, "\nn2 ") {
		t.Errorf("godwit status: exit %d:\n%s%s", res.code, res.stdout, res.stderr)
	}
	metrics := getText(t, "http://"+adminAddr+"/metrics")
	for _, want := range []string{"godwit_cluster_nodes 3", `godwit_cluster_node_shards{node="n2"}`, "godwit_cluster_done 0"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	// A host another node schedules: n1's admin API and `godwit hosts`
	// answer with that node's view of it, saying which node it is.
	if a, err := observeAssignment(t, nats, "c5"); err != nil {
		t.Fatal(err)
	} else {
		for i := range 20 {
			name := fmt.Sprintf("h%d.fake.test", i)
			owner := a.Owners[shard.Of(name, len(a.Owners))]
			if owner == "n1" {
				continue
			}
			var h admin.Host
			getJSON(t, "http://"+adminAddr+"/api/hosts/"+name, &h)
			if h.Name != name || h.Node != owner || h.Queued+h.Fetched == 0 {
				t.Errorf("GET /api/hosts/%s on n1 = %+v, want %s's view of it", name, h, owner)
			}
			res := runBinary(t, "hosts", name, "--admin", adminAddr)
			if res.code != 0 || !regexp.MustCompile(`(?m)^node +`+owner+` `).MatchString(res.stdout) {
				t.Errorf("godwit hosts %s on n1: exit %d:\n%s%s", name, res.code, res.stdout, res.stderr)
			}
			break
		}
	}
	// Through a proxy there are no IP groups.
	var ips admin.IPGroups
	getJSON(t, "http://"+adminAddr+"/api/ip-groups", &ips)
	if ips.Enabled || ips.Node != "n1" {
		t.Errorf("/api/ip-groups through the proxy = %+v, want no IP groups, answered by n1", ips)
	}

	// What the killed node did but could not count (in its last 250 ms,
	// and in flight) is at most a request to each of its hosts: the
	// 500 ms delay lets no host have two in that time.
	n3hosts := 0
	if a, err := observeAssignment(t, nats, "c5"); err != nil {
		t.Fatal(err)
	} else {
		for i := range 20 {
			if a.Owners[shard.Of(fmt.Sprintf("h%d.fake.test", i), len(a.Owners))] == "n3" {
				n3hosts++
			}
		}
	}
	n3.cmd.Process.Signal(syscall.SIGKILL)
	n3.wait(t)
	waitEnded(t, web, 2*time.Minute, n1, n2)
	r := fetchReport(t, web, "500ms")
	r.Duplicates = 0 // the killed node's fetches in flight were made again
	checkReport(t, r)
	if n := assignments("n1,n2,n3", n1, n2, n3); n != 1 {
		t.Errorf("%d assignments to n1,n2,n3 written, want 1: shards moved while the membership did not change", n)
	}
	st = clusterStatus(t, nats, "c5")
	if st.Done == nil || st.Totals.Nodes != 3 || st.Totals.Requests > int64(r.Requests) || st.Totals.Requests < int64(r.Requests-n3hosts) {
		t.Errorf("after the end: done %v, totals %+v; want the crawl's by 3 nodes, %d requests as fakeweb counts (less at most %d of the killed node's)",
			st.Done, st.Totals, r.Requests, n3hosts)
	}
	t.Logf("the crawl's totals: %d requests; fakeweb counted %d; the killed node had %d hosts", st.Totals.Requests, r.Requests, n3hosts)
	res = runBinary(t, "status", "--cluster", nats, "--crawl", "c5")
	if res.code != 0 || !strings.Contains(res.stdout, "c5: over") || !strings.Contains(res.stdout, "by 3 nodes") {
		t.Errorf("godwit status --cluster after the end: exit %d:\n%s%s", res.code, res.stdout, res.stderr)
	}
	// The killed node, started again on the finished crawl, ends at once
	// with nothing queued (its store's shards were not its own any more).
	again := startCrawlBinary(t, n3args...)
	waitEnded(t, web, 30*time.Second, again)
	if !strings.Contains(again.stdout.String(), " 0 left queued") {
		t.Errorf("the killed node, started again on the finished crawl:\n%s", &again.stdout)
	}
	if after := clusterStatus(t, nats, "c5"); after.Totals.Requests != st.Totals.Requests || fetchReport(t, web, "500ms").Requests != r.Requests {
		t.Errorf("the node started again changed the totals from %+v to %+v", st.Totals, after.Totals)
	}
	if res := runBinary(t, "status", "--cluster", nats, "--crawl", "nosuch"); res.code != 1 || !strings.Contains(res.stderr, "no such crawl") {
		t.Errorf("status of a crawl that does not exist: exit %d: %s", res.code, res.stderr)
	}
}

// getText GETs url and returns its body; the answer must be 200.
func getText(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s, %v:\n%s", url, resp.Status, err, b)
	}
	return string(b)
}

// getJSON GETs url and decodes its JSON body into v.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(getText(t, url)), v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// TestClusterNodeLeaves: a node stopped with Ctrl-C mid-crawl hands its
// shards over (its fetches in flight end first, their outcomes in the
// log) and exits 0; the others take them over and finish the crawl with
// nothing fetched twice and no politeness violation (no host fetched by
// two nodes at once, or sooner than its delay, across the handover).
func TestClusterNodeLeaves(t *testing.T) {
	clusterTest(t)
	nats := startNATS(t)
	web, seeds := clusterWeb(t, 60)
	nodes, _ := clusterNodes{nats: nats, crawl: "c6", web: web, seeds: seeds}.start(t, 3)
	waitCoverage(t, web, 0.3, nodes...)
	nodes[1].cmd.Process.Signal(syscall.SIGINT)
	if code := nodes[1].wait(t); code != 0 || !strings.Contains(nodes[1].stdout.String(), "stopped in") {
		t.Errorf("the node stopped with Ctrl-C exited %d:\n%s\n%s", code, &nodes[1].stdout, tail(nodes[1].stderr.String(), 4096))
	}
	if r := fetchReport(t, web, "20ms"); r.Coverage == 1 {
		t.Fatalf("the web was covered before the node left: too small for this test")
	}
	waitEnded(t, web, 2*time.Minute, nodes[0], nodes[2])
	checkReport(t, fetchReport(t, web, "20ms"))
}

// TestClusterSurvivesNATSServerLoss: three crawler nodes on a cluster
// of three `godwit nats` servers, every log and bucket kept on all three
// (--cluster-replicas 3); one server is SIGKILLed mid-crawl. The crawl
// goes on over the two left (a quorum), covers the web and ends, with no
// politeness violation; the only pages fetched twice are fetches in
// flight whose shard's lease lapsed while the cluster elected new
// leaders (at most every node's workers). The nodes start together on
// the just-formed cluster, as a script starting a crawl would. Leases
// live 6 s here (15 s by default): with the 3 s of the other cluster
// tests a node whose server died could not confirm its renewals within
// the 2 s margin on a loaded machine and lost all its shards twice over
// (725 "shard lost" lines, 62 pages fetched twice); with 6 s only the
// node connected to the dead server loses shards, while it reconnects.
func TestClusterSurvivesNATSServerLoss(t *testing.T) {
	clusterTest(t)
	servers, urls := startNATSCluster(t, t.TempDir())
	nats := strings.Join(urls, ",")
	web, seeds := clusterWeb(t, 60)
	nodes, _ := clusterNodes{nats: nats, crawl: "c7", web: web, seeds: seeds,
		extra: []string{"--cluster-replicas", "3", "--cluster-snapshot-events", "20", "--cluster-ttl", "6s"}}.start(t, 3)
	waitCoverage(t, web, 0.3, nodes...)
	dead := servers[0]
	if err := dead.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	dead.wait()
	killedAt := time.Now()
	waitEnded(t, web, 3*time.Minute, nodes...)
	t.Logf("the crawl ended %.1fs after the server was killed", time.Since(killedAt).Seconds())
	r := fetchReport(t, web, "20ms")
	if r.Duplicates > 3*8 {
		t.Errorf("%d pages fetched twice, more than the nodes' 24 workers had in flight", r.Duplicates)
	}
	r.Duplicates = 0
	checkReport(t, r)
}

// TestClusterEndlessTraps: the endless-trap web (20 hosts, a trap on
// each, 500 pages of genuine pagination on h0) crawled by three nodes
// ends as the single node's crawl does (TestCrawlEndlessTraps): every
// page outside the traps fetched, the pagination to its end, at most 10
// trap requests on any host. The nodes
// once reported no link as new, so every template looked barren after
// 10 pages and the pagination was cut at 45 of 1,500.
func TestClusterEndlessTraps(t *testing.T) {
	clusterTest(t)
	nats := startNATS(t)
	web, addr := startShapes(t, fakeweb.ShapesConfig{Hosts: 20, Articles: 300, Traps: true, Pagination: 500})
	seeds := seedsFile(t, web.Seeds())
	nodes, _ := clusterNodes{nats: nats, crawl: "traps", web: addr, seeds: seeds,
		extra: []string{"--delay", "5ms"}}.start(t, 3)
	waitEnded(t, addr, 3*time.Minute, nodes...)
	r := web.Report()
	t.Logf("server side: %s", r)
	if r.Coverage != 1 {
		t.Errorf("coverage of pages outside traps %.3f, want 1; missing %v", r.Coverage, r.Missing)
	}
	if r.PaginationCovered != r.Pagination || r.Pagination != 500*3 {
		t.Errorf("pagination: %d of %d pages fetched, want all 1500", r.PaginationCovered, r.Pagination)
	}
	if share := r.TrapShare(); share > 0.02 {
		t.Errorf("%d of %d requests (%.2f%%) inside traps, want at most 2%%", r.TrapRequests, r.Requests, 100*share)
	}
	if m := r.MaxTrapRequests(); m > 10 {
		t.Errorf("up to %d trap requests on one host, want at most 10: %v", m, r.TrapsPerHost)
	}
}

// lastLines is the last n lines of s that contain any of words.
func lastLines(s string, n int, words ...string) string {
	var lines []string
	for line := range strings.Lines(s) {
		for _, w := range words {
			if strings.Contains(line, w) {
				lines = append(lines, strings.TrimRight(line, "\n"))
				break
			}
		}
	}
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

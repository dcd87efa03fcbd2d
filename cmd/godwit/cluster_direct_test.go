package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestClusterCrawlDirect: three crawler processes on one NATS server crawl
// a web served directly over HTTPS on three loopback addresses, each node
// resolving names by --resolve, trusting the web's CA by --ca-cert and
// opening its own TLS connections: every page fetched, with no politeness
// or robots.txt violation across the cluster, judged by the web.
func TestClusterCrawlDirect(t *testing.T) {
	clusterTest(t)
	web, err := fakeweb.New(fakeweb.Config{
		Hosts:        30,
		PagesPerHost: 12,
		Seed:         21,
		HTTPS:        true,
		CrawlDelay:   100 * time.Millisecond,
		Robots: []fakeweb.RobotsKind{
			fakeweb.RobotsAllow, fakeweb.RobotsDisallow, fakeweb.RobotsCrawlDelay, fakeweb.RobotsNotFound,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	resolve, caFile := startDirectWeb(t, web, []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"})
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	if err := os.WriteFile(seeds, []byte(strings.Join(web.Seeds(), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	nats := startNATS(t)
	var nodes []*crawlProcess
	for i := 1; i <= 3; i++ {
		args := []string{"--cluster", nats, "--crawl", "direct", "--node", "n" + strconv.Itoa(i),
			"--data", filepath.Join(t.TempDir(), "d"), "--allow-private", "--delay", "20ms", "--workers", "8",
			"--admin", "off", "--cluster-ttl", "3s", "--timeout", "5s", "--ca-cert", caFile}
		for _, r := range resolve {
			args = append(args, "--resolve", r)
		}
		if i == 1 {
			args = append(args, "--seeds", seeds)
		}
		nodes = append(nodes, startCrawlBinary(t, args...))
	}
	deadline := time.After(2 * time.Minute)
	for i, p := range nodes {
		select {
		case <-p.done:
		case <-deadline:
			dumpNodes(t, nodes...)
			r := web.Report(fakeweb.Judge{Delay: 20 * time.Millisecond})
			t.Fatalf("node %d still running after 2 minutes (coverage %.3f, missing %v)", i+1, r.Coverage, r.Missing)
		}
		if p.code != 0 || !strings.Contains(p.stderr.String(), "the cluster crawl is over") {
			t.Errorf("node %d exited with %d:\nstdout:\n%s\nstderr (last 4 KB):\n%s", i+1, p.code, &p.stdout, tail(p.stderr.String(), 4096))
		}
	}
	r := web.Report(fakeweb.Judge{Delay: 20 * time.Millisecond})
	checkReport(t, r)
	for _, q := range web.Requests() {
		if q.Proxy || !strings.HasPrefix(q.RawURL, "https://") {
			t.Fatalf("fakeweb saw %s (proxy %v), want only direct https:// requests", q.RawURL, q.Proxy)
		}
	}
}

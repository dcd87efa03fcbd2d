package main

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// BenchmarkCrawl is the whole-crawl benchmark: the full pipeline (frontier,
// robots.txt, fetch over loopback through the fakeweb proxy, WARC writing,
// extraction, discovery) against a 50-host simulated web, with a delay
// small enough that the crawler, not politeness, is the bottleneck.
// pages/s is the number to compare; run with -benchtime=3x.
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

package main

import (
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/render"
)

// TestRenderSPAWeb is the acceptance test of rendering against fakeweb's
// SPA shape, judged from the server side: rendering (auto, with the share
// cap lifted: every page of this web is a shell) covers every page,
// those only script-built links reach and those only scrolling reaches
// included (when the web has them), with no politeness violation counting every browser request,
// no request for the path robots.txt disallows, and no request no page
// made; with --render never the crawl gets the shells only.
func TestRenderSPAWeb(t *testing.T) {
	if _, err := render.FindBrowser(""); err != nil {
		t.Skip("chromium is not installed: rendering is not tested")
	}
	// One host of six pages, to keep the test short (a render costs
	// seconds): it has no page only a scrolled link reaches, which
	// internal/crawl's TestRenderCrawl covers.
	cfg := fakeweb.Config{Hosts: 1, PagesPerHost: 6, Seed: 7, SPA: true}
	crawlSPA := func(mode string) fakeweb.Report {
		web, addr := startWeb(t, cfg)
		seeds := []string{"http://h0." + web.Config().Domain + "/"}
		s := testSettings(t, addr)
		s.Delay = 5 * time.Millisecond
		s.Render.Mode = mode
		s.Render.MaxShare = 1
		res := crawlInProcess(t, s, seeds)
		r := web.Report(fakeweb.Judge{Delay: s.Delay, Seeds: seeds})
		t.Logf("--render %s: %s; rendered %+v", mode, r, res.Render)
		return r
	}
	r := crawlSPA("auto")
	if r.SPAHosts == 0 || r.RenderedOnly == 0 {
		t.Fatalf("the web has %d SPA hosts and %d rendered-only pages: not the web this test needs", r.SPAHosts, r.RenderedOnly)
	}
	if r.Coverage != 1 || r.RenderedOnlyCovered != r.RenderedOnly || r.ScrollOnlyCovered != r.ScrollOnly {
		t.Errorf("coverage %.3f, rendered-only %d/%d, scroll-only %d/%d; want all", r.Coverage,
			r.RenderedOnlyCovered, r.RenderedOnly, r.ScrollOnlyCovered, r.ScrollOnly)
	}
	if r.ConcurrencyViolations != 0 || r.GapViolations != 0 || r.SPATrackRequests != 0 || r.Unmade != 0 {
		t.Errorf("%d concurrency and %d gap violations, %d requests for the disallowed /api/track, %d requests no page made %v; want none",
			r.ConcurrencyViolations, r.GapViolations, r.SPATrackRequests, r.Unmade, r.UnmadeSample)
	}
	never := crawlSPA("never")
	if never.RenderedOnlyCovered != 0 || never.ScrollOnlyCovered != 0 {
		t.Errorf("--render never covered %d rendered-only and %d scroll-only pages, want none (only the shells)",
			never.RenderedOnlyCovered, never.ScrollOnlyCovered)
	}
}

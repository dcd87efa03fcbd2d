package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/spf13/pflag"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/lifecycle"
	"github.com/godwit-crawler/godwit/internal/render"
)

// renderSettings say which pages are rendered in a headless browser
// (crawl.Render, render.Config). Zero values mean the packages' defaults.
type renderSettings struct {
	// Mode: never, auto (the default: pages whose plain fetch suggests
	// script-built content, learnt per host, when a browser is found) or
	// always (an error without a browser).
	Mode string `yaml:"mode"`
	// Browser is the chromium binary (default: chromium or
	// chromium-browser on PATH).
	Browser string `yaml:"browser"`
	// Workers is the number of tabs rendering at once (default 2).
	Workers int `yaml:"workers"`
	// MaxShare is the most of the HTML pages fetched that auto mode
	// renders, 0..1 (default 0.2).
	MaxShare float64 `yaml:"max_share"`
	// RestartAfter restarts the browser after this many pages (default 200).
	RestartAfter int `yaml:"restart_after"`
	// Learn is how many renders decide whether rendering pays on a host
	// (default 3).
	Learn int `yaml:"learn"`
	// Screenshot archives a PNG of each rendered page (a resource record).
	Screenshot bool `yaml:"screenshot"`
}

func (f *crawlFlags) registerRender(fs *pflag.FlagSet) {
	flagRender.stringVar(fs, &f.s.Render.Mode, "auto")
	flagBrowser.stringVar(fs, &f.s.Render.Browser, "")
	flagRenderWorkers.intVar(fs, &f.s.Render.Workers, 2)
	flagRenderScreenshot.boolVar(fs, &f.s.Render.Screenshot, false)
}

func (f *crawlFlags) applyRender(fs *pflag.FlagSet, s *crawlSettings) {
	set := func(fl flagInfo, apply func()) {
		if fs.Changed(fl.name) {
			apply()
		}
	}
	set(flagRender, func() { s.Render.Mode = f.s.Render.Mode })
	set(flagBrowser, func() { s.Render.Browser = f.s.Render.Browser })
	set(flagRenderWorkers, func() { s.Render.Workers = f.s.Render.Workers })
	set(flagRenderScreenshot, func() { s.Render.Screenshot = f.s.Render.Screenshot })
}

func (r renderSettings) validate() error {
	switch r.Mode {
	case "", "never", "auto", "always":
	default:
		return fmt.Errorf("--render %q: want never, auto or always", r.Mode)
	}
	switch {
	case r.Workers < 0:
		return fmt.Errorf("--render-workers %d is negative", r.Workers)
	case !(r.MaxShare >= 0 && r.MaxShare <= 1):
		return fmt.Errorf("render.max_share %v: want a share between 0 and 1", r.MaxShare)
	case r.RestartAfter < 0:
		return fmt.Errorf("render.restart_after %d is negative", r.RestartAfter)
	case r.Learn < 0:
		return fmt.Errorf("render.learn %d is negative", r.Learn)
	}
	return nil
}

// effective is r with its defaults filled in.
func (r renderSettings) effective() renderSettings {
	if r.Mode == "" {
		r.Mode = "auto"
	}
	c := render.Config{Tabs: r.Workers, RestartAfter: r.RestartAfter}.Defaults()
	r.Workers, r.RestartAfter = c.Tabs, c.RestartAfter
	cr := crawl.Render{MaxShare: r.MaxShare, Learn: r.Learn}
	cfg := crawl.Config{Render: cr}
	cfg.Default()
	r.MaxShare, r.Learn = cfg.Render.MaxShare, cfg.Render.Learn
	return r
}

// startRender adds the render pool to g when the settings and the machine
// allow rendering, and sets ccfg.Render; it returns nil when pages are
// not rendered. Auto without a browser renders nothing and says so once;
// always without one is an error. The browser itself starts with the
// first page picked for rendering, so that a crawl of static pages never
// runs one.
func startRender(ctx context.Context, g *lifecycle.Group, s crawlSettings, ccfg *crawl.Config, log *slog.Logger) (*render.Pool, error) {
	r := s.Render.effective()
	if r.Mode == "never" {
		return nil, nil
	}
	path, err := render.FindBrowser(r.Browser)
	if err != nil {
		if r.Mode == "always" || r.Browser != "" {
			return nil, fmt.Errorf("--render %s needs a browser, and %v (install chromium, or name it with --browser)", r.Mode, err)
		}
		log.Info("no browser found (chromium on PATH, or --browser): pages are not rendered")
		return nil, nil
	}
	var pool *render.Pool
	err = g.Start(ctx, "render pool", func(context.Context) (lifecycle.Stop, error) {
		pool = render.New(render.Config{
			Browser:      path,
			Tabs:         r.Workers,
			RestartAfter: r.RestartAfter,
			Screenshot:   r.Screenshot,
			Logf:         func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) },
		})
		return pool.Close, nil
	})
	if err != nil {
		return nil, err
	}
	ccfg.Render = crawl.Render{Mode: render.Mode(r.Mode), MaxShare: r.MaxShare, Learn: r.Learn, Screenshot: r.Screenshot}
	log.Info("rendering pages in a browser", "mode", r.Mode, "browser", path, "tabs", r.Workers)
	return pool, nil
}

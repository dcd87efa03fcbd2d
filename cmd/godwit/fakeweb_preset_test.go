package main

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestFakewebPreset: --preset starts from the named web and the flags
// given with it override it.
func TestFakewebPreset(t *testing.T) {
	var f fakewebFlags
	fs := pflag.NewFlagSet("fakeweb", pflag.ContinueOnError)
	d := fakeweb.Config{Hosts: 50, PagesPerHost: 100}
	d.Default()
	f.register(fs, d)
	if err := fs.Parse([]string{"--hosts", "7", "--robots", "allow"}); err != nil {
		t.Fatal(err)
	}
	if err := applyPreset(&f, "throughput", fs); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.config()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := fakeweb.Preset("throughput")
	if cfg.Hosts != 7 || len(cfg.Robots) != 1 || cfg.Robots[0] != fakeweb.RobotsAllow {
		t.Errorf("flags given with the preset: hosts %d, robots %v; want 7, [allow]", cfg.Hosts, cfg.Robots)
	}
	if cfg.PagesPerHost != want.PagesPerHost || cfg.PageSize != want.PageSize || !cfg.Sitemaps || !cfg.Duplicates {
		t.Errorf("preset not applied: %+v", cfg)
	}
	if err := applyPreset(&f, "nope", fs); err == nil {
		t.Error("applyPreset(nope) = nil, want an error")
	}
}

package fakeweb

import (
	"strings"
	"testing"
	"time"
)

func TestDefault(t *testing.T) {
	var c Config
	c.Default()
	want := Config{
		Hosts: 10, Domain: "fake.test", PagesPerHost: 50, LinksPerPage: 8, PageSize: 2048,
		CrossHostShare: 0.1, RedirectShare: 0.05, CrawlDelay: time.Second,
	}
	if c.Hosts != want.Hosts || c.Domain != want.Domain || c.PagesPerHost != want.PagesPerHost ||
		c.LinksPerPage != want.LinksPerPage || c.PageSize != want.PageSize ||
		c.CrossHostShare != want.CrossHostShare || c.RedirectShare != want.RedirectShare ||
		c.CrawlDelay != want.CrawlDelay || c.Latency != 0 || c.Seed != 0 || c.Robots != nil ||
		c.FlakyRobotsFailures != 2 || c.OrphanPages != 5 || c.Sitemaps || c.PageSignals {
		t.Errorf("Default() = %+v, want %+v", c, want)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("Validate() of the defaults = %v, want nil", err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Config)
		want   string // substring of the error; "" for valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"negative shares mean none", func(c *Config) { c.CrossHostShare, c.RedirectShare = -1, -1 }, ""},
		{"one host one page", func(c *Config) { c.Hosts, c.PagesPerHost = 1, 1 }, ""},
		{"fractional crawl delay", func(c *Config) { c.CrawlDelay = 200 * time.Millisecond }, ""},
		{"no hosts", func(c *Config) { c.Hosts = -1 }, "hosts -1"},
		{"too many hosts", func(c *Config) { c.Hosts = maxHosts + 1 }, "hosts"},
		{"too many pages", func(c *Config) { c.Hosts, c.PagesPerHost = 1<<20, 1<<10 }, "exceeds"},
		{"upper-case domain", func(c *Config) { c.Domain = "Fake.Test" }, "lower-case"},
		{"domain with port", func(c *Config) { c.Domain = "fake.test:80" }, "lower-case"},
		{"empty label", func(c *Config) { c.Domain = "fake..test" }, "invalid label"},
		{"ip domain", func(c *Config) { c.Domain = "127.0.0.1" }, "IP address"},
		{"one link", func(c *Config) { c.LinksPerPage = 1 }, "links per page"},
		{"negative page size", func(c *Config) { c.PageSize = -1 }, "page size"},
		{"share above one", func(c *Config) { c.CrossHostShare = 1.5 }, "cross-host share"},
		{"shares sum above one", func(c *Config) { c.CrossHostShare, c.RedirectShare = 0.6, 0.6 }, "exceeds 1"},
		{"bad robots kind", func(c *Config) { c.Robots = []RobotsKind{RobotsAllow, 42} }, "robots[1]"},
		{"sub-millisecond crawl delay", func(c *Config) { c.CrawlDelay = 1500 * time.Microsecond }, "crawl delay"},
		{"negative latency", func(c *Config) { c.Latency = -time.Second }, "latency"},
		{"no orphans", func(c *Config) { c.Sitemaps, c.OrphanPages = true, -1 }, ""},
		{"too many orphans", func(c *Config) { c.OrphanPages = maxOrphanPages + 1 }, "orphan pages"},
		{"orphans overflow the web", func(c *Config) {
			c.Hosts, c.PagesPerHost, c.Sitemaps, c.OrphanPages = 1<<16, 1<<10, true, 1000
		}, "orphan, signal and wildcard"},
		{"orphans fit without sitemaps", func(c *Config) { c.Hosts, c.PagesPerHost, c.OrphanPages = 1<<16, 1<<10, 1000 }, ""},
		{"negative flaky failures", func(c *Config) { c.FlakyRobotsFailures = -1 }, "flaky"},
		{"too many flaky failures", func(c *Config) { c.FlakyRobotsFailures = maxFlaky + 1 }, "flaky"},
		{"every kind", func(c *Config) { c.Robots = RobotsKinds() }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			c.Default()
			tt.modify(&c)
			err := c.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.want != "" && err == nil:
				t.Errorf("Validate() = nil, want an error mentioning %q", tt.want)
			case err != nil && (!strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "fakeweb: ")):
				t.Errorf("Validate() = %q, want a \"fakeweb: \" error mentioning %q", err, tt.want)
			}
		})
	}
}

func TestNewAppliesDefaultsAndValidates(t *testing.T) {
	w, err := New(Config{})
	if err != nil {
		t.Fatalf("New(Config{}) = %v", err)
	}
	if got := w.Config().Hosts; got != 10 {
		t.Errorf("New(Config{}).Config().Hosts = %d, want 10", got)
	}
	if _, err := New(Config{LinksPerPage: 1}); err == nil {
		t.Error("New(Config{LinksPerPage: 1}) succeeded, want an error")
	}
}

func TestRobotsKindText(t *testing.T) {
	kinds := RobotsKinds()
	if len(kinds) != 10 || kinds[0] != RobotsAllow || kinds[len(kinds)-1] != RobotsFlaky {
		t.Errorf("RobotsKinds() = %v", kinds)
	}
	for _, k := range kinds {
		b, err := k.MarshalText()
		if err != nil {
			t.Fatalf("%v.MarshalText() = %v", k, err)
		}
		if string(b) != k.String() {
			t.Errorf("%v.MarshalText() = %q, want %q", k, b, k.String())
		}
		var got RobotsKind
		if err := got.UnmarshalText([]byte(strings.ToUpper(string(b)))); err != nil || got != k {
			t.Errorf("UnmarshalText(%q) = %v, %v, want %v", strings.ToUpper(string(b)), got, err, k)
		}
	}
	if _, err := ParseRobotsKind("sometimes"); err == nil || !strings.HasPrefix(err.Error(), "fakeweb: ") {
		t.Errorf(`ParseRobotsKind("sometimes") = %v, want a "fakeweb: " error`, err)
	}
	for name, want := range map[string]RobotsKind{"wildcard": RobotsWildcard, "agent-group": RobotsAgentGroup, "redirect": RobotsRedirect, "flaky": RobotsFlaky} {
		if got, err := ParseRobotsKind(name); got != want || err != nil {
			t.Errorf("ParseRobotsKind(%q) = %v, %v, want %v", name, got, err, want)
		}
	}
	if got := RobotsKind(99).String(); got != "RobotsKind(99)" {
		t.Errorf("RobotsKind(99).String() = %q", got)
	}
	if _, err := RobotsKind(-1).MarshalText(); err == nil {
		t.Error("RobotsKind(-1).MarshalText() succeeded, want an error")
	}
}

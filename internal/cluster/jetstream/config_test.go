package jetstream

import (
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	ok := Config{Crawl: "c", Node: "n"}
	ok.Default()
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if got := ok.tick(); got != 3*time.Second {
		t.Errorf("tick = %v, want 3s", got)
	}
	if got := ok.margin(); got != 10*time.Second {
		t.Errorf("margin = %v, want 10s", got)
	}
	for name, mod := range map[string]func(*Config){
		"crawl with a dot":  func(c *Config) { c.Crawl = "a.b" },
		"empty node":        func(c *Config) { c.Node = "" },
		"node with a space": func(c *Config) { c.Node = "a b" },
		"more streams":      func(c *Config) { c.Streams = c.Shards + 1 },
		"sub-second TTL":    func(c *Config) { c.LeaseTTL = 2500 * time.Millisecond },
		"one-second TTL":    func(c *Config) { c.MemberTTL = time.Second },
		"six replicas":      func(c *Config) { c.Replicas = 6 },
		"negative handoff":  func(c *Config) { c.Handoff = -time.Second },
	} {
		c := ok
		mod(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: Validate = nil, want an error", name)
		}
	}
}

package fakeweb

import (
	"strings"
	"testing"
	"time"
)

func TestPresetThroughput(t *testing.T) {
	c, err := Preset("throughput")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("Preset(throughput).Validate() = %v", err)
	}
	w, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	rules := 0
	for i := range c.Hosts {
		if w.Robots(i) != RobotsNotFound {
			rules++
		}
	}
	if rules*5 != c.Hosts {
		t.Errorf("%d of %d hosts have robots.txt rules, want 20%%", rules, c.Hosts)
	}
	body, ok := w.Page("http://h3." + c.Domain + "/p/7")
	if !ok || len(body) < 14<<10 || len(body) > 17<<10 {
		t.Errorf("Page(/p/7) = %d bytes (ok %v), want about 15 KB", len(body), ok)
	}
	if r := w.Report(Judge{Delay: time.Millisecond}); r.Reachable < c.Hosts*c.PagesPerHost {
		t.Errorf("Reachable = %d, want at least %d", r.Reachable, c.Hosts*c.PagesPerHost)
	}
}

func TestPresetUnknown(t *testing.T) {
	if _, err := Preset("nope"); err == nil || !strings.Contains(err.Error(), "throughput") {
		t.Errorf("Preset(nope) = %v, want an error naming the known presets", err)
	}
}

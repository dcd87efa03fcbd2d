package fakeweb

import (
	"fmt"
	"slices"
	"strings"
)

// presets names the shapes of web that benchmarks and demos share, so that
// a number measured on one is reproducible by name (`godwit fakeweb
// --preset NAME`, Preset in tests).
var presets = map[string]func() Config{
	"throughput": throughputConfig,
}

// PresetNames returns the names Preset knows, sorted.
func PresetNames() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Preset returns the configuration of the named shape of web, defaults
// filled in. Known names:
//
//   - "throughput": the shape of the whole-crawl benchmark
//     (docs/benchmarks.md). 200 hosts × 50 pages of about 15 KB of HTML,
//     one host in five (20%) with a robots.txt of rules (RobotsDisallow:
//     /private/ kept out), the others answering 404; sitemaps (with
//     orphan pages) on the hosts with rules; exact and near duplicates
//     on every host; 5% of links through a 301 and 10% to other hosts.
//     It is meant for a crawl with a 1 ms gap per host, where the
//     crawler's CPU, not politeness, bounds the rate.
func Preset(name string) (Config, error) {
	f, ok := presets[name]
	if !ok {
		return Config{}, fmt.Errorf("fakeweb: unknown preset %q (want one of %s)", name, strings.Join(PresetNames(), ", "))
	}
	c := f()
	c.Default()
	return c, nil
}

func throughputConfig() Config {
	return Config{
		Hosts:        200,
		PagesPerHost: 50,
		PageSize:     15 << 10,
		Robots:       []RobotsKind{RobotsNotFound, RobotsNotFound, RobotsNotFound, RobotsNotFound, RobotsDisallow},
		Sitemaps:     true,
		Duplicates:   true,
		Seed:         1,
	}
}

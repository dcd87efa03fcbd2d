package cluster

import (
	"strings"
	"testing"
)

func TestEnded(t *testing.T) {
	a := Assignment{Owners: []string{"n1", "n2", "n1", "n2"}}
	quiet := func(round uint64, shards int) EndReport {
		return EndReport{Round: round, Quiet: true, Shards: shards, Seeds: 2}
	}
	for _, tc := range []struct {
		name    string
		round   uint64
		reports map[string]EndReport
		a       Assignment
		seeds   int
		why     string // "" when ended
	}{
		{"over", 7, map[string]EndReport{"n1": quiet(7, 2), "n2": quiet(9, 2)}, a, 2, ""},
		{"no seed", 7, map[string]EndReport{"n1": quiet(7, 2), "n2": quiet(7, 2)}, a, 0, "no seed"},
		{"old report", 7, map[string]EndReport{"n1": quiet(6, 2), "n2": quiet(7, 2)}, a, 2, "not reported for round 7"},
		{"busy", 7, map[string]EndReport{"n1": {Round: 7, Shards: 2, Seeds: 2}, "n2": quiet(7, 2)}, a, 2, "busy"},
		{"seed not queued", 7, map[string]EndReport{"n1": quiet(7, 2), "n2": quiet(7, 2)}, a, 3, "queued 2 of the 3 seeds"},
		{"a shard in nobody's hands", 7, map[string]EndReport{"n1": quiet(7, 2), "n2": quiet(7, 1)}, a, 2, "own 3 of the 4"},
		{"a node missing", 7, map[string]EndReport{"n1": quiet(7, 2)}, a, 2, "n2 has not reported"},
		{"a node outside the assignment", 7, map[string]EndReport{"n1": quiet(7, 2), "n2": quiet(7, 2), "n3": quiet(7, 0)}, a, 2, "n3 has no shard"},
		{"an unowned shard", 7, map[string]EndReport{"n1": quiet(7, 2), "n2": quiet(7, 1)},
			Assignment{Owners: []string{"n1", "n2", "n1", ""}}, 2, "1 shards have no owner"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, why := Ended(tc.round, tc.reports, tc.a, tc.seeds)
			if tc.why == "" {
				if !ok {
					t.Errorf("not ended: %s", why)
				}
				return
			}
			if ok || !strings.Contains(why, tc.why) {
				t.Errorf("Ended = %v, %q; want false, %q", ok, why, tc.why)
			}
		})
	}
}

package coord

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"time"

	"github.com/godwit-crawler/godwit/internal/cluster"
	"github.com/godwit-crawler/godwit/internal/cluster/jetstream"
)

// endCheck is the leader's side of the end check (cluster.Ended): the
// round it opened, and the streams' last sequences before it.
type endCheck struct {
	round   uint64
	last    []uint64
	started time.Time
	why     string // why the last round found the crawl not over
}

// endCheckPatience is how long a round waits for every node's report
// before it is given up (a new one starts when all are quiet again).
const endCheckPatience = 30 * time.Second

// step advances the end check: it opens a round when every node last
// said it is quiet, and closes it when every node has reported for it,
// marking the crawl done when cluster.Ended holds and no stream moved.
func (e *endCheck) step(ctx context.Context, s *Session) error {
	members, err := s.js.Members(ctx)
	if err != nil {
		return err
	}
	reports := make(map[string]cluster.EndReport, len(members))
	allQuiet, allIn := len(members) > 0, true
	for _, m := range members {
		var r Report
		if json.Unmarshal(m.Stats, &r) != nil {
			r = Report{}
		}
		reports[m.ID] = r.End
		allQuiet = allQuiet && r.End.Quiet
		allIn = allIn && r.End.Round >= e.round
	}
	if e.round == 0 {
		if allQuiet {
			e.round, e.last, err = s.js.StartEndCheck(ctx)
			e.started = time.Now()
		}
		return err
	}
	if !allIn {
		if time.Since(e.started) > endCheckPatience {
			e.round = 0
		}
		return nil
	}
	round, last := e.round, e.last
	e.round = 0
	a, err := s.js.ReadAssignment(ctx)
	if err != nil {
		return err
	}
	seeds, err := s.js.Seeds(ctx)
	if err != nil {
		return err
	}
	if ok, why := cluster.Ended(round, reports, a, len(seeds)); !ok {
		e.goesOn(s, round, why)
		return nil
	}
	now, err := s.js.StreamsLast(ctx)
	if err != nil {
		return err
	}
	if !slices.Equal(now, last) {
		e.goesOn(s, round, "events were appended during the round")
		return nil
	}
	s.log.Info("cluster: the crawl is over", "round", round, "nodes", len(reports))
	return s.js.MarkDone(ctx, jetstream.Done{At: time.Now().UTC(), By: s.js.Name(), Round: round})
}

// goesOn logs why a round of nodes all quiet did not end the crawl: at
// Info when the reason is new (an operator wondering why a crawl with
// nothing to fetch does not end sees why), at Debug when it repeats.
func (e *endCheck) goesOn(s *Session, round uint64, why string) {
	level := slog.LevelDebug
	if why != e.why {
		level = slog.LevelInfo
	}
	e.why = why
	s.log.Log(context.Background(), level, "cluster: the crawl goes on", "round", round, "because", why)
}

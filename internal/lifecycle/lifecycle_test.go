package lifecycle

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// recorder starts components that note their starts and stops.
type recorder struct{ log []string }

func (r *recorder) component(name string, startErr, stopErr error) StartFunc {
	return func(context.Context) (Stop, error) {
		if startErr != nil {
			r.log = append(r.log, "fail "+name)
			return nil, startErr
		}
		r.log = append(r.log, "start "+name)
		return func() error { r.log = append(r.log, "stop "+name); return stopErr }, nil
	}
}

// TestStopsInReverseOnce: components stop last first, once, however
// often Stop is called; a stop's error names its component and does not
// keep the others from stopping.
func TestStopsInReverseOnce(t *testing.T) {
	var r recorder
	var g Group
	ctx := t.Context()
	for _, n := range []string{"frontier", "archive", "admin"} {
		var stopErr error
		if n == "archive" {
			stopErr = errors.New("disk full")
		}
		if err := g.Start(ctx, n, r.component(n, nil, stopErr)); err != nil {
			t.Fatal(err)
		}
	}
	g.Add("result", func() error { r.log = append(r.log, "stop result"); return nil })
	err := g.Stop()
	if err == nil || !strings.Contains(err.Error(), "archive: disk full") {
		t.Errorf("Stop = %v, want the archive's error, named", err)
	}
	if again := g.Stop(); again == nil || again.Error() != err.Error() {
		t.Errorf("second Stop = %v, want the first's result", again)
	}
	want := []string{"start frontier", "start archive", "start admin", "stop result", "stop admin", "stop archive", "stop frontier"}
	if !slices.Equal(r.log, want) {
		t.Errorf("order = %q, want %q", r.log, want)
	}
}

// TestFailedStartStopsTheRest: a component that fails to start stops
// the ones before it, in reverse order, and nothing starts after.
func TestFailedStartStopsTheRest(t *testing.T) {
	var r recorder
	var g Group
	ctx := t.Context()
	g.Start(ctx, "frontier", r.component("frontier", nil, nil))
	g.Start(ctx, "archive", r.component("archive", nil, nil))
	err := g.Start(ctx, "admin", r.component("admin", errors.New("address in use"), nil))
	if err == nil || !strings.Contains(err.Error(), "address in use") {
		t.Errorf("Start = %v, want the admin's error", err)
	}
	if err := g.Start(ctx, "late", r.component("late", nil, nil)); err == nil {
		t.Errorf("a component started after the group stopped")
	}
	g.Stop()
	want := []string{"start frontier", "start archive", "fail admin", "stop archive", "stop frontier"}
	if !slices.Equal(r.log, want) {
		t.Errorf("order = %q, want %q", r.log, want)
	}
}

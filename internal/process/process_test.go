package process

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// funcProc is a Processor made of a function.
type funcProc struct {
	name string
	f    func(ctx context.Context, p *Page) (Verdict, error)
}

func (f funcProc) Name() string { return f.name }
func (f funcProc) Process(ctx context.Context, p *Page) (Verdict, error) {
	return f.f(ctx, p)
}

func annotate(name string, kv ...string) funcProc {
	return funcProc{name, func(context.Context, *Page) (Verdict, error) {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return Verdict{Annotations: m}, nil
	}}
}

func TestRunnerMergesVerdicts(t *testing.T) {
	r, err := NewRunner([]Processor{
		annotate("a", "lang", "en", "x", "1"),
		funcProc{"b", func(context.Context, *Page) (Verdict, error) {
			return Verdict{Annotations: map[string]string{"x": "2\nlines", "bad key": "v", "": "v"},
				Links: []string{"/more"}, SkipLinks: true}, nil
		}},
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Run(t.Context(), &Page{URL: "http://a.test/"})
	want := []Annotation{{Key: "lang", Value: "en"}, {Key: "x", Value: "2 lines"}}
	if len(res.Annotations) != len(want) {
		t.Fatalf("annotations = %v, want %v", res.Annotations, want)
	}
	for i := range want {
		if res.Annotations[i] != want[i] {
			t.Errorf("annotation %d = %v, want %v", i, res.Annotations[i], want[i])
		}
	}
	if !res.SkipLinks || len(res.Links) != 1 || res.Links[0] != "/more" {
		t.Errorf("links = %v, skip %v; want [/more], skip", res.Links, res.SkipLinks)
	}
}

func TestRunnerIsolatesFailures(t *testing.T) {
	release := make(chan struct{})
	var hung atomic.Int64
	r, err := NewRunner([]Processor{
		funcProc{"panics", func(context.Context, *Page) (Verdict, error) { panic("boom") }},
		funcProc{"fails", func(context.Context, *Page) (Verdict, error) { return Verdict{}, errors.New("nope") }},
		funcProc{"hangs", func(context.Context, *Page) (Verdict, error) {
			hung.Add(1)
			<-release // ignores its context
			hung.Add(-1)
			return Verdict{Annotations: map[string]string{"late": "1"}}, nil
		}},
		annotate("ok", "ok", "1"),
	}, Options{Budget: 50 * time.Millisecond, MaxAbandoned: 2})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	if err := r.RegisterMetrics(reg); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		res := r.Run(t.Context(), &Page{URL: "http://a.test/"})
		if len(res.Annotations) != 1 || res.Annotations[0] != (Annotation{Key: "ok", Value: "1"}) {
			t.Errorf("annotations = %v, want only ok=1", res.Annotations)
		}
	}
	calls := func(name, outcome string) float64 {
		return testutil.ToFloat64(r.metrics.Load().calls.WithLabelValues(name, outcome))
	}
	for _, c := range []struct {
		name, outcome string
		want          float64
	}{
		{"panics", outcomePanic, 4}, {"fails", outcomeError, 4},
		{"hangs", outcomeTimeout, 2}, {"hangs", outcomeBusy, 2}, {"ok", outcomeOK, 4},
	} {
		if got := calls(c.name, c.outcome); got != c.want {
			t.Errorf("calls{%s,%s} = %v, want %v", c.name, c.outcome, got, c.want)
		}
	}
	close(release)
	deadline := time.Now().Add(5 * time.Second)
	for hung.Load() > 0 || r.procs[2].abandoned.Load() > 0 {
		if time.Now().After(deadline) {
			t.Fatal("abandoned calls did not end once released")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestRunnerRefusesDuplicateNames(t *testing.T) {
	if _, err := NewRunner([]Processor{annotate("a"), annotate("a")}, Options{}); err == nil {
		t.Error("NewRunner with two processors named a: no error")
	}
}

func TestCleanValue(t *testing.T) {
	long := strings.Repeat("é", MaxValue) // 2 bytes each
	for _, c := range []struct{ in, want string }{
		{"a\r\nb\x00", "a  b "},
		{"ok", "ok"},
		{"\xff", "\uFFFD"},
	} {
		if got := cleanValue(c.in); got != c.want {
			t.Errorf("cleanValue(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := cleanValue(long); len(got) > MaxValue || !strings.HasPrefix(long, got) {
		t.Errorf("cleanValue(long) is %d bytes, not a prefix of at most %d", len(got), MaxValue)
	}
}

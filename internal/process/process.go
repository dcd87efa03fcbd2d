package process

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Page is what a processor sees of one fetched page. It is shared by the
// processors of a Runner: a processor must not modify it.
type Page struct {
	URL         string
	Status      int
	Header      http.Header
	ContentType string
	// Body is the page decoded to UTF-8 for an HTML page; nil for other
	// content types.
	Body []byte
	// Title, Links (absolute URLs, as extracted, before scope) and the
	// SimHash of the visible text (when HasSimHash) come from the
	// crawler's own extraction pass.
	Title      string
	Links      []string
	SimHash    uint64
	HasSimHash bool
}

// Verdict is what a processor says about a page.
type Verdict struct {
	// Annotations go into the page's metadata record and its event. Keys
	// are 1..64 bytes of [A-Za-z0-9._:-]; values are at most MaxValue
	// bytes on one line (longer values are cut, line breaks become
	// spaces). A key given by two processors keeps the later value.
	Annotations map[string]string
	// Values are annotations whose values are JSON other than a string:
	// numbers, booleans, null, arrays, objects. They are kept as JSON
	// (compacted, at most MaxValue bytes; a longer one is dropped). A key
	// in both Annotations and Values keeps the Values one.
	Values map[string]json.RawMessage
	// Links are extra URLs to queue, absolute or relative to the page;
	// they go through the crawl's discovery filters like any link.
	Links []string
	// SkipLinks keeps the page's extracted links from being followed
	// (they are still recorded as outlinks); Links are queued anyway.
	SkipLinks bool
}

// Processor looks at fetched pages. Process is called concurrently, for
// different pages, and must honour ctx: it ends at the processor's time
// budget.
type Processor interface {
	// Name identifies the processor in logs and metrics: short, fixed.
	Name() string
	Process(ctx context.Context, p *Page) (Verdict, error)
}

// Annotation is one annotation of a page.
type Annotation struct {
	Key, Value string
	// JSON says Value is compact JSON (a number, boolean, null, array or
	// object) rather than text.
	JSON bool
}

// Result is what all of a Runner's processors said about a page.
type Result struct {
	Annotations []Annotation // sorted by key
	Links       []string
	SkipLinks   bool
}

// Limits on annotations.
const (
	MaxKey   = 64
	MaxValue = 4096
)

// Options configure a Runner.
type Options struct {
	// Budget is how long one processor may take over one page; default
	// 5s. (An Exec processor has its own, usually shorter, timeout.)
	Budget time.Duration
	// MaxAbandoned is how many overrun calls of one processor may still
	// be running before the processor is skipped; default 64.
	MaxAbandoned int
	Logger       *slog.Logger
}

// Runner runs processors over pages.
type Runner struct {
	procs   []*entry
	opts    Options
	log     *slog.Logger
	metrics atomic.Pointer[metrics]
}

type entry struct {
	p         Processor
	name      string
	abandoned atomic.Int64 // overrun calls still running
	broken    atomic.Int64 // pages that went on without it: it was broken
}

// Outcomes of one processor's call, the label of godwit_processor_calls_total.
const (
	outcomeOK      = "ok"
	outcomeError   = "error"
	outcomePanic   = "panic"
	outcomeTimeout = "timeout"
	outcomeBusy    = "busy" // skipped: too many abandoned calls
	// An external processor wrote a line that is not an answer.
	outcomeProtocol = "protocol"
	// Skipped: the processor is taken as broken (its breaker is open).
	outcomeBroken = "broken"
)

// NewRunner returns a Runner over procs, which run in this order.
func NewRunner(procs []Processor, o Options) (*Runner, error) {
	if o.Budget == 0 {
		o.Budget = 5 * time.Second
	}
	if o.MaxAbandoned == 0 {
		o.MaxAbandoned = 64
	}
	if o.Budget < 0 || o.MaxAbandoned < 0 {
		return nil, fmt.Errorf("process: negative budget %v or abandoned calls %d", o.Budget, o.MaxAbandoned)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Runner{opts: o, log: o.Logger}
	seen := map[string]bool{}
	for _, p := range procs {
		name := p.Name()
		if seen[name] {
			return nil, fmt.Errorf("process: two processors named %q", name)
		}
		seen[name] = true
		r.procs = append(r.procs, &entry{p: p, name: name})
	}
	return r, nil
}

// Len is the number of processors.
func (r *Runner) Len() int { return len(r.procs) }

// Run runs every processor over p, in order, and merges their verdicts.
// It never fails: what a processor could not do is logged and counted.
func (r *Runner) Run(ctx context.Context, p *Page) Result {
	var res Result
	ann := map[string]Annotation{}
	for _, e := range r.procs {
		v, ok := r.call(ctx, e, p)
		if !ok {
			continue
		}
		for k, val := range v.Annotations {
			if !validKey(k) {
				r.log.Debug("processor annotation key refused", "processor", e.name, "key", k)
				continue
			}
			ann[k] = Annotation{Key: k, Value: cleanValue(val)}
		}
		for k, val := range v.Values {
			if !validKey(k) {
				r.log.Debug("processor annotation key refused", "processor", e.name, "key", k)
				continue
			}
			a, ok := jsonValue(k, val)
			if !ok {
				r.log.Debug("processor annotation value refused: not JSON, or over the size limit", "processor", e.name, "key", k)
				continue
			}
			ann[k] = a
		}
		res.Links = append(res.Links, v.Links...)
		res.SkipLinks = res.SkipLinks || v.SkipLinks
	}
	for _, a := range ann {
		res.Annotations = append(res.Annotations, a)
	}
	slices.SortFunc(res.Annotations, func(a, b Annotation) int { return strings.Compare(a.Key, b.Key) })
	return res
}

type answer struct {
	v     Verdict
	err   error
	panic any
}

// call runs one processor over p under the budget, isolated from its
// panics.
func (r *Runner) call(ctx context.Context, e *entry, p *Page) (Verdict, bool) {
	if e.abandoned.Load() >= int64(r.opts.MaxAbandoned) {
		r.observe(e.name, outcomeBusy, 0)
		return Verdict{}, false
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, r.opts.Budget)
	defer cancel()
	done := make(chan answer, 1) // buffered: an abandoned call still delivers and ends
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- answer{panic: v}
			}
		}()
		v, err := e.p.Process(cctx, p)
		done <- answer{v: v, err: err}
	}()
	select {
	case a := <-done:
		took := time.Since(start)
		switch {
		case a.panic != nil:
			r.observe(e.name, outcomePanic, took)
			r.log.Error("processor panicked", "processor", e.name, "url", p.URL, "panic", fmt.Sprint(a.panic))
			return Verdict{}, false
		case errors.Is(a.err, ErrBroken):
			// Said once, in words, when the processor was taken as broken.
			r.observe(e.name, outcomeBroken, 0)
			e.broken.Add(1)
			return Verdict{}, false
		case errors.As(a.err, new(*ProtocolError)):
			r.observe(e.name, outcomeProtocol, took)
			r.log.Debug("processor answered out of protocol", "processor", e.name, "url", p.URL, "err", a.err)
			return Verdict{}, false
		case a.err != nil:
			outcome := outcomeError
			if cctx.Err() != nil && ctx.Err() == nil {
				outcome = outcomeTimeout
			}
			r.observe(e.name, outcome, took)
			r.log.Warn("processor failed", "processor", e.name, "url", p.URL, "err", a.err)
			return Verdict{}, false
		}
		r.observe(e.name, outcomeOK, took)
		return a.v, true
	case <-cctx.Done():
		e.abandoned.Add(1)
		go func() { // ends when the abandoned call does
			<-done
			e.abandoned.Add(-1)
		}()
		r.observe(e.name, outcomeTimeout, time.Since(start))
		r.log.Warn("processor overran its budget", "processor", e.name, "url", p.URL, "budget", r.opts.Budget)
		return Verdict{}, false
	}
}

func validKey(k string) bool {
	if k == "" || len(k) > MaxKey {
		return false
	}
	for i := range len(k) {
		c := k[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// jsonValue is the annotation k of the JSON value v, compacted (HTML
// characters unescaped, invalid UTF-8 replaced, numbers as written); a
// JSON string becomes a text annotation. False when v is not JSON or is
// over MaxValue bytes compacted.
func jsonValue(k string, v json.RawMessage) (Annotation, bool) {
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil || d.More() {
		return Annotation{}, false
	}
	if s, ok := x.(string); ok {
		return Annotation{Key: k, Value: cleanValue(s)}, true
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return Annotation{}, false
	}
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	if len(out) > MaxValue {
		return Annotation{}, false
	}
	return Annotation{Key: k, Value: string(out), JSON: true}, true
}

// cleanValue makes v one line of at most MaxValue bytes of valid UTF-8.
func cleanValue(v string) string {
	v = strings.ToValidUTF8(v, "\uFFFD")
	v = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, v)
	if len(v) > MaxValue {
		v = strings.ToValidUTF8(v[:MaxValue], "")
	}
	return v
}

type metrics struct {
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// RegisterMetrics registers the runner's metrics on reg: calls by
// processor and outcome (ok, error, panic, timeout, busy) and the time
// they took. The processor label is bounded by the configured processors.
func (r *Runner) RegisterMetrics(reg prometheus.Registerer) error {
	m := &metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "godwit_processor_calls_total",
			Help: "Processor calls by processor and outcome: ok, error, panic, timeout, protocol (an answer line out of protocol), busy (skipped: too many overrun calls still running), broken (skipped: taken as broken).",
		}, []string{"processor", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "godwit_processor_duration_seconds",
			Help:    "Time a processor took over one page (until its budget, for overruns).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"processor"}),
	}
	for _, c := range []prometheus.Collector{m.calls, m.duration} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	r.metrics.Store(m)
	return nil
}

func (r *Runner) observe(name, outcome string, took time.Duration) {
	m := r.metrics.Load()
	if m == nil {
		return
	}
	m.calls.WithLabelValues(name, outcome).Inc()
	if outcome != outcomeBusy && outcome != outcomeBroken {
		m.duration.WithLabelValues(name).Observe(took.Seconds())
	}
}

// State is what a Runner says of one of its processors.
type State struct {
	Name string
	// Broken: the processor is taken as broken (an external processor
	// whose answers are out of protocol), and Why says how, in words.
	Broken bool
	Why    string
	// Skipped counts the pages that went on without it because it was
	// broken.
	Skipped int64
}

// breakable is a processor that can be taken as broken: Exec.
type breakable interface {
	Broken() (bool, string)
}

// States are the runner's processors' states, in order.
func (r *Runner) States() []State {
	out := make([]State, 0, len(r.procs))
	for _, e := range r.procs {
		s := State{Name: e.name, Skipped: e.broken.Load()}
		if b, ok := e.p.(breakable); ok {
			s.Broken, s.Why = b.Broken()
		}
		out = append(out, s)
	}
	return out
}

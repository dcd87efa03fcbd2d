package process

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The test binary doubles as an external processor: with
// GODWIT_TEST_CHILD set it serves the protocol on stdin/stdout instead
// of running tests. The mode says how it misbehaves:
//
//	echo          answers every request: child=<pid>, url=<url>
//	exit-after=N  exits (status 1) on reading its Nth request
//	hang-after=N  stops answering from its Nth request on
//	noise         writes a line that is not an answer before each answer
//	error         answers every request with an error
//	no-id-until=N answers its first N requests without an id (numbers as
//	              values), as a first try at the protocol might; then
//	              answers every request like echo
//	values        answers every request with values of every JSON kind
//	batch         answers only once no request came for 100 ms, then all
//	              it holds at once, each with pending=<how many it held>
func TestMain(m *testing.M) {
	if mode := os.Getenv("GODWIT_TEST_CHILD"); mode != "" {
		serveAsChild(mode)
		return
	}
	goleak.VerifyTestMain(m)
}

func serveAsChild(mode string) {
	if mode == "batch" {
		serveBatches()
		return
	}
	name, arg, _ := strings.Cut(mode, "=")
	n, _ := strconv.Atoi(arg)
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := json.NewEncoder(os.Stdout)
	for i := 1; ; i++ {
		line, err := in.ReadBytes('\n')
		if err != nil {
			os.Exit(0) // stdin closed: the crawl is over
		}
		var req Request
		if err := json.Unmarshal(line, &req); err != nil {
			fmt.Fprintln(os.Stderr, "bad request:", err)
			os.Exit(2)
		}
		switch {
		case name == "exit-after" && i >= n:
			os.Exit(1)
		case name == "hang-after" && i >= n:
			continue
		case name == "noise":
			fmt.Println("not json")
		case name == "error":
			out.Encode(Answer{ID: req.ID, Error: "cannot"})
			continue
		case name == "no-id-until" && i <= n:
			fmt.Println(`{"annotations": {"score": 0.5, "words": 312}}`)
			continue
		case name == "values":
			fmt.Printf(`{"id": %d, "annotations": {"score": 0.5, "words": 312, "tags": ["a", "<b>"], "lang": {"code": "en", "p": 0.9}, "ok": true, "none": null, "name": "plain"}}`+"\n", req.ID)
			continue
		}
		out.Encode(Answer{ID: req.ID, Annotations: map[string]json.RawMessage{
			"child": jsonString(strconv.Itoa(os.Getpid())), "url": jsonString(req.URL), "title": jsonString(req.Title),
		}, Links: []string{req.URL + "#more"}})
	}
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// serveBatches is the batch mode: it holds every request it reads until
// none has come for 100 ms, so the number it holds is the number godwit
// has sent and not seen answered.
func serveBatches() {
	reqs := make(chan Request)
	go func() {
		in := bufio.NewReaderSize(os.Stdin, 1<<20)
		for {
			line, err := in.ReadBytes('\n')
			if err != nil {
				os.Exit(0)
			}
			var req Request
			if json.Unmarshal(line, &req) == nil {
				reqs <- req
			}
		}
	}()
	out := json.NewEncoder(os.Stdout)
	var held []Request
	for {
		select {
		case r := <-reqs:
			held = append(held, r)
		case <-time.After(100 * time.Millisecond):
			for _, r := range held {
				out.Encode(Answer{ID: r.ID, Annotations: map[string]json.RawMessage{"pending": jsonString(strconv.Itoa(len(held)))}})
			}
			held = held[:0]
		}
	}
}

// startExec runs an Exec over the test binary in mode until the test ends.
func startExec(t *testing.T, mode string, cfg ExecConfig) *Exec {
	t.Helper()
	t.Setenv("GODWIT_TEST_CHILD", mode)
	cfg.Command = []string{os.Args[0], "-test.run=^$"}
	if cfg.BackoffMin == 0 {
		cfg.BackoffMin = 10 * time.Millisecond
	}
	e, err := NewExec(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		if _, err := e.Process(context.Background(), &Page{URL: "http://late.test/"}); err == nil {
			t.Error("Process after Run ended: no error")
		}
	})
	return e
}

func TestExecAnswersConcurrentPages(t *testing.T) {
	e := startExec(t, "echo", ExecConfig{InFlight: 3, Timeout: 10 * time.Second})
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			u := fmt.Sprintf("http://a.test/%d", i)
			v, err := e.Process(t.Context(), &Page{URL: u, Title: "T", Body: []byte("<p>\n\"x\"</p>")})
			if err != nil {
				t.Errorf("Process(%s): %v", u, err)
				return
			}
			if v.Annotations["url"] != u || v.Annotations["title"] != "T" || len(v.Links) != 1 {
				t.Errorf("Process(%s) = %+v: the answer of another page", u, v)
			}
		})
	}
	wg.Wait()
}

// TestExecBoundsPagesInFlight: with InFlight 3 and twelve pages at
// once, the child never holds more than 3 requests unanswered (judged by
// the child), and does hold 3: the bound is what limits it.
func TestExecBoundsPagesInFlight(t *testing.T) {
	e := startExec(t, "batch", ExecConfig{InFlight: 3, Timeout: 10 * time.Second})
	var mu sync.Mutex
	most := 0
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			v, err := e.Process(t.Context(), &Page{URL: fmt.Sprintf("http://a.test/%d", i)})
			if err != nil {
				t.Errorf("page %d: %v", i, err)
				return
			}
			n, _ := strconv.Atoi(v.Annotations["pending"])
			mu.Lock()
			most = max(most, n)
			mu.Unlock()
		})
	}
	wg.Wait()
	if most != 3 {
		t.Errorf("the child held at most %d requests unanswered, want the bound, 3", most)
	}
}

// TestExecRestartsAfterExit: a child that dies on its third page is
// restarted, and the page it took down is sent again to the new child.
func TestExecRestartsAfterExit(t *testing.T) {
	e := startExec(t, "exit-after=3", ExecConfig{Timeout: 10 * time.Second})
	pids := map[string]bool{}
	for i := range 8 {
		v, err := e.Process(t.Context(), &Page{URL: fmt.Sprintf("http://a.test/%d", i)})
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		pids[v.Annotations["child"]] = true
	}
	if len(pids) < 3 {
		t.Errorf("answers came from %d children, want a new one after each exit (3 or more)", len(pids))
	}
}

// TestExecKillsHungChild: pages time out while the child does not
// answer; after KillAfter timeouts in a row it is killed and restarted.
func TestExecKillsHungChild(t *testing.T) {
	e := startExec(t, "hang-after=2", ExecConfig{Timeout: 200 * time.Millisecond, KillAfter: 2})
	first, err := e.Process(t.Context(), &Page{URL: "http://a.test/1"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 3; i++ {
		if _, err := e.Process(t.Context(), &Page{URL: fmt.Sprintf("http://a.test/%d", i)}); err == nil {
			t.Fatalf("page %d answered by a hung child", i)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := e.Process(t.Context(), &Page{URL: "http://a.test/4"})
		if err == nil {
			if v.Annotations["child"] == first.Annotations["child"] {
				t.Fatal("the hung child answered")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer after the hung child was killed: %v", err)
		}
	}
}

func TestExecNoiseAndErrors(t *testing.T) {
	e := startExec(t, "noise", ExecConfig{})
	if v, err := e.Process(t.Context(), &Page{URL: "http://a.test/"}); err != nil || v.Annotations["url"] != "http://a.test/" {
		t.Errorf("noise: %+v, %v; want the answer after the noise", v, err)
	}
	e2 := startExec(t, "error", ExecConfig{})
	if _, err := e2.Process(t.Context(), &Page{URL: "http://a.test/"}); err == nil || !strings.Contains(err.Error(), "cannot") {
		t.Errorf("error answer: %v, want the child's error", err)
	}
}

func TestExecCommandMissing(t *testing.T) {
	e, err := NewExec(ExecConfig{Command: []string{"/nonexistent/processor"}, Timeout: 100 * time.Millisecond, BackoffMin: time.Millisecond, BackoffMax: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	if _, err := e.Process(t.Context(), &Page{URL: "http://a.test/"}); err == nil {
		t.Error("Process without a child: no error")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// A processor whose answers carry no id does not make pages wait out
// their timeout: each such line fails a page at once, three take it as
// broken, later pages do not wait for it, and the log says what is wrong
// once, in words.
func TestExecNoIDBreaks(t *testing.T) {
	var logged syncBuffer
	var broken []error
	var mu sync.Mutex
	e := startExec(t, "no-id-until=1000000", ExecConfig{
		Timeout: 10 * time.Second, InFlight: 8, OpenFor: time.Hour, OpenMax: time.Hour,
		Logger: slog.New(slog.NewTextHandler(&logged, nil)),
		OnBroken: func(err error) {
			mu.Lock()
			broken = append(broken, err)
			mu.Unlock()
		},
	})
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 40)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = e.Process(t.Context(), &Page{URL: fmt.Sprintf("http://a.test/%d", i)})
		})
	}
	wg.Wait()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("40 pages took %v: they waited for answers that were not coming (timeout 10s)", took)
	}
	for i, err := range errs {
		if !errors.Is(err, ErrBroken) && !errors.As(err, new(*ProtocolError)) {
			t.Errorf("page %d: %v, want a protocol error or ErrBroken", i, err)
		}
	}
	// Pages that come once it is broken are not sent to it.
	if _, err := e.Process(t.Context(), &Page{URL: "http://a.test/later"}); !errors.Is(err, ErrBroken) {
		t.Errorf("page after the processor broke: %v, want ErrBroken", err)
	}
	if ok, why := e.Broken(); !ok || why != `its answers carry no "id"` {
		t.Errorf("Broken() = %v, %q; want true, its answers carry no \"id\"", ok, why)
	}
	mu.Lock()
	if len(broken) != 1 || broken[0].Error() != `processor `+e.Name()+`: its answers carry no "id"; see docs/processors.md` {
		t.Errorf("OnBroken got %v, want once: processor %s: its answers carry no \"id\"; see docs/processors.md", broken, e.Name())
	}
	mu.Unlock()
	if n := strings.Count(logged.String(), `carry no \"id\"`); n != 1 {
		t.Errorf("the mistake is logged %d times, want once:\n%s", n, logged.String())
	}
}

// Once its cool-down is over, a broken processor is sent one page, a
// probe; its answer closes the breaker.
func TestExecBreakerProbe(t *testing.T) {
	e := startExec(t, "no-id-until=3", ExecConfig{Timeout: 10 * time.Second, InFlight: 1, OpenFor: 20 * time.Millisecond, OpenMax: 20 * time.Millisecond})
	for i := range 3 {
		if _, err := e.Process(t.Context(), &Page{URL: "http://a.test/"}); err == nil {
			t.Fatalf("page %d answered without an id: no error", i)
		}
	}
	if ok, _ := e.Broken(); !ok {
		t.Fatal("three answers without an id: not taken as broken")
	}
	if _, err := e.Process(t.Context(), &Page{URL: "http://a.test/"}); !errors.Is(err, ErrBroken) {
		t.Errorf("page while broken: %v, want ErrBroken at once", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		v, err := e.Process(t.Context(), &Page{URL: "http://b.test/"})
		if err == nil {
			if v.Annotations["url"] != "http://b.test/" {
				t.Errorf("probe's verdict %+v, want url=http://b.test/", v)
			}
			break
		}
		if !errors.Is(err, ErrBroken) || time.Now().After(deadline) {
			t.Fatalf("waiting for the probe to close the breaker: %v", err)
		}
		time.Sleep(5 * time.Millisecond) // the breaker's cool-down, 20ms
	}
	if ok, _ := e.Broken(); ok {
		t.Error("answered probe: still broken")
	}
}

// Annotation values may be any JSON: numbers, lists and objects are kept
// as JSON, compact; strings stay text.
func TestExecJSONValues(t *testing.T) {
	e := startExec(t, "values", ExecConfig{})
	r, err := NewRunner([]Processor{e}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Run(t.Context(), &Page{URL: "http://a.test/"})
	want := []Annotation{
		{Key: "lang", Value: `{"code":"en","p":0.9}`, JSON: true},
		{Key: "name", Value: "plain"},
		{Key: "none", Value: "null", JSON: true},
		{Key: "ok", Value: "true", JSON: true},
		{Key: "score", Value: "0.5", JSON: true},
		{Key: "tags", Value: `["a","<b>"]`, JSON: true},
		{Key: "words", Value: "312", JSON: true},
	}
	if !slices.Equal(res.Annotations, want) {
		t.Errorf("annotations = %v, want %v", res.Annotations, want)
	}
}

func TestParseAnswerMistakes(t *testing.T) {
	for _, tc := range []struct{ line, id, mistake string }{
		{`{"id": 3, "annotations": {"a": "b"}}`, "3", ""},
		{`{"annotations": {"score": 0.5}}`, "0", `its answers carry no "id"`},
		{`not json`, "0", "its answers are not JSON objects, one a line"},
		{`{"id": 4, "links": "http://x/"}`, "4", `the "links" of its answers is a JSON string, not what the protocol says`},
		{`{"id": 5, "annotations": ["a"]}`, "5", `the "annotations" of its answers is a JSON array, not what the protocol says`},
		{`{"id": "6", "annotations": {}}`, "0", `the "id" of its answers is a JSON string, not the request's number`},
		{`[1, 2]`, "0", "its answers are not JSON objects, one a line"},
	} {
		a, mistake := parseAnswer([]byte(tc.line))
		if strconv.FormatUint(a.ID, 10) != tc.id || mistake != tc.mistake {
			t.Errorf("parseAnswer(%q) = id %d, %q; want id %s, %q", tc.line, a.ID, mistake, tc.id, tc.mistake)
		}
	}
}

package process

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
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
		}
		out.Encode(Answer{ID: req.ID, Annotations: map[string]string{
			"child": strconv.Itoa(os.Getpid()), "url": req.URL, "title": req.Title,
		}, Links: []string{req.URL + "#more"}})
	}
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
				out.Encode(Answer{ID: r.ID, Annotations: map[string]string{"pending": strconv.Itoa(len(held))}})
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

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/pflag"

	clusterjs "github.com/godwit-crawler/godwit/internal/cluster/jetstream"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/events"
	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/process"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// tagger is a Go processor that annotates every page it sees.
type tagger struct{}

func (tagger) Name() string { return "tagger" }
func (tagger) Process(_ context.Context, p *process.Page) (process.Verdict, error) {
	return process.Verdict{Annotations: map[string]string{"go": "yes", "go-status": strconv.Itoa(p.Status)}}, nil
}

// trouble is a Go processor that panics on every fourth page and hangs,
// deaf to its context, on its 2nd and 9th until the test ends.
type trouble struct {
	n       atomic.Int64
	release chan struct{}
}

func (*trouble) Name() string { return "trouble" }
func (tr *trouble) Process(context.Context, *process.Page) (process.Verdict, error) {
	switch i := tr.n.Add(1); {
	case i%4 == 1:
		panic("trouble: on purpose")
	case i == 2 || i == 9:
		<-tr.release
	}
	return process.Verdict{Annotations: map[string]string{"trouble": "survived"}}, nil
}

// shProcessor writes an external processor as a POSIX shell script using
// builtins only: it answers every request with key=yes, after running
// misbehave (shell code; $n is the request's number in this child's
// life, $marker a file that survives restarts).
func shProcessor(t *testing.T, key, misbehave string) string {
	t.Helper()
	dir := t.TempDir()
	script := `marker="` + filepath.Join(dir, "marker") + `"
n=0
while IFS= read -r line; do
  n=$((n+1))
  ` + misbehave + `
  id=${line#'{"id":'}
  id=${id%%,*}
  printf '{"id":%s,"annotations":{"` + key + `":"yes"}}\n' "$id"
done
`
	path := filepath.Join(dir, key+".sh")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "exec:sh " + path
}

// warcPages reads every WARC file of a crawl: the response and revisit
// records of pages (robots.txt excluded) by record ID, and the
// annotations of each page's metadata record by the record it refers to.
type warcPage struct {
	uri, typ, digest string
	file             string
	annotations      map[string]string
}

func warcPages(t *testing.T, res crawlResult) map[string]*warcPage {
	t.Helper()
	pages := map[string]*warcPage{}
	meta := map[string]map[string]string{}
	for _, name := range res.WARCFiles {
		fh, err := os.Open(filepath.Join(res.WARCDir, name))
		if err != nil {
			t.Fatal(err)
		}
		rd, err := warc.NewReader(fh)
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			h := &rec.Header
			uri := h.Get(warc.FieldTargetURI)
			switch rec.Type {
			case warc.TypeResponse, warc.TypeRevisit:
				if !strings.HasSuffix(uri, "/robots.txt") {
					pages[h.Get(warc.FieldRecordID)] = &warcPage{uri: uri, typ: rec.Type, digest: h.Get(warc.FieldPayloadDigest), file: name}
				}
			case warc.TypeMetadata:
				fields, err := warc.ParseFields(rec.Block)
				if err != nil {
					t.Fatal(err)
				}
				ann := map[string]string{}
				for _, f := range fields {
					switch f.Name {
					case "annotation":
						k, v, _ := strings.Cut(f.Value, "=")
						ann[k] = v
					case "annotation-json": // a JSON value, kept so: "json:" marks it here
						k, v, _ := strings.Cut(f.Value, "=")
						ann[k] = "json:" + v
					}
				}
				meta[h.Get(warc.FieldRefersTo)] = ann
			}
		}
		fh.Close()
	}
	for id, p := range pages {
		p.annotations = meta[id]
	}
	return pages
}

// readEvents reads the rotated events files, then the live one.
func readEvents(t *testing.T, path string) (evs []events.Event, rotated int) {
	t.Helper()
	files, err := events.Rotated(path)
	if err != nil {
		t.Fatal(err)
	}
	rotated = len(files)
	for _, f := range append(files, path) {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var e events.Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("%s: %v: %s", f, err, sc.Text())
			}
			evs = append(evs, e)
		}
		fh.Close()
	}
	return evs, rotated
}

// readAt reads the record an event's WARC location points at.
func readAt(t *testing.T, dir string, loc events.Location) *warc.Record {
	t.Helper()
	fh, err := os.Open(filepath.Join(dir, loc.File))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rd, err := warc.NewReader(io.NewSectionReader(fh, loc.Offset, loc.Length))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := rd.Next()
	if err != nil {
		t.Fatalf("%s@%d: %v", loc.File, loc.Offset, err)
	}
	return rec
}

// TestProcessorsAnnotateAndEventsReadBack: a crawl with the built-in
// structured processor, a Go processor and an exec: processor annotates
// every page, in its metadata record and its event; the events file,
// rotated, has one event per archived page, and each event's WARC
// location reads back that page's record.
func TestProcessorsAnnotateAndEventsReadBack(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 3, PagesPerHost: 15, Seed: 5})
	s := testSettings(t, addr)
	s.Delay = 5 * time.Millisecond
	evPath := filepath.Join(t.TempDir(), "events", "pages.jsonl")
	s.Process.Processors = []string{"structured", shProcessor(t, "sh", "")}
	s.Process.Events = "jsonl:" + evPath
	s.Process.EventsMaxSize = 8 << 10 // several files
	s.goProcessors = []process.Processor{tagger{}}
	res := crawlInProcess(t, s, web.Seeds())
	checkReport(t, web.Report(fakeweb.Judge{Delay: s.Delay}))

	pages := warcPages(t, res)
	if len(pages) < 45 {
		t.Fatalf("%d pages archived, want the whole web (45 or more)", len(pages))
	}
	for id, p := range pages {
		if p.annotations["go"] != "yes" || p.annotations["sh"] != "yes" {
			t.Errorf("%s (%s): metadata annotations %v, want go=yes and sh=yes", p.uri, id, p.annotations)
		}
	}

	evs, rotated := readEvents(t, evPath)
	if rotated == 0 {
		t.Errorf("events file never rotated at %d bytes", s.Process.EventsMaxSize)
	}
	if len(evs) != len(pages) {
		t.Errorf("%d events, %d pages archived: want one each", len(evs), len(pages))
	}
	seen := map[string]bool{}
	for _, e := range evs {
		id := e.WARC.RecordID
		p, ok := pages[id]
		switch {
		case seen[id]:
			t.Errorf("%s: two events for record %s", e.URL, id)
			continue
		case !ok:
			t.Errorf("%s: event for record %s, not a page in the WARC files", e.URL, id)
			continue
		}
		seen[id] = true
		rec := readAt(t, res.WARCDir, e.WARC)
		if got := rec.Header.Get(warc.FieldRecordID); got != id || rec.Header.Get(warc.FieldTargetURI) != e.URL || e.URL != p.uri {
			t.Errorf("event %s at %s@%d reads back record %s of %s, want %s", e.URL, e.WARC.File, e.WARC.Offset, got, rec.Header.Get(warc.FieldTargetURI), id)
		}
		if e.Digest != p.digest {
			t.Errorf("%s: event digest %q, record's %q", e.URL, e.Digest, p.digest)
		}
		if string(e.Annotations["go"]) != `"yes"` || string(e.Annotations["sh"]) != `"yes"` || string(e.Annotations["go-status"]) != strconv.Quote(strconv.Itoa(e.Status)) {
			t.Errorf("%s: event annotations %v, want go=yes, sh=yes, go-status=%d", e.URL, e.Annotations, e.Status)
		}
		if e.Status == 200 && (e.SimHash == "" || e.Title == "" || len(e.Outlinks) == 0) {
			t.Errorf("%s: event %+v lacks simhash, title or outlinks", e.URL, e)
		}
	}
}

// TestProcessorFailuresCostNoPage: Go processors that panic and hang, an
// exec: processor that exits mid-crawl and one that stops answering cost
// no page: the web is covered, nothing fetched twice; the pages the dying
// child had in flight are processed by its successor, and the hung child
// is replaced.
func TestProcessorFailuresCostNoPage(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 3, PagesPerHost: 15, Seed: 6})
	s := testSettings(t, addr)
	s.Delay = 5 * time.Millisecond
	s.Process.Budget = time.Second
	s.Process.Processors = []string{
		// Exits on its fourth page, once.
		shProcessor(t, "dies", `if [ "$n" -eq 4 ] && [ ! -e "$marker" ]; then : > "$marker"; exit 3; fi`),
		// Stops answering from its third page on, once: it reads on and
		// says nothing until killed.
		shProcessor(t, "hangs", `if [ "$n" -eq 3 ] && [ ! -e "$marker" ]; then : > "$marker"; while IFS= read -r line; do :; done; exit 0; fi`),
	}
	tr := &trouble{release: make(chan struct{})}
	t.Cleanup(func() { close(tr.release) })
	s.goProcessors = []process.Processor{tagger{}, tr}
	res := crawlInProcess(t, s, web.Seeds())
	r := web.Report(fakeweb.Judge{Delay: s.Delay})
	checkReport(t, r)
	if r.Duplicates != 0 {
		t.Errorf("%d pages fetched twice", r.Duplicates)
	}

	pages := warcPages(t, res)
	hung := 0
	for _, p := range pages {
		if p.annotations["go"] != "yes" || p.annotations["dies"] != "yes" {
			t.Errorf("%s: annotations %v, want go=yes and dies=yes (the dying child's pages go to the next)", p.uri, p.annotations)
		}
		if p.annotations["hangs"] == "yes" {
			hung++
		}
	}
	if tr.n.Load() < int64(len(pages)) {
		t.Errorf("trouble saw %d pages of %d", tr.n.Load(), len(pages))
	}
	// The first child answers two pages; the rest come from the next.
	if hung <= 2 || hung >= len(pages) {
		t.Errorf("%d of %d pages annotated by the processor that hung once, want more than 2 (restarted) and not all", hung, len(pages))
	}
}

// noIDProcessor is the first try at an external processor the issue
// describes: it answers every request, but without the request's id, and
// with numbers as annotation values.
func noIDProcessor(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "noid.sh")
	script := "while IFS= read -r line; do printf '%s\\n' '{\"annotations\": {\"score\": 0.5, \"words\": 312}}'; done\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "exec:sh " + path
}

// TestProcessorWithoutIDsCostsNoTime: an exec: processor whose answers
// carry no id is taken as broken after its first lines: the crawl covers
// the web and no page waits out the 10s processor timeout; the summary
// and the admin status say it went on without the processor.
func TestProcessorWithoutIDsCostsNoTime(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 4, PagesPerHost: 10, Seed: 8})
	s := testSettings(t, addr)
	s.Delay = 5 * time.Millisecond
	s.Process.Budget = 10 * time.Second
	s.Process.Processors = []string{noIDProcessor(t)}
	res := crawlInProcess(t, s, web.Seeds())
	checkReport(t, web.Report(fakeweb.Judge{Delay: s.Delay}))
	if res.Stats.Elapsed >= 5*time.Second {
		t.Errorf("crawl took %v: pages waited for answers that were not coming (timeout 10s)", res.Stats.Elapsed)
	}
	if len(res.Broken) != 1 || !strings.Contains(res.Broken[0], `exec:sh taken as broken (its answers carry no "id")`) {
		t.Errorf("summary's broken processors %q, want exec:sh taken as broken (its answers carry no \"id\")", res.Broken)
	}
	var out strings.Builder
	printSummary(&out, res)
	if !strings.Contains(out.String(), "processors  exec:sh taken as broken") {
		t.Errorf("summary does not say the processor was taken as broken:\n%s", out.String())
	}
}

// TestProcessorValuesAreJSON: an exec: processor's numbers, lists and
// objects are kept as JSON in the metadata record (annotation-json) and
// in the event; strings stay text.
func TestProcessorValuesAreJSON(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 1, PagesPerHost: 5, Seed: 9})
	s := testSettings(t, addr)
	s.Delay = 5 * time.Millisecond
	evPath := filepath.Join(t.TempDir(), "pages.jsonl")
	s.Process.Events = "jsonl:" + evPath
	dir := t.TempDir()
	script := `while IFS= read -r line; do
  id=${line#'{"id":'}
  id=${id%%,*}
  printf '{"id":%s,"annotations":{"score":0.5,"words":312,"tags":["a","b"],"lang":{"code":"en","p":0.9},"name":"plain"}}\n' "$id"
done
`
	path := filepath.Join(dir, "values.sh")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s.Process.Processors = []string{"exec:sh " + path}
	res := crawlInProcess(t, s, web.Seeds())
	checkReport(t, web.Report(fakeweb.Judge{Delay: s.Delay}))
	want := map[string]string{"score": "json:0.5", "words": "json:312", "tags": `json:["a","b"]`, "lang": `json:{"code":"en","p":0.9}`, "name": "plain"}
	pages := warcPages(t, res)
	if len(pages) == 0 {
		t.Fatal("no pages archived")
	}
	for _, p := range pages {
		for k, v := range want {
			if p.annotations[k] != v {
				t.Errorf("%s: metadata annotation %s = %q, want %q", p.uri, k, p.annotations[k], v)
			}
		}
	}
	evs, _ := readEvents(t, evPath)
	if len(evs) != len(pages) {
		t.Errorf("%d events, %d pages", len(evs), len(pages))
	}
	for _, e := range evs {
		got, _ := json.Marshal(e.Annotations)
		if string(got) != `{"lang":{"code":"en","p":0.9},"name":"plain","score":0.5,"tags":["a","b"],"words":312}` {
			t.Errorf("%s: event annotations %s, want the values as JSON", e.URL, got)
		}
	}
}

func TestProcessorFlags(t *testing.T) {
	parse := func(args ...string) (crawlSettings, error) {
		var f crawlFlags
		fs := pflag.NewFlagSet("crawl", pflag.ContinueOnError)
		f.register(fs)
		if err := fs.Parse(args); err != nil {
			return crawlSettings{}, err
		}
		return f.settings(fs, fs.Args())
	}
	s, err := parse("--processor", "structured", "--processor", "exec:python3 examples/processors/language.py --min 3",
		"--events", "jsonl:/tmp/ev.jsonl", "--processor-timeout", "2s")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Process.Processors) != 2 || s.Process.Processors[1] != "exec:python3 examples/processors/language.py --min 3" ||
		s.Process.Events != "jsonl:/tmp/ev.jsonl" || s.Process.Budget != 2*time.Second {
		t.Errorf("settings = %+v", s.Process)
	}
	if s.Process.Errors != "skip" {
		t.Errorf("processor errors %q by default, want skip", s.Process.Errors)
	}
	if s, err := parse("--processor-errors", "stop"); err != nil || s.Process.Errors != "stop" {
		t.Errorf("--processor-errors stop: %q, %v", s.Process.Errors, err)
	}
	argv, _ := execCommand(s.Process.Processors[1])
	if len(argv) != 4 || argv[0] != "python3" || argv[3] != "3" {
		t.Errorf("execCommand = %q", argv)
	}
	for _, bad := range [][]string{
		{"--processor", "language"},
		{"--processor", "exec:  "},
		{"--events", "nats://localhost"},
		{"--events", "nats://localhost/pages.*"},
		{"--events", "jsonl:"},
		{"--processor-timeout", "-1s"},
		{"--processor-errors", "ignore"},
	} {
		if _, err := parse(bad...); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// steer is a Go processor that keeps every page's links from being
// followed and, on a host's home page, queues /p/5 (relative) and a URL
// out of scope.
type steer struct{}

func (steer) Name() string { return "steer" }
func (steer) Process(_ context.Context, p *process.Page) (process.Verdict, error) {
	v := process.Verdict{SkipLinks: true}
	if strings.HasSuffix(p.URL, "/") {
		v.Links = []string{"p/5", "http://elsewhere.example/"}
	}
	return v, nil
}

// TestProcessorSteersDiscovery: a processor's "skip links" keeps a page's
// links from being followed, and the links it adds are queued through the
// discovery chain (resolved against the page, scope applied): the web
// sees exactly each host's home page and /p/5.
func TestProcessorSteersDiscovery(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 20, Seed: 4})
	s := testSettings(t, addr)
	s.Delay = 5 * time.Millisecond
	s.goProcessors = []process.Processor{steer{}}
	crawlInProcess(t, s, web.Seeds())
	got := map[string]bool{}
	for _, rq := range web.Requests() {
		if rq.Path != "/robots.txt" {
			got[rq.RawURL] = true
		}
	}
	want := map[string]bool{}
	for _, seed := range web.Seeds() {
		want[seed] = true
		want[strings.TrimSuffix(seed, "/")+"/p/5"] = true
	}
	for u := range got {
		if !want[u] {
			t.Errorf("fetched %s: not the home page nor the processor's link", u)
		}
	}
	for u := range want {
		if !got[u] {
			t.Errorf("%s not fetched", u)
		}
	}
}

// TestEventsOnNATS: with --events nats://…/SUBJECT, the stream holds one
// event per archived page, each locating its record in the WARC files.
func TestEventsOnNATS(t *testing.T) {
	srv, err := clusterjs.NewServer(clusterjs.ServerConfig{Listen: "127.0.0.1:0", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	web, addr := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 10, Seed: 7})
	s := testSettings(t, addr)
	s.Delay = 5 * time.Millisecond
	s.Process.Events = srv.ClientURL() + "/crawl.pages"
	res := crawlInProcess(t, s, web.Seeds())
	checkReport(t, web.Report(fakeweb.Judge{Delay: s.Delay}))
	pages := warcPages(t, res)

	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := natsjs.New(nc)
	stream, err := js.Stream(t.Context(), events.StreamName("crawl.pages"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := stream.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if int(info.State.Msgs) != len(pages) || len(pages) < 20 {
		t.Fatalf("%d events in the stream, %d pages archived: want one each", info.State.Msgs, len(pages))
	}
	cons, err := stream.OrderedConsumer(t.Context(), natsjs.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for range len(pages) {
		m, err := cons.Next(natsjs.FetchMaxWait(5 * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		var e events.Event
		if err := json.Unmarshal(m.Data(), &e); err != nil {
			t.Fatal(err)
		}
		p, ok := pages[e.WARC.RecordID]
		if !ok || seen[e.WARC.RecordID] || p.uri != e.URL {
			t.Errorf("event %s for record %s: a page %v, seen before %v", e.URL, e.WARC.RecordID, ok, seen[e.WARC.RecordID])
		}
		seen[e.WARC.RecordID] = true
		if rec := readAt(t, res.WARCDir, e.WARC); rec.Header.Get(warc.FieldRecordID) != e.WARC.RecordID {
			t.Errorf("event %s does not read back its record", e.URL)
		}
	}
}

// TestBinaryProcessorErrors: the processor whose answers carry no id,
// run by the built binary: the log says what is wrong once, in words, and
// the crawl covers the web (skip, the default); with --processor-errors
// stop (here its config key, processing.errors) the crawl stops, exit
// status 1, naming the processor.
func TestBinaryProcessorErrors(t *testing.T) {
	proc := noIDProcessor(t)
	for _, mode := range []string{"skip", "stop"} {
		t.Run(mode, func(t *testing.T) {
			web, addr := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 10, Seed: 10})
			args := append([]string{"crawl", "--proxy", "http://" + addr, "--delay", "5ms", "--admin", "off",
				"--data", filepath.Join(t.TempDir(), "data"), "--processor", proc}, web.Seeds()...)
			if mode == "stop" { // the config key; TestProcessorFlags checks the flag
				args = append(args, "--config", writeConfig(t, t.TempDir(), "processing:\n  errors: stop\n"))
			}
			res := runBinary(t, args...)
			const mistake = `processor exec:sh: its answers carry no \"id\"; see docs/processors.md`
			switch mode {
			case "skip":
				if res.code != 0 {
					t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
				}
				if n := strings.Count(res.stderr, mistake); n != 1 {
					t.Errorf("the log says %q %d times, want once:\n%s", mistake, n, res.stderr)
				}
				if strings.Contains(res.stderr, "cannot unmarshal") || strings.Contains(res.stderr, "context deadline exceeded") {
					t.Errorf("the log carries Go error text:\n%s", res.stderr)
				}
				checkReport(t, web.Report(fakeweb.Judge{Delay: 5 * time.Millisecond}))
			case "stop":
				want := `godwit: processor exec:sh: its answers carry no "id"; see docs/processors.md; the crawl stopped (--processor-errors stop)`
				if res.code != exitFailure || !strings.Contains(res.stderr, want) {
					t.Errorf("exit %d, want %d and %q\nstderr:\n%s", res.code, exitFailure, want, res.stderr)
				}
			}
		})
	}
}

// TestAdminStatusShowsBrokenProcessor: while the crawl runs, /api/status
// says the processor whose answers carry no id is broken, why, and how
// many pages went on without it; godwit status prints it.
func TestAdminStatusShowsBrokenProcessor(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 1, PagesPerHost: 30, Seed: 11})
	s := testSettings(t, addr)
	s.Delay = 40 * time.Millisecond // a second or so: the API is asked while it runs
	s.Process.Processors = []string{noIDProcessor(t)}
	s.Admin = "127.0.0.1:0"
	listening := make(chan string, 1)
	s.adminListening = func(a string) { listening <- a }
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := runCrawl(ctx, s, web.Seeds(), slog.New(slog.DiscardHandler), newTerminal(io.Discard))
		done <- err
	}()
	var api string
	select {
	case a := <-listening:
		api = "http://" + a
	case err := <-done:
		t.Fatalf("crawl ended before the admin server listened: %v", err)
	}
	var st admin.Status
	for {
		resp, err := http.Get(api + "/api/status")
		if err != nil {
			t.Fatal(err)
		}
		st = admin.Status{}
		json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if len(st.Processors) == 1 && st.Processors[0].Broken && st.Processors[0].Skipped > 0 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("crawl ended (%v) and the API never said the processor was broken: %+v", err, st.Processors)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if p := st.Processors[0]; p.Name != "exec:sh" || p.Why != `its answers carry no "id"` {
		t.Errorf("processor status %+v, want exec:sh broken: its answers carry no \"id\"", p)
	}
	var out strings.Builder
	printStatus(&out, st)
	if want := `exec:sh: broken (its answers carry no "id"); `; !strings.Contains(out.String(), want) {
		t.Errorf("godwit status lacks %q:\n%s", want, out.String())
	}
	cancel()
	<-done
}

package upload_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/goleak"

	"github.com/godwit-crawler/godwit/internal/blob"
	"github.com/godwit-crawler/godwit/internal/blobtest"
	"github.com/godwit-crawler/godwit/internal/upload"
	"github.com/godwit-crawler/godwit/internal/warc"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var day = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

// writeWARCs completes n small WARC files in dir, one record each, and
// returns their names and contents.
func writeWARCs(t *testing.T, dir string, n int) map[string][]byte {
	t.Helper()
	w, err := warc.NewWriter(warc.WriterConfig{Dir: dir, Node: "n1", MaxSize: 1, Now: func() time.Time { return day }})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		r := &warc.Record{Type: warc.TypeResource, Block: fmt.Appendf(nil, "content %d of %s", i, t.Name())}
		r.Header.Set(warc.FieldTargetURI, fmt.Sprintf("http://example.com/%d", i))
		if _, err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, name := range w.Files() {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	return files
}

// watchedStore checks, at every upload, that the file is still on disk,
// and fails the first upload of each key after the server stored it, as a
// verification that finds the object wrong would.
type watchedStore struct {
	upload.Store
	mu        sync.Mutex
	calls     map[string]int
	vanished  []string
	failFirst bool
}

func (w *watchedStore) PutFileNew(ctx context.Context, key, path string, how blob.Create) (blob.Object, error) {
	w.mu.Lock()
	if _, err := os.Stat(path); err != nil {
		w.vanished = append(w.vanished, path)
	}
	w.mu.Unlock()
	obj, err := w.Store.PutFileNew(ctx, key, path, how)
	if err != nil {
		return obj, err
	}
	w.mu.Lock()
	w.calls[key]++ // stored
	first := w.calls[key] == 1
	w.mu.Unlock()
	if first && w.failFirst {
		return blob.Object{}, errors.New("verify: stored object differs (test)")
	}
	return obj, nil
}

func newBucket(t *testing.T, s *blobtest.Server) *blob.Bucket {
	t.Helper()
	b, err := blob.Open("s3://"+s.Bucket+"/pre", s.Options())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.CloseIdleConnections)
	return b
}

func config(dir string) upload.Config {
	return upload.Config{
		Dir:        filepath.Join(dir, "warc"),
		Manifest:   filepath.Join(dir, "state", "uploads.jsonl"),
		Prefix:     "warc/c1/n1/",
		Scan:       20 * time.Millisecond,
		Backoff:    10 * time.Millisecond,
		BackoffMax: 40 * time.Millisecond,
		Logger:     slog.New(slog.DiscardHandler),
	}
}

// start runs u until the test ends; stop closes it (the last pass).
func start(t *testing.T, u *upload.Uploader) (stop func()) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- u.Run(context.Background()) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			if err := u.Close(); err != nil {
				t.Error(err)
			}
			if err := <-done; err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func key(name string) string { return "warc/c1/n1/2026-11-25/" + name }

// The store is down at first: files stay, pressure is reported; once it
// is up, every file is uploaded once, with its index, and deleted only
// after a verified upload.
func TestUploadStoreDownThenUp(t *testing.T) {
	dir := t.TempDir()
	s := blobtest.New(t, "bkt")
	s.SetDown(true)
	files := writeWARCs(t, filepath.Join(dir, "warc"), 2)

	store := &watchedStore{Store: newBucket(t, s), calls: map[string]int{}, failFirst: true}
	var pressure []bool
	var pmu sync.Mutex
	cfg := config(dir)
	cfg.SpoolMax = 1
	cfg.OnPressure = func(full bool) { pmu.Lock(); pressure = append(pressure, full); pmu.Unlock() }
	u, err := upload.New(cfg, store)
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, u)

	waitFor(t, "failed attempts while the store is down", func() bool { return u.Stats().Failures >= 3 })
	if !u.Full() {
		t.Error("spool over SpoolMax but Full() = false")
	}
	for name := range files {
		if _, err := os.Stat(filepath.Join(cfg.Dir, name)); err != nil {
			t.Errorf("%s left the spool while the store was down: %v", name, err)
		}
	}
	s.SetDown(false)
	waitFor(t, "the uploads", func() bool { return u.Stats().Pending == 0 && u.Stats().Uploaded == 4 })
	stop()

	for name, content := range files {
		if got := s.Object(t, "pre/"+key(name)); !bytes.Equal(got, content) {
			t.Errorf("object of %s differs from the file (%d bytes, want %d)", name, len(got), len(content))
		}
		idx := s.Object(t, "pre/"+key(warc.CDXJName(name)))
		if !bytes.Contains(idx, []byte(name)) || !bytes.Contains(idx, []byte("example.com")) {
			t.Errorf("index of %s in the store does not index it:\n%s", name, idx)
		}
		for _, k := range []string{key(name), key(warc.CDXJName(name))} {
			// The first put "failed verification" (watchedStore); the
			// retry found the same bytes there and wrote nothing.
			if n := s.Puts("pre/" + k); n != 1 {
				t.Errorf("server stored %s %d times, want once (the retry must not replace it)", k, n)
			}
			if n := refused(s, "pre/"+k); n != 1 {
				t.Errorf("server refused %d conditional puts of %s, want the retry's", n, k)
			}
		}
		if _, err := os.Stat(filepath.Join(cfg.Dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still in the spool after its upload (KeepLocal off): %v", name, err)
		}
	}
	if len(store.vanished) > 0 {
		t.Errorf("files deleted before a verified upload: %q", store.vanished)
	}
	if st := u.Stats(); st.Existing != 4 || st.Conflicts != 0 {
		t.Errorf("Stats %+v, want 4 files found already uploaded, no conflict", st)
	}
	pmu.Lock()
	defer pmu.Unlock()
	if !slices.Equal(pressure, []bool{true, false}) {
		t.Errorf("OnPressure calls %v, want [true false]", pressure)
	}
}

// A restart neither uploads a recorded file again nor forgets one, also
// when the manifest ends in a torn line; Close uploads what is left.
func TestUploadRestart(t *testing.T) {
	dir := t.TempDir()
	s := blobtest.New(t, "bkt")
	bucket := newBucket(t, s)
	cfg := config(dir)
	cfg.KeepLocal = true
	first := writeWARCs(t, cfg.Dir, 2)

	u, err := upload.New(cfg, bucket)
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, u)
	waitFor(t, "the first uploads", func() bool { return u.Stats().Uploaded == 4 })
	stop()
	for name := range first {
		if _, err := os.Stat(filepath.Join(cfg.Dir, name)); err != nil {
			t.Errorf("%s not kept with KeepLocal: %v", name, err)
		}
	}
	f, err := os.OpenFile(cfg.Manifest, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"file":"torn`); err != nil { // a crash mid-append
		t.Fatal(err)
	}
	f.Close()

	// The second run: a long scan interval, so that a file written after
	// its first pass goes up in the last pass, at Close.
	cfg.Scan = time.Hour
	u2, err := upload.New(cfg, bucket)
	if err != nil {
		t.Fatal(err)
	}
	if got := u2.Stats().Recorded; got != 4 {
		t.Errorf("restarted uploader knows %d uploaded files, want 4", got)
	}
	stop2 := start(t, u2)
	waitFor(t, "the first pass of the second run", func() bool { return u2.Stats().Scans > 0 })
	second := writeWARCs(t, cfg.Dir, 1)
	stop2()

	for name := range first {
		if n := s.Puts("pre/" + key(name)); n != 1 {
			t.Errorf("%s stored %d times across a restart, want 1", name, n)
		}
	}
	for name, content := range second {
		if got := s.Object(t, "pre/"+key(name)); !bytes.Equal(got, content) {
			t.Errorf("file written before Close not uploaded by the last pass: %s", name)
		}
	}
	reg := prometheus.NewRegistry()
	if err := u2.RegisterMetrics(reg); err != nil {
		t.Fatal(err)
	}
	if got := metricValue(t, reg, "godwit_store_uploaded_files_total"); got != 2 {
		t.Errorf("godwit_store_uploaded_files_total = %v after the second run, want 2 (a WARC and its index)", got)
	}
	b, err := os.ReadFile(cfg.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(b), "\n"); lines != 6 || strings.Contains(string(b), "torn") {
		t.Errorf("manifest after the restart has %d lines (want 6, torn line cut):\n%s", lines, b)
	}
}

func metricValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			m := mf.GetMetric()[0]
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []upload.Config{
		{Manifest: "m"},
		{Dir: "d"},
		{Dir: "d", Manifest: "m", Prefix: "no-slash"},
		{Dir: "d", Manifest: "m", Prefix: "/abs/"},
		{Dir: "d", Manifest: "m", SpoolMax: -1},
	} {
		c.Default()
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", c)
		}
	}
}

// refused counts the server's 412 answers to puts of key.
func refused(s *blobtest.Server, key string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Path == "/"+s.Bucket+"/"+key && r.Status == http.StatusPreconditionFailed {
			n++
		}
	}
	return n
}

// A file whose key holds another writer's object (another file of the
// same name) does not replace it: the file and its index stay in the
// spool, not uploaded, the conflict is counted and logged as an error,
// and the other files go up.
func TestUploadConflict(t *testing.T) {
	dir := t.TempDir()
	s := blobtest.New(t, "bkt")
	cfg := config(dir)
	files := writeWARCs(t, cfg.Dir, 2)
	names := slices.Sorted(maps.Keys(files))
	theirs := []byte("another node's WARC file of the same name")
	s.Put(t, "pre/"+key(names[0]), theirs)
	var logs bytes.Buffer
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	u, err := upload.New(cfg, newBucket(t, s))
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, u)
	waitFor(t, "the other file's upload", func() bool { return u.Stats().Uploaded == 2 })
	stop()

	if got := s.Object(t, "pre/"+key(names[0])); !bytes.Equal(got, theirs) {
		t.Errorf("the other writer's object was replaced")
	}
	if keys := s.Keys(t, "pre/"+key(warc.CDXJName(names[0]))); len(keys) != 0 {
		t.Errorf("the conflicting file's index was uploaded: %q", keys)
	}
	for _, n := range []string{names[0], warc.CDXJName(names[0])} {
		if _, err := os.Stat(filepath.Join(cfg.Dir, n)); err != nil {
			t.Errorf("%s left the spool: %v", n, err)
		}
		if _, ok := u.Entry(n); ok {
			t.Errorf("%s recorded as uploaded", n)
		}
	}
	if got := s.Object(t, "pre/"+key(names[1])); !bytes.Equal(got, files[names[1]]) {
		t.Errorf("the other file was not uploaded")
	}
	st := u.Stats()
	if st.Conflicts != 1 || !slices.Equal(st.ConflictFiles, names[:1]) || st.Pending != 0 {
		t.Errorf("Stats %+v, want one conflict naming %s", st, names[0])
	}
	if !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), names[0]) {
		t.Errorf("no error logged naming the file:\n%s", logs.String())
	}
}

// A store without conditional writes (501 to If-None-Match): the first
// upload says so once, and every file goes up looking first.
func TestUploadNoConditional(t *testing.T) {
	dir := t.TempDir()
	s := blobtest.New(t, "bkt")
	s.SetNoConditional(true)
	cfg := config(dir)
	files := writeWARCs(t, cfg.Dir, 2)
	var logs bytes.Buffer
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	u, err := upload.New(cfg, newBucket(t, s))
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, u)
	waitFor(t, "the uploads", func() bool { return u.Stats().Uploaded == 4 })
	stop()
	for name, content := range files {
		if got := s.Object(t, "pre/"+key(name)); !bytes.Equal(got, content) {
			t.Errorf("object of %s differs from the file", name)
		}
	}
	if st := u.Stats(); !st.Unconditional || st.Failures != 0 {
		t.Errorf("Stats %+v, want Unconditional and no failure", st)
	}
	if n := strings.Count(logs.String(), "does not support conditional writes"); n != 1 {
		t.Errorf("warned %d times of a store without conditional writes, want once:\n%s", n, logs.String())
	}
}

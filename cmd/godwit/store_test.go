package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/blobtest"
	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// runBinaryEnv runs the built binary with extra environment variables.
func runBinaryEnv(t *testing.T, env []string, args ...string) cmdResult {
	t.Helper()
	cmd := exec.Command(godwitBinary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(append(os.Environ(), "HTTP_PROXY=", "http_proxy="), env...)
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return cmdResult{code, stdout.String(), stderr.String()}
}

// TestBinaryStoreUploadsWARCs crawls fakeweb with --store pointing at an
// S3 API server in the test process. The first run meets the store down
// and is killed (SIGKILL) once it has completed WARC files; the second
// resumes with the store up. Then every WARC file, those the killed run
// left included, and its CDXJ index are in the bucket under
// warc/CRAWL/NODE/DAY/, each stored once; the files downloaded from the
// bucket pass `godwit warc verify`; the local copies are gone; a third
// run uploads nothing again.
func TestBinaryStoreUploadsWARCs(t *testing.T) {
	dir := t.TempDir()
	s := blobtest.New(t, "godwit-e2e")
	seeds := filepath.Join(dir, "seeds.txt")
	addr := startFakewebBinary(t, "--hosts", "4", "--pages", "40", "--seed", "7", "--seeds-out", seeds)
	data := filepath.Join(dir, "data")
	cfg := writeConfig(t, dir, "warc:\n  node: e2e-node\n  max_size: 20000\n")
	args := []string{"crawl", "--proxy", "http://" + addr, "--allow-private", "--seeds", seeds,
		"--delay", "20ms", "--data", data, "--timeout", "2s", "--admin", "off", "--config", cfg,
		"--store", "s3://godwit-e2e/runs/", "--store-path-style", "--store-crawl", "e2e"}

	// Run 1: the store answers 503; killed once WARC files are complete.
	s.SetDown(true)
	cmd := exec.Command(godwitBinary(t), args...)
	cmd.Env = append(append(os.Environ(), "HTTP_PROXY=", "http_proxy="), s.Env()...)
	var stderr1 bytes.Buffer
	cmd.Stderr = &stderr1
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		done, _ := filepath.Glob(filepath.Join(data, "warc", "*"+warc.Ext))
		if len(done) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no complete WARC files after 30 s\n%s", stderr1.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err == nil {
		t.Fatalf("run 1 finished before the kill; the web is too small for this test\n%s", stderr1.String())
	}
	if keys := s.Keys(t, ""); len(keys) != 0 {
		t.Fatalf("objects stored while the store answered 503: %q", keys)
	}
	left, _ := filepath.Glob(filepath.Join(data, "warc", "*"+warc.Ext))
	s.SetDown(false)

	crawl := func() cmdResult {
		t.Helper()
		res := runBinaryEnv(t, s.Env(), args...)
		if res.code != 0 {
			t.Fatalf("godwit crawl exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
		}
		return res
	}
	res := crawl()
	if !strings.Contains(res.stdout, "resumed and finished") ||
		!regexp.MustCompile(`store +\d+ file\(s\) uploaded .* 0 pending`).MatchString(res.stdout) {
		t.Errorf("summary of the resumed run: not resumed, or no store line with nothing pending:\n%s", res.stdout)
	}

	keyRE := regexp.MustCompile(`^runs/warc/e2e/e2e-node/\d{4}-\d{2}-\d{2}/([^/]+)$`)
	keys := s.Keys(t, "")
	var warcs []string
	objects := map[string]string{} // file name → key
	for _, k := range keys {
		m := keyRE.FindStringSubmatch(k)
		if m == nil {
			t.Errorf("object %s is not under runs/warc/e2e/e2e-node/DAY/", k)
			continue
		}
		objects[m[1]] = k
		if strings.HasSuffix(k, warc.Ext) {
			warcs = append(warcs, k)
		}
		if n := s.Puts(k); n != 1 {
			t.Errorf("%s stored %d times, want 1", k, n)
		}
	}
	if len(warcs) <= len(left) {
		t.Fatalf("bucket holds %d WARC files (%q), want the %d the killed run left and more", len(warcs), keys, len(left))
	}
	for _, p := range left {
		if _, ok := objects[filepath.Base(p)]; !ok {
			t.Errorf("%s, left by the killed run, not uploaded", filepath.Base(p))
		}
	}

	down := t.TempDir()
	var files []string
	for _, k := range warcs {
		name := path.Base(k)
		p := filepath.Join(down, name)
		if err := os.WriteFile(p, s.Object(t, k), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
		idxKey, ok := objects[warc.CDXJName(name)]
		if !ok {
			t.Errorf("no CDXJ index of %s in the bucket", name)
			continue
		}
		if path.Dir(idxKey) != path.Dir(k) {
			t.Errorf("index %s not beside its WARC %s", idxKey, k)
		}
		var want bytes.Buffer
		if err := warc.WriteCDXJ(&want, p); err != nil {
			t.Fatal(err)
		}
		if got := s.Object(t, idxKey); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("index %s in the bucket is not the index of the WARC file in the bucket", idxKey)
		}
		if _, err := os.Stat(filepath.Join(data, "warc", name)); !os.IsNotExist(err) {
			t.Errorf("%s still in --data after a verified upload (default: deleted): %v", name, err)
		}
	}
	if v := runBinary(t, append([]string{"warc", "verify"}, files...)...); v.code != 0 {
		t.Errorf("godwit warc verify of the uploaded files: exit %d\n%s\n%s", v.code, v.stdout, v.stderr)
	}
	manifest, err := os.ReadFile(filepath.Join(data, "state", uploadsFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(manifest), "\n"); n != len(keys) {
		t.Errorf("manifest records %d uploads, bucket holds %d objects", n, len(keys))
	}

	// Run 3: nothing new to fetch; nothing uploaded again.
	crawl()
	for _, k := range keys {
		if n := s.Puts(k); n != 1 {
			t.Errorf("after a second run, %s stored %d times, want 1", k, n)
		}
	}
}

// A record of a WARC file that was uploaded and deleted is read back from
// the bucket by its location (archive.Remote).
func TestStoreReadsUploadedRecords(t *testing.T) {
	s := blobtest.New(t, "godwit-unit")
	data := dataDir(t.TempDir())
	w, err := warc.NewWriter(warc.WriterConfig{Dir: data.warc(), Node: "n"})
	if err != nil {
		t.Fatal(err)
	}
	rec := &warc.Record{Type: warc.TypeResource, Block: []byte("the record's block")}
	rec.Header.Set(warc.FieldTargetURI, "http://example.com/")
	locs, err := w.Write(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range s.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	st := storeSettings{URL: "s3://godwit-unit/p", PathStyle: true, getenv: func(k string) string { return env[k] }}
	if err := st.validate(); err != nil {
		t.Fatal(err)
	}
	missing := st
	missing.URL = "s3://no-such-bucket/p"
	if _, err := openStore(t.Context(), crawlSettings{Data: string(data), Store: missing}, data, "n", discardLog()); err == nil ||
		!strings.Contains(err.Error(), "does not exist") {
		t.Errorf("--store naming a missing bucket: %v, want an error saying so", err)
	}
	ws, err := openStore(t.Context(), crawlSettings{Data: string(data), Store: st}, data, "n", discardLog())
	if err != nil {
		t.Fatal(err)
	}
	ws.Start(t.Context(), nil)
	if err := ws.Stop(); err != nil { // the last pass uploads the file
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(data.warc(), locs[0].File)); !os.IsNotExist(err) {
		t.Fatalf("%s not deleted after its upload: %v", locs[0].File, err)
	}
	b, err := ws.ReadRange(t.Context(), locs[0].File, locs[0].Offset, locs[0].Length)
	if err != nil {
		t.Fatal(err)
	}
	r, err := warc.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Next()
	if err != nil || string(got.Block) != "the record's block" {
		t.Errorf("record read back from the store: %v, %v", got, err)
	}
	if _, err := ws.ReadRange(t.Context(), "never-uploaded.warc.gz", 0, 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadRange of a file never uploaded: %v, want ErrNotExist", err)
	}
}

func TestStoreSettingsValidate(t *testing.T) {
	for _, tc := range []struct {
		st storeSettings
		ok bool
	}{
		{storeSettings{}, true},
		{storeSettings{URL: "s3://bucket/prefix"}, true},
		{storeSettings{URL: "s3://bucket", Endpoint: "http://127.0.0.1:9000"}, true},
		{storeSettings{URL: "bucket/prefix"}, false},
		{storeSettings{URL: "s3://bucket", Endpoint: "http://s3.example.org"}, false},
		{storeSettings{URL: "s3://bucket", SpoolMax: "lots"}, false},
		{storeSettings{URL: "s3://bucket", Crawl: "a/b"}, false},
		{storeSettings{URL: "s3://bucket", PartSize: "1MiB"}, false},
	} {
		tc.st.getenv = func(string) string { return "" }
		if err := tc.st.validate(); (err == nil) != tc.ok {
			t.Errorf("validate(%+v) = %v, want ok=%v", tc.st, err, tc.ok)
		}
	}
	if got := (storeSettings{}).crawlName("/data/my crawl"); got != "my-crawl" {
		t.Errorf("crawlName(/data/my crawl) = %q, want my-crawl", got)
	}
}

// storeTestSettings point a crawl at s, one try per request.
func storeTestSettings(t *testing.T, s *blobtest.Server, addr string) crawlSettings {
	env := map[string]string{}
	for _, kv := range s.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	cs := testSettings(t, addr)
	cs.WARC.MaxSize = 8000
	cs.WARC.Node = "n"
	cs.Store = storeSettings{URL: "s3://" + s.Bucket + "/p", PathStyle: true, Crawl: "c",
		getenv: func(k string) string { return env[k] }, maxRetries: 1}
	return cs
}

// A crawl that meets the store down from start to end keeps every WARC
// file and says so; the next run uploads them all and deletes them.
func TestStoreDownForAWholeCrawl(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 12, Seed: 5})
	s := blobtest.New(t, "godwit-down")
	s.SetDown(true)
	cs := storeTestSettings(t, s, addr)
	res := crawlInProcess(t, cs, web.Seeds())
	local, _ := filepath.Glob(filepath.Join(cs.Data, "warc", "*"+warc.Ext))
	if len(local) < 2 || len(local) != len(res.WARCFiles) {
		t.Fatalf("%d WARC files on disk after a crawl with the store down, %d written; want all kept (and several)", len(local), len(res.WARCFiles))
	}
	var out bytes.Buffer
	printSummary(&out, res)
	if res.Store == nil || res.Store.Stats.Uploaded != 0 || res.Store.Stats.Pending != 2*len(local) ||
		!strings.Contains(out.String(), "not uploaded yet") {
		t.Errorf("summary with the store down:\n%s", out.String())
	}

	s.SetDown(false)
	res = crawlInProcess(t, cs, nil)
	if res.Store.Stats.Uploaded != 2*len(local) || res.Store.Stats.Pending != 0 {
		t.Errorf("second run uploaded %d files, %d pending; want %d and 0", res.Store.Stats.Uploaded, res.Store.Stats.Pending, 2*len(local))
	}
	for _, p := range local {
		name := filepath.Base(p)
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still on disk after its upload", name)
		}
		keys := s.Keys(t, "p/warc/c/n/")
		found := 0
		for _, k := range keys {
			if path.Base(k) == name || path.Base(k) == warc.CDXJName(name) {
				found++
			}
		}
		if found != 2 {
			t.Errorf("%s: %d of its WARC and index objects in the bucket (%q), want 2", name, found, keys)
		}
	}
}

// TestStoreConflict: a WARC file whose key in the bucket holds another
// file (another writer's, of the same name) is not uploaded over it: the
// object stays as it was, the file and its index stay in --data, the
// summary says so as an error, and the other files go up.
func TestStoreConflict(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 12, Seed: 5})
	s := blobtest.New(t, "godwit-conflict")
	s.SetDown(true) // the first run keeps its files, so their keys are known
	cs := storeTestSettings(t, s, addr)
	crawlInProcess(t, cs, web.Seeds())
	local, _ := filepath.Glob(filepath.Join(cs.Data, "warc", "*"+warc.Ext))
	if len(local) < 2 {
		t.Fatalf("%d WARC files on disk, want several", len(local))
	}
	f, err := os.Open(local[0])
	if err != nil {
		t.Fatal(err)
	}
	r, err := warc.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Next()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	date, err := warc.ParseDate(rec.Header.Get(warc.FieldDate))
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(local[0])
	taken := "p/warc/c/n/" + date.UTC().Format(time.DateOnly) + "/" + name
	theirs := []byte("another writer's file of the same name")
	s.Put(t, taken, theirs)

	s.SetDown(false)
	res := crawlInProcess(t, cs, nil)
	var out bytes.Buffer
	printSummary(&out, res)
	if got := s.Object(t, taken); !bytes.Equal(got, theirs) {
		t.Errorf("the object under %s was replaced", taken)
	}
	for _, p := range []string{local[0], strings.TrimSuffix(local[0], warc.Ext) + warc.CDXJExt} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s left --data: %v", filepath.Base(p), err)
		}
	}
	if res.Store.Stats.Conflicts != 1 || res.Store.Stats.Uploaded != 2*(len(local)-1) ||
		!strings.Contains(out.String(), "ERROR: 1 file(s) not uploaded") || !strings.Contains(out.String(), name) {
		t.Errorf("stats %+v; summary:\n%s\nwant one conflict naming %s and the other %d files uploaded", res.Store.Stats, out.String(), name, 2*(len(local)-1))
	}
}

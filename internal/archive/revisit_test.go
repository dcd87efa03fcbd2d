package archive

import (
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/kv"
	"github.com/godwit-crawler/godwit/internal/simhash"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// openDedupArchive opens an archive with a store; close closes both.
func openDedupArchive(t *testing.T, dir string, o Options) (*Archive, func()) {
	t.Helper()
	db, err := kv.Open(filepath.Join(dir, "store"), kv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o.Store = db
	a, err := New(warc.WriterConfig{Dir: filepath.Join(dir, "warc")}, o)
	if err != nil {
		t.Fatal(err)
	}
	return a, func() {
		if err := a.Close(); err != nil {
			t.Error(err)
		}
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	}
}

// records reads every record of every WARC file in dir.
func records(t *testing.T, dir string) []*warc.Record {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*"+warc.Ext))
	var out []*warc.Record
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := warc.NewReader(fh)
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rec)
		}
		fh.Close()
	}
	return out
}

// TestIdenticalPayloadRevisits: the second and third captures of a payload
// (other URLs, and after a restart) are revisits that refer to the first
// response, never to each other; small payloads are stored again; a
// revisit loads back with the original's body; the files verify.
func TestIdenticalPayloadRevisits(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("same payload ", 200) // 2,600 bytes
	ctx := t.Context()

	a, done := openDedupArchive(t, dir, Options{})
	if _, err := a.Record(ctx, crawl.Task{}, response("http://a.test/1", big), crawl.Decision{}); err != nil {
		t.Fatal(err)
	}
	second, err := a.Record(ctx, crawl.Task{}, response("http://b.test/2", big), crawl.Decision{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"http://a.test/s1", "http://a.test/s2"} {
		if _, err := a.Record(ctx, crawl.Task{}, response(u, "tiny"), crawl.Decision{}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := a.Load(ctx, second)
	if err != nil || string(got.Body) != big || got.URL != "http://b.test/2" {
		t.Fatalf("Load(revisit) = %+v, %v", got, err)
	}
	if s := a.Stats(); s.Revisits != 1 || s.RevisitBytes != int64(len(big)) || s.Responses != 3 {
		t.Errorf("Stats = %+v, want 1 revisit of %d bytes, 3 responses", s, len(big))
	}
	done()

	// After a restart, the table still knows the payload.
	a, done = openDedupArchive(t, dir, Options{})
	if _, err := a.Record(ctx, crawl.Task{}, response("http://c.test/3", big), crawl.Decision{}); err != nil {
		t.Fatal(err)
	}
	done()

	var originalID string
	var revisits, tinyResponses int
	for _, rec := range records(t, filepath.Join(dir, "warc")) {
		switch {
		case rec.Type == warc.TypeResponse && rec.Header.Get(warc.FieldTargetURI) == "http://a.test/1":
			originalID = rec.Header.Get(warc.FieldRecordID)
		case rec.Type == warc.TypeResponse && strings.HasPrefix(rec.Header.Get(warc.FieldTargetURI), "http://a.test/s"):
			tinyResponses++
		case rec.Type == warc.TypeRevisit:
			revisits++
			if rec.Header.Get(warc.FieldRefersTo) != originalID || rec.Header.Get(warc.FieldRefersToTargetURI) != "http://a.test/1" ||
				rec.Header.Get(warc.FieldProfile) != warc.ProfileIdenticalPayloadDigest || rec.Header.Get(warc.FieldTruncated) != "length" {
				t.Errorf("revisit %s: %v", rec.Header.Get(warc.FieldTargetURI), rec.Header.Fields())
			}
		}
	}
	if revisits != 2 || tinyResponses != 2 || originalID == "" {
		t.Errorf("revisits %d (want 2), small responses %d (want 2), original found %v", revisits, tinyResponses, originalID != "")
	}

	files, _ := filepath.Glob(filepath.Join(dir, "warc", "*.warc.gz"))
	v := warc.NewVerifier(warc.VerifyOptions{})
	for _, f := range files {
		fh, _ := os.Open(f)
		if err := v.File(fh, filepath.Base(f)); err != nil {
			t.Fatal(err)
		}
		fh.Close()
	}
	if problems, sum := v.Finish(); sum.Faults != 0 {
		t.Errorf("verify: %v", problems)
	}
	// Every complete file got its CDXJ index at close.
	for _, f := range files {
		if _, err := os.Stat(strings.TrimSuffix(f, ".warc.gz") + ".cdxj"); err != nil {
			t.Errorf("no index beside %s: %v", filepath.Base(f), err)
		}
	}
}

// TestTruncatedAndOmittedNeverDedup: truncated and header-only responses
// neither become revisits nor originals.
func TestTruncatedAndOmittedNeverDedup(t *testing.T) {
	dir := t.TempDir()
	a, done := openDedupArchive(t, dir, Options{})
	defer done()
	big := strings.Repeat("z", 4096)
	cut := response("http://a.test/cut", big)
	cut.Truncated = "length"
	if _, err := a.Record(t.Context(), crawl.Task{}, cut, crawl.Decision{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Record(t.Context(), crawl.Task{}, response("http://a.test/noarchive", big), crawl.Decision{OmitBody: true, Signals: []string{"noarchive"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Record(t.Context(), crawl.Task{}, response("http://a.test/full", big), crawl.Decision{}); err != nil {
		t.Fatal(err)
	}
	if s := a.Stats(); s.Revisits != 0 {
		t.Errorf("a truncated or header-only response served as an original: %+v", s)
	}
}

// TestNearDuplicates: a page whose fingerprint is within the distance of
// an earlier page's is noted in its metadata record (policy record), or
// stored header-only (policy skip); a distant one is not.
func TestNearDuplicates(t *testing.T) {
	for _, policy := range []NearDupPolicy{NearDupRecord, NearDupSkip} {
		t.Run(string(policy), func(t *testing.T) {
			dir := t.TempDir()
			a, done := openDedupArchive(t, dir, Options{NearDup: policy})
			ctx := t.Context()
			const fp = 0xF0F0_1234_5678_9ABC
			pages := []struct {
				url string
				fp  uint64
			}{
				{"http://a.test/orig", fp},
				{"http://a.test/near", fp ^ 0b101},      // distance 2
				{"http://a.test/far", fp ^ 0xFFFF_0000}, // distance 16
			}
			for i, p := range pages {
				d := crawl.Decision{SimHash: p.fp, HasSimHash: true, Outlinks: []string{"http://a.test/x"}}
				if _, err := a.Record(ctx, crawl.Task{}, response(p.url, strings.Repeat("w", 2000+i)), d); err != nil {
					t.Fatal(err)
				}
			}
			s := a.Stats()
			done()
			wantOmitted := int64(0)
			if policy == NearDupSkip {
				wantOmitted = 1
			}
			if s.NearDuplicates != 1 || s.NearDupsOmitted != wantOmitted {
				t.Errorf("Stats = %+v", s)
			}
			for _, rec := range records(t, filepath.Join(dir, "warc")) {
				u := rec.Header.Get(warc.FieldTargetURI)
				switch {
				case rec.Type == warc.TypeMetadata:
					block := string(rec.Block)
					near := strings.Contains(block, "near-duplicate-of: http://a.test/orig")
					if near != (u == "http://a.test/near") {
						t.Errorf("metadata of %s: near-duplicate note %v:\n%s", u, near, block)
					}
					if !strings.Contains(block, "outlink: http://a.test/x") || !strings.Contains(block, "simhash: ") {
						t.Errorf("metadata of %s lacks outlink or simhash:\n%s", u, block)
					}
				case rec.Type == warc.TypeResponse && u == "http://a.test/near":
					omitted := rec.Header.Get(warc.FieldTruncated) == "unspecified"
					if omitted != (policy == NearDupSkip) {
						t.Errorf("policy %s: near-duplicate body omitted = %v", policy, omitted)
					}
				}
			}
		})
	}
}

// TestConcurrentIdenticalPayloads: captures of one payload recorded at
// the same time store it once; the others wait and become revisits.
func TestConcurrentIdenticalPayloads(t *testing.T) {
	dir := t.TempDir()
	a, done := openDedupArchive(t, dir, Options{})
	defer done()
	big := strings.Repeat("same ", 1000)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			_, err := a.Record(t.Context(), crawl.Task{}, response(fmt.Sprintf("http://h%d.test/", i), big), crawl.Decision{})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if s := a.Stats(); s.Responses != 1 || s.Revisits != 7 {
		t.Errorf("Stats = %+v, want 1 response and 7 revisits", s)
	}
}

// TestNotModifiedRevisit: a 304 answer to a conditional request is a
// server-not-modified revisit of the capture it confirms, and the capture
// returned is still that original, never the revisit.
func TestNotModifiedRevisit(t *testing.T) {
	dir := t.TempDir()
	a, done := openDedupArchive(t, dir, Options{})
	first, err := a.Record(t.Context(), crawl.Task{}, response("http://a.test/p", strings.Repeat("body ", 100)), crawl.Decision{})
	if err != nil {
		t.Fatal(err)
	}
	if first.RecordID == "" || first.Date.IsZero() {
		t.Fatalf("capture without record ID or date: %+v", first)
	}
	nm := response("http://a.test/p", "")
	nm.Status, nm.RawHeader = 304, []byte("HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n")
	got, err := a.Record(t.Context(), crawl.Task{}, nm, crawl.Decision{NotModified: &first})
	if err != nil {
		t.Fatal(err)
	}
	if got != first {
		t.Errorf("304 returned capture %+v, want the original %+v", got, first)
	}
	if s := a.Stats(); s.NotModified != 1 {
		t.Errorf("Stats = %+v", s)
	}
	done()
	var found bool
	for _, rec := range records(t, filepath.Join(dir, "warc")) {
		if rec.Type != warc.TypeRevisit {
			continue
		}
		found = true
		h := &rec.Header
		if h.Get(warc.FieldProfile) != warc.ProfileServerNotModified || h.Get(warc.FieldRefersTo) != first.RecordID ||
			h.Get(warc.FieldRefersToTargetURI) != "http://a.test/p" || h.Get(warc.FieldRefersToDate) != warc.FormatDate(first.Date) ||
			!strings.HasPrefix(string(rec.Block), "HTTP/1.1 304") {
			t.Errorf("revisit %v\n%s", h.Fields(), rec.Block)
		}
	}
	if !found {
		t.Error("no revisit record written for the 304")
	}
}

// TestNearWindow: with a window of 4 texts (generations of 2), a text is
// compared with the last 2 to 4 indexed, never with older ones, whose
// store keys are deleted; reopening keeps the same generations, and a
// smaller window on reopening forgets more.
func TestNearWindow(t *testing.T) {
	db, err := kv.Open(filepath.Join(t.TempDir(), "store"), kv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Fingerprints far apart: fp(i) differs from fp(j) in 32 bits or
	// more, and fp(i)^1 is within distance 1 of fp(i) only.
	fp := func(i int) uint64 { return xxhash.Sum64String(fmt.Sprint("text ", i)) }
	for i := range 12 {
		for j := range i {
			if bits.OnesCount64(fp(i)^fp(j)) <= 2*simhash.MaxK+1 {
				t.Fatalf("fingerprints %d and %d too close for this test", i, j)
			}
		}
	}
	uri := func(i int) string { return fmt.Sprint("http://a.test/", i) }
	known := func(x *dedup, i int) bool {
		t.Helper()
		o, dist, ok, err := x.nearest(fp(i) ^ 1)
		if err != nil {
			t.Fatal(err)
		}
		if ok && (o.URI != uri(i) || dist != 1) {
			t.Fatalf("text %d: near %s at distance %d", i, o.URI, dist)
		}
		return ok
	}
	keys := func() int {
		t.Helper()
		it, err := db.Scan([]byte{tagNear}, []byte{tagNear + 1})
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		n := 0
		for ; it.Valid(); it.Next() {
			n++
		}
		return n
	}
	check := func(x *dedup, want []bool) {
		t.Helper()
		var got []bool
		for i := range want {
			got = append(got, known(x, i))
		}
		if !slices.Equal(got, want) {
			t.Errorf("texts known = %v, want %v", got, want)
		}
		n := 0
		for _, k := range want {
			if k {
				n++
			}
		}
		if x.nearLen() != n || keys() != n {
			t.Errorf("index holds %d, store %d keys; want %d", x.nearLen(), keys(), n)
		}
	}

	x, err := openDedup(db, simhash.DefaultK, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 7 { // generations {0 1} {2 3} {4 5} {6}
		if err := x.addText(fp(i), original{URI: uri(i)}); err != nil {
			t.Fatal(err)
		}
	}
	check(x, []bool{false, false, false, false, true, true, true, false})

	x, err = openDedup(db, simhash.DefaultK, 4)
	if err != nil {
		t.Fatal(err)
	}
	check(x, []bool{false, false, false, false, true, true, true, false})
	if err := x.addText(fp(7), original{URI: uri(7)}); err != nil {
		t.Fatal(err)
	}
	check(x, []bool{false, false, false, false, true, true, true, true})
	if err := x.addText(fp(8), original{URI: uri(8)}); err != nil { // a new generation: {4 5} forgotten
		t.Fatal(err)
	}
	check(x, []bool{false, false, false, false, false, false, true, true, true})

	x, err = openDedup(db, simhash.DefaultK, 2) // generations of 1: {7} {8}
	if err != nil {
		t.Fatal(err)
	}
	check(x, []bool{false, false, false, false, false, false, false, true, true})

	x, err = openDedup(db, simhash.DefaultK, -1) // all that is left, and nothing is forgotten
	if err != nil {
		t.Fatal(err)
	}
	for i := 9; i < 12; i++ {
		if err := x.addText(fp(i), original{URI: uri(i)}); err != nil {
			t.Fatal(err)
		}
	}
	check(x, []bool{false, false, false, false, false, false, false, true, true, true, true, true})
}

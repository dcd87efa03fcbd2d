package archive

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/kv"
	"github.com/godwit-crawler/godwit/internal/simhash"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// BenchmarkNearWindow indexes 2,000,000 texts (random fingerprints, as
// the archive does for pages near nothing) with and without a window of
// 1,000,000, and reports the live heap afterwards per text indexed and in
// all, and the time per text (index and store write together).
//
//	go test -run '^$' -bench NearWindow -benchtime 1x ./internal/archive/
func BenchmarkNearWindow(b *testing.B) {
	const texts = 2_000_000
	for _, window := range []int{-1, DefaultNearWindow} {
		b.Run(fmt.Sprintf("window=%d", window), func(b *testing.B) {
			for range b.N {
				db, err := kv.Open(filepath.Join(b.TempDir(), "store"), kv.Options{})
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				x, err := openDedup(db, simhash.DefaultK, window)
				if err != nil {
					b.Fatal(err)
				}
				o := original{RecordID: "<urn:uuid:00000000-0000-0000-0000-000000000000>", URI: "http://a.test/page", File: "godwit-00001.warc.gz"}
				for i := range texts {
					if err := x.addText(xxhash.Sum64String(fmt.Sprint(i)), o); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				live := float64(after.HeapAlloc) - float64(before.HeapAlloc)
				b.ReportMetric(live/1e6, "MB-live")
				b.ReportMetric(float64(x.nearLen()), "texts-kept")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(texts)/float64(b.N), "ns/text")
				runtime.KeepAlive(x)
				db.Close()
			}
		})
	}
}

// BenchmarkRecordPage archives one page of the throughput web at 30
// links (fakeweb's page, 15 KB) as the crawler does: payload digest,
// dedup lookups in the crawl's store, request + response + metadata
// records (30 outlinks, a SimHash), the fsync that makes them durable,
// and the dedup tables' updates. Each page's body differs in 8 bytes and
// carries its own SimHash, so that every page is stored in full and
// joins the near-duplicate index, as most of a crawl's pages do. The
// fsync makes ns/op the disk's as much as the CPU's; allocs/op is the
// path's own.
//
//	go test -run '^$' -bench RecordPage -benchmem ./internal/archive/
func BenchmarkRecordPage(b *testing.B) {
	cfg, err := fakeweb.Preset("throughput")
	if err != nil {
		b.Fatal(err)
	}
	cfg.LinksPerPage = 30
	web, err := fakeweb.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	pageURL := web.Seeds()[0] + "p/7"
	rec := httptest.NewRecorder()
	web.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, pageURL, nil))
	if rec.Code != http.StatusOK {
		b.Fatalf("%s: status %d", pageURL, rec.Code)
	}
	body := bytes.Clone(rec.Body.Bytes())
	var head bytes.Buffer
	fmt.Fprintf(&head, "HTTP/1.1 200 OK\r\n")
	if err := rec.Header().Write(&head); err != nil {
		b.Fatal(err)
	}
	head.WriteString("\r\n")
	now := time.Now()
	resp := &fetch.Response{
		URL: pageURL, Status: http.StatusOK, Proto: "HTTP/1.1", Protocol: "http/1.1",
		Header: rec.Header(), Body: body, IP: "127.0.0.1",
		Start: now, FirstByte: now, End: now,
		RawRequest: []byte("GET " + pageURL + " HTTP/1.1\r\nHost: h0.fake.test\r\n" +
			"User-Agent: godwit/dev (+https://github.com/godwit-crawler/godwit)\r\n" +
			"Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n" +
			"Accept-Encoding: gzip, deflate, br, zstd\r\n\r\n"),
		RawHeader: head.Bytes(),
	}
	d := crawl.Decision{Title: "Page 7", HasSimHash: true}
	for i := range 30 {
		d.Outlinks = append(d.Outlinks, fmt.Sprintf("http://h%d.fake.test/p/%d", i%7, i*13))
	}

	dir := b.TempDir()
	db, err := kv.Open(filepath.Join(dir, "store"), kv.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	a, err := New(warc.WriterConfig{Dir: filepath.Join(dir, "warc")}, Options{Store: db})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	i := uint64(0)
	for b.Loop() {
		i++
		binary.BigEndian.PutUint64(body[len(body)/2:], i)
		d.SimHash = xxhash.Sum64(body[len(body)/2 : len(body)/2+8])
		if _, err := a.Record(b.Context(), crawl.Task{}, resp, d); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if st := a.Stats(); st.Revisits != 0 || st.Responses != int64(b.N) {
		b.Fatalf("stats %+v, want %d responses and no revisit", st, b.N)
	}
	if err := a.Close(); err != nil {
		b.Fatal(err)
	}
}

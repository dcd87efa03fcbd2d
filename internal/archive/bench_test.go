package archive

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/godwit-crawler/godwit/internal/kv"
	"github.com/godwit-crawler/godwit/internal/simhash"
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

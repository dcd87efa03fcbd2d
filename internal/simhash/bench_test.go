package simhash

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// The index benchmarks use uniformly random fingerprints, the best case
// for bucket sizes; real pages are clustered (a site's near-identical
// pages share buckets), which costs probes more, not memory.

func randomFingerprints(n int, seed uint64) []uint64 {
	r := rand.New(rand.NewPCG(seed, 0))
	fps := make([]uint64, n)
	for i := range fps {
		fps[i] = r.Uint64()
	}
	return fps
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkAdd builds an index of a million fingerprints per iteration and
// reports the time per Add and the live heap per fingerprint, the memory a
// crawl pays per stored page.
func BenchmarkAdd(b *testing.B) {
	const n = 1_000_000
	fps := randomFingerprints(n, 1)
	for k := 0; k <= MaxK; k++ {
		b.Run(fmt.Sprintf("k=%d/n=1M", k), func(b *testing.B) {
			var heap uint64
			for b.Loop() {
				b.StopTimer()
				before := liveHeap()
				b.StartTimer()
				x := NewIndex(k)
				for i, f := range fps {
					x.Add(f, uint64(i))
				}
				b.StopTimer()
				heap = liveHeap() - before
				runtime.KeepAlive(x)
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/add")
			b.ReportMetric(float64(heap)/n, "B/fp")
		})
	}
}

// BenchmarkRestore decodes an encoded index of a million fingerprints,
// whose buckets are sized exactly, and reports the time and the live heap
// per fingerprint.
func BenchmarkRestore(b *testing.B) {
	const n = 1_000_000
	x := NewIndex(DefaultK)
	for i, f := range randomFingerprints(n, 2) {
		x.Add(f, uint64(i))
	}
	data := marshal(b, x)
	b.SetBytes(int64(len(data)))
	var heap uint64
	for b.Loop() {
		b.StopTimer()
		before := liveHeap()
		b.StartTimer()
		var y Index
		if err := y.UnmarshalBinary(data); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		heap = liveHeap() - before
		runtime.KeepAlive(&y)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/fp")
	b.ReportMetric(float64(heap)/n, "B/fp")
}

// BenchmarkNear queries an index of n random fingerprints at k = 3: hit
// queries are stored fingerprints with 1 to 3 bits flipped, miss queries
// random ones (almost never within 3 of any). scan is the linear search
// the index replaces. At n = scanEntries the index itself scans (it has
// no tables yet): its worst case, the one to compare with the tables'
// probes at a million.
func BenchmarkNear(b *testing.B) {
	for _, n := range []int{scanEntries, 1_000_000, 10_000_000} {
		fps := randomFingerprints(n, 3)
		x := NewIndex(DefaultK)
		for i, f := range fps {
			x.Add(f, uint64(i))
		}
		r := rand.New(rand.NewPCG(4, 0))
		hits := make([]uint64, 4096)
		for i := range hits {
			hits[i] = flip(r, fps[r.IntN(n)], 1+i%3)
		}
		misses := randomFingerprints(len(hits), 5)
		name := fmt.Sprintf("n=%dM", n/1_000_000)
		if n < 1_000_000 {
			name = fmt.Sprintf("n=%d", n)
		}
		b.Run(name+"/hit", func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, _, ok := x.Near(hits[i%len(hits)]); !ok {
					b.Fatal("miss")
				}
				i++
			}
		})
		b.Run(name+"/miss", func(b *testing.B) {
			i := 0
			for b.Loop() {
				x.Near(misses[i%len(misses)])
				i++
			}
		})
		if n == 1_000_000 {
			b.Run(name+"/scan", func(b *testing.B) {
				i := 0
				for b.Loop() {
					bruteNear(fps, misses[i%len(misses)], DefaultK)
					i++
				}
			})
		}
	}
}

func BenchmarkFingerprint(b *testing.B) {
	text := randomText(rand.New(rand.NewPCG(6, 0)), 2000, 3000) // ~13 KB
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Fingerprint(text)
	}
}

// benchPage is a synthetic article page: navigation, scripts, styles and
// a few thousand words of text in paragraphs with inline markup.
func benchPage() []byte {
	r := rand.New(rand.NewPCG(7, 0))
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>A page</title>
<style>body{font:16px sans-serif}nav a{margin:0 1em}</style>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}</script>
</head><body><header><a href="/">Site</a></header><nav><ul>`)
	for i := range 30 {
		fmt.Fprintf(&b, `<li><a href="/section/%d" class="nav-link">Section %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></nav><main><article><h1>Title of the article</h1>`)
	for range 60 {
		fmt.Fprintf(&b, "<p>%s <a href=\"/x\">%s</a> &amp; <em>%s</em>.</p>\n",
			randomText(r, 40, 3000), randomText(r, 3, 3000), randomText(r, 5, 3000))
	}
	b.WriteString(`</article></main><aside>Related: <a href="/r">more</a></aside><footer>&copy; 2026</footer>
<script src="/app.js"></script></body></html>`)
	return []byte(b.String())
}

func BenchmarkVisibleText(b *testing.B) {
	page := benchPage()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		VisibleText(page)
	}
}

// BenchmarkNearCluster is the bad case: besides a million random
// fingerprints, the index holds a cluster of near duplicates of one page
// (1 or 2 of its low 32 bits flipped), as when a caller adds every near
// duplicate it finds, and the query is one more (one of its high 32 bits
// flipped), 2 or 3 bits from every member and equal to none. The members
// share the query's buckets and pass the tag test, so a probe costs a
// lookup per member and table.
func BenchmarkNearCluster(b *testing.B) {
	const n = 1_000_000
	fps := randomFingerprints(n, 8)
	r := rand.New(rand.NewPCG(9, 0))
	base := r.Uint64()
	for _, size := range []int{100, 10_000} {
		x := NewIndex(DefaultK)
		for i, f := range fps {
			x.Add(f, uint64(i))
		}
		for i := range size {
			x.Add(flip(r, base, 1+i%2)&(1<<32-1)|base&^(1<<32-1), uint64(n+i))
		}
		queries := make([]uint64, 1024)
		for i := range queries {
			queries[i] = base ^ 1<<(32+r.IntN(32))
		}
		b.Run(fmt.Sprintf("cluster=%d", size), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, _, ok := x.Near(queries[i%len(queries)]); !ok {
					b.Fatal("miss")
				}
				i++
			}
		})
	}
}

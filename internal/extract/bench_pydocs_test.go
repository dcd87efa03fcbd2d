package extract

import (
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/simhash"
)

// BenchmarkHTMLPythonDocs extracts pages of Debian's python3.11-doc as
// the crawl does (links, embeds, signals, SimHash in one pass): real
// pages of ~100 KiB with ~180 links. One op is one page; skipped
// without the package.
func BenchmarkHTMLPythonDocs(b *testing.B) {
	var pages [][]byte
	for _, name := range []string{"library/stdtypes.html", "library/functions.html", "library/os.html", "reference/datamodel.html",
		"tutorial/classes.html", "library/asyncio-task.html", "genindex-all.html", "library/index.html", "whatsnew/3.11.html", "c-api/typeobj.html"} {
		body, err := os.ReadFile(filepath.Join(pyDocsDir, name))
		if err != nil {
			b.Skipf("%v (apt-get install python3.11-doc)", err)
		}
		pages = append(pages, body)
	}
	page, _ := url.Parse("http://127.0.0.1/library/x.html")
	links, size := 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := range b.N {
		body := pages[i%len(pages)]
		d, err := HTML(page, body, &Options{Text: simhash.NewTextFingerprint(), Embeds: true, Signals: true, Agents: []string{"godwit"}})
		if err != nil {
			b.Fatal(err)
		}
		links += len(d.Links)
		size += len(body)
	}
	// CPU time, not the wall clock, which a shared machine stretches.
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/page")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(links), "cpu-ns/link")
	b.ReportMetric(float64(size)/float64(b.N), "bytes/page")
}

// cpuTime is the process's user and system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package render

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
)

// BenchmarkRender renders the test SPA page (a script, a JSON fetch, a
// scroll that fetches more) with 1, 2 and 4 tabs, sub-requests answered
// over loopback HTTP. It reports rendered pages/s, the CPU time of the
// browser's process group and of the benchmark per page, and the
// browser group's resident memory after the run.
func BenchmarkRender(b *testing.B) {
	path, err := FindBrowser("")
	if err != nil {
		b.Skip("chromium is not installed")
	}
	t := &testing.T{}
	srv := newSPAServer(t)
	defer srv.Close()
	b.Run("plain", func(b *testing.B) {
		// The same page fetched plainly, once, for comparison.
		var before, after syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
		for range b.N {
			plainPage(t, srv.URL+"/")
		}
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		self := float64(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) / 1e6
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		b.ReportMetric(self/float64(b.N), "godwit-cpu-ms/page")
	})
	for _, tabs := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("tabs=%d", tabs), func(b *testing.B) {
			p := New(Config{Browser: path, Tabs: tabs, RestartAfter: 1 << 30})
			if err := p.Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			f := &plainFetch{}
			pg := plainPage(t, srv.URL+"/")
			var before syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
			cpu0 := groupCPU(p.PID())
			b.ResetTimer()
			var wg sync.WaitGroup
			jobs := make(chan struct{})
			for range tabs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range jobs {
						if _, err := p.Render(context.Background(), pg, f.fetch); err != nil {
							b.Error(err)
						}
					}
				}()
			}
			for range b.N {
				jobs <- struct{}{}
			}
			close(jobs)
			wg.Wait()
			b.StopTimer()
			var after syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
			self := float64(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) / 1e6
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
			b.ReportMetric((groupCPU(p.PID())-cpu0)/float64(b.N), "browser-cpu-ms/page")
			b.ReportMetric(self/float64(b.N), "godwit-cpu-ms/page")
			b.ReportMetric(float64(groupRSS(p.PID()))/(1<<20), "browser-rss-MB")
		})
	}
}

// groupCPU is the user+system CPU time, in ms, of the live processes of
// group pgid, with the children they reaped.
func groupCPU(pgid int) float64 {
	var ms float64
	for _, pr := range groupProcs(pgid) {
		ms += procCPU(pr.pid)
	}
	return ms
}

package render

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// BenchmarkRender renders the home page of a fakeweb SPA host (an empty
// shell; its script fetches the page's JSON, is refused /api/track, and
// fetches a second JSON once scrolled) with 1, 2 and 4 tabs, every
// sub-request forwarded over loopback to fakeweb by the Fetcher, with the
// Pool's default waits (network idle 300ms after load and after each
// scroll step), next to a plain fetch of the same shell ("plain"). It
// reports pages/s; the CPU time per page of the browser's process group
// and of this process (the Go side: the Pool, the Fetcher, and fakeweb,
// which runs in-process and serves both; not the sampler's); the
// browser group's peak PSS, sampled every 250ms; and this process's peak
// RSS.
//
//	go test -run '^$' -bench BenchmarkRender -benchtime 40x ./internal/render
func BenchmarkRender(b *testing.B) {
	path, err := FindBrowser("")
	if err != nil {
		b.Skip("chromium is not installed")
	}
	w := newSPAWeb(b, fakeweb.Config{Hosts: 2, PagesPerHost: 10, SPA: true})
	const home = "http://h0.fake.test/"
	b.Run("plain", func(b *testing.B) {
		before := rusage()
		b.ResetTimer()
		for range b.N {
			r, err := w.get(context.Background(), http.MethodGet, home)
			if err != nil || r.Status != http.StatusOK {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		after := rusage()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		b.ReportMetric(cpuMS(before, after)/float64(b.N), "go-cpu-ms/page")
		b.ReportMetric(float64(after.Maxrss)/1024, "go-maxrss-MB")
	})
	for _, tabs := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("tabs=%d", tabs), func(b *testing.B) {
			p := New(Config{Browser: path, Tabs: tabs, RestartAfter: 1 << 30})
			if err := p.Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			pg := w.page(b, home)
			// One render to start the browser's renderer before measuring.
			if _, err := p.Render(context.Background(), pg, w.fetch); err != nil {
				b.Fatal(err)
			}
			var peak atomic.Int64
			stop := make(chan struct{})
			sampled := make(chan float64)
			go func() {
				// On a thread of its own, so that its CPU (reading
				// smaps_rollup is not free) is left out of the Go side's.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				var t0, t1 syscall.Rusage
				_ = syscall.Getrusage(rusageThread, &t0)
				defer func() {
					_ = syscall.Getrusage(rusageThread, &t1)
					sampled <- cpuMS(t0, t1)
				}()
				t := time.NewTicker(250 * time.Millisecond)
				defer t.Stop()
				for {
					if v := groupRSS(p.PID()); v > peak.Load() {
						peak.Store(v)
					}
					select {
					case <-stop:
						return
					case <-t.C:
					}
				}
			}()
			before := rusage()
			cpu0 := groupCPU(p.PID())
			var links atomic.Int64
			b.ResetTimer()
			var wg sync.WaitGroup
			jobs := make(chan struct{})
			for range tabs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range jobs {
						res, err := p.Render(context.Background(), pg, w.fetch)
						if err != nil {
							b.Error(err)
							continue
						}
						links.Add(int64(len(res.Links)))
					}
				}()
			}
			for range b.N {
				jobs <- struct{}{}
			}
			close(jobs)
			wg.Wait()
			b.StopTimer()
			cpu1 := groupCPU(p.PID())
			after := rusage()
			close(stop)
			sampler := <-sampled
			if links.Load() == 0 {
				b.Fatal("the renders found no links")
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
			b.ReportMetric((cpu1-cpu0)/float64(b.N), "browser-cpu-ms/page")
			b.ReportMetric((cpuMS(before, after)-sampler)/float64(b.N), "go-cpu-ms/page")
			b.ReportMetric(float64(peak.Load())/(1<<20), "browser-peak-pss-MB")
			b.ReportMetric(float64(after.Maxrss)/1024, "go-maxrss-MB")
		})
	}
}

// rusageThread is Linux's RUSAGE_THREAD.
const rusageThread = 1

func rusage() syscall.Rusage {
	var r syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return r
}

// cpuMS is the user+system CPU time between two samples, in ms.
func cpuMS(before, after syscall.Rusage) float64 {
	return float64(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) / 1e6
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

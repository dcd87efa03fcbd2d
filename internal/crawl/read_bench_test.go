package crawl

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/render"
)

// visitNop is nop with a Visitor, so that a Crawler takes a Renderer.
type visitNop struct{ nop }

func (visitNop) Visit(context.Context, string, uint64, time.Time) (Visit, error) {
	return Visit{}, errors.New("visitNop: no visits")
}

// failRenderer is a Renderer that is never asked to render in the
// benchmark (reading a page only decides whether it may be).
type failRenderer struct{}

func (failRenderer) Render(context.Context, render.Page, render.Fetcher) (*render.Result, error) {
	return nil, errors.New("failRenderer: no rendering")
}

// BenchmarkReadHTML is what a worker does with an HTML page after its
// fetch: decode, one tokenizer pass for the links, title, robots <meta>
// and visible text (its SimHash), and, when the crawl renders
// (--render auto, the default with a browser on PATH), the page's render
// signals. The page is a page of fakeweb's throughput web with 30 links
// (~15 KB). ns/op, B/op and allocs/op are per page.
func BenchmarkReadHTML(b *testing.B) {
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
	resp := &fetch.Response{URL: pageURL, Status: http.StatusOK, Header: rec.Header(), Body: rec.Body.Bytes()}
	for _, mode := range []render.Mode{render.Never, render.Auto} {
		b.Run("render="+string(mode), func(b *testing.B) {
			d := Deps{Frontier: visitNop{}, Fetcher: nop{}, Archive: nop{}, Logger: slog.New(slog.DiscardHandler)}
			if mode != render.Never {
				d.Renderer = failRenderer{}
			}
			c, err := New(Config{Render: Render{Mode: mode}}, d)
			if err != nil {
				b.Fatal(err)
			}
			t := Task{Link: Link{URL: pageURL, Host: "h"}}
			rd := c.read(b.Context(), t, resp)
			if len(rd.cands) < 20 || rd.hasPlain != (mode != render.Never) {
				b.Fatalf("read %d candidates, signals %v", len(rd.cands), rd.hasPlain)
			}
			b.SetBytes(int64(len(resp.Body)))
			b.ReportAllocs()
			for b.Loop() {
				c.read(b.Context(), t, resp)
			}
			b.ReportMetric(float64(len(rd.cands)), "links")
		})
	}
}

package render

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdpfetch "github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// tab is the state of one render.
type tab struct {
	page  Page
	fetch Fetcher
	ctx   context.Context // the tab's chromedp context
	t     *chromedp.Target

	mainServed atomic.Bool
	inflight   atomic.Int64
	lastChange atomic.Int64 // unix nanos of the last request start or end

	mu         sync.Mutex
	done       bool // no more requests are taken
	requisites []string
	subs       int
	disallowed int
	failed     int
	own        int
	wg         sync.WaitGroup
}

// hopHeaders are not passed to the browser: the body it gets is decoded
// and whole.
var hopHeaders = map[string]bool{
	"Content-Encoding": true, "Content-Length": true, "Transfer-Encoding": true,
	"Connection": true, "Keep-Alive": true,
}

func (p *Pool) renderOnce(ctx context.Context, b *browser, pg Page, fetch Fetcher) (*Result, error) {
	tabCtx, cancelTab := chromedp.NewContext(b.ctx)
	defer cancelTab()
	// Open the tab on its own context: a target lives as long as the
	// context of its first run.
	if err := chromedp.Do(tabCtx); err != nil {
		return nil, err
	}
	// The page's bound; a browser that does not answer within it counts as hung.
	runCtx, cancelRun := context.WithTimeout(tabCtx, p.cfg.PageTimeout)
	defer cancelRun()
	stop := context.AfterFunc(ctx, cancelRun)
	defer stop()

	tb := &tab{page: pg, fetch: fetch, ctx: runCtx}
	tb.touch()
	finish := func() {
		// Stop taking requests, fail those in flight, and wait for their
		// handlers: none outlives the render.
		cancelRun()
		tb.mu.Lock()
		tb.done = true
		tb.mu.Unlock()
		tb.wg.Wait()
	}
	defer finish()
	if err := chromedp.Listen(runCtx, func(ev any) {
		if e, ok := ev.(*cdpfetch.EventRequestPaused); ok {
			tb.mu.Lock()
			defer tb.mu.Unlock()
			if tb.done {
				return // the tab is closing with the render
			}
			tb.inflight.Add(1)
			tb.touch()
			tb.wg.Add(1)
			go tb.handle(e)
		}
	}); err != nil {
		return nil, err
	}
	setup := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		tb.t = t
		if _, err := cdp.Call(ctx, t, cdpfetch.Enable, cdpfetch.EnableParams{
			Patterns: []*cdpfetch.RequestPattern{{URLPattern: "*", RequestStage: cdpfetch.RequestStageRequest}},
		}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		// Responses a service worker serves would never pause.
		if _, err := cdp.Call(ctx, t, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true})
		return err
	})
	if err := chromedp.Do(runCtx, setup, chromedp.Navigate(pg.URL)); err != nil {
		return nil, err
	}
	if err := tb.waitIdle(p.cfg.IdleTime, p.cfg.IdleMax); err != nil {
		return nil, err
	}
	if err := p.scroll(runCtx, tb); err != nil {
		return nil, err
	}
	var dom struct {
		HTML  string   `json:"html"`
		Links []string `json:"links"`
	}
	dom, err := chromedp.Run(runCtx, chromedp.Evaluate[struct {
		HTML  string   `json:"html"`
		Links []string `json:"links"`
	}](`({html: "<!DOCTYPE html>\n" + document.documentElement.outerHTML,
	  links: Array.from(document.querySelectorAll("a[href], area[href]"), a => a.href)})`))
	if err != nil {
		return nil, err
	}
	res := &Result{HTML: dom.HTML, Links: dom.Links}
	if p.cfg.Screenshot {
		png, err := chromedp.Run(runCtx, chromedp.CaptureScreenshot())
		if err != nil {
			return nil, err
		}
		res.Screenshot = png
	}
	finish()
	tb.mu.Lock()
	res.Requisites = tb.requisites
	res.SubRequests, res.Disallowed, res.Failed, res.Own = tb.subs, tb.disallowed, tb.failed, tb.own
	tb.mu.Unlock()
	return res, nil
}

func (tb *tab) touch() { tb.lastChange.Store(time.Now().UnixNano()) }

// waitIdle waits until no request has been paused or answered for quiet,
// at most max. Only a dead tab is an error; a page that never goes quiet
// is read as it is when max passes.
func (tb *tab) waitIdle(quiet, max time.Duration) error {
	deadline := time.Now().Add(max)
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		if tb.inflight.Load() == 0 && time.Since(time.Unix(0, tb.lastChange.Load())) >= quiet {
			return nil
		}
		if time.Now().After(deadline) {
			return nil
		}
		select {
		case <-tb.ctx.Done():
			return tb.ctx.Err()
		case <-tick.C:
		}
	}
}

// scroll scrolls to the bottom a viewport at a time, waiting for idle
// after each step, until the bottom is reached and the page stopped
// growing, or ScrollMax passes.
func (p *Pool) scroll(ctx context.Context, tb *tab) error {
	deadline := time.Now().Add(p.cfg.ScrollMax)
	for time.Now().Before(deadline) {
		tb.touch()
		// Scroll, then let two frames pass so that the page's scroll
		// handlers have run (and started their requests) before the wait
		// for idle; a timer bounds it where frames do not come.
		pos, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`new Promise(done => {
			const h = document.documentElement.scrollHeight;
			window.scrollBy(0, window.innerHeight);
			const end = () => done([window.scrollY + window.innerHeight, h]);
			const t = setTimeout(end, 200);
			requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(t); end(); }));
		})`, chromedp.EvalAwaitPromise))
		if err != nil {
			return err
		}
		if err := tb.waitIdle(p.cfg.IdleTime, time.Until(deadline)); err != nil {
			return err
		}
		h, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollHeight`))
		if err != nil {
			return err
		}
		if len(pos) == 2 && pos[0] >= pos[1] && h <= pos[1] {
			return nil
		}
	}
	return nil
}

// handle answers one paused request: the page's document from the plain
// fetch, anything else through the Fetcher; never from the network.
func (tb *tab) handle(e *cdpfetch.EventRequestPaused) {
	defer tb.wg.Done()
	defer func() {
		tb.inflight.Add(-1)
		tb.touch()
	}()
	ctx := tb.ctx
	t := tb.t
	if t == nil {
		return
	}
	fail := func(reason network.ErrorReason) {
		_, _ = cdp.Call(context.WithoutCancel(ctx), t, cdpfetch.FailRequest,
			cdpfetch.FailRequestParams{RequestID: e.RequestID, ErrorReason: reason})
	}
	fulfil := func(status int, h http.Header, body []byte) {
		var hs []*cdpfetch.HeaderEntry
		for k, vs := range h {
			if hopHeaders[http.CanonicalHeaderKey(k)] {
				continue
			}
			for _, v := range vs {
				hs = append(hs, &cdpfetch.HeaderEntry{Name: k, Value: v})
			}
		}
		if body == nil {
			body = []byte{}
		}
		_, _ = cdp.Call(ctx, t, cdpfetch.FulfillRequest, cdpfetch.FulfillRequestParams{
			RequestID: e.RequestID, ResponseCode: int64(status), ResponseHeaders: hs, Body: body,
		})
	}
	u := e.Request.URL
	if e.Request.URLFragment != "" {
		u += e.Request.URLFragment
	}
	if e.ResourceType == network.ResourceTypeDocument && e.Request.Method == http.MethodGet &&
		sameDoc(e.Request.URL, tb.page.URL) && tb.mainServed.CompareAndSwap(false, true) {
		fulfil(tb.page.Status, tb.page.Header, tb.page.Body)
		return
	}
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		fail(network.ErrorReasonAccessDenied)
		return
	}
	if tb.ownFavicon(e) {
		tb.mu.Lock()
		tb.own++
		tb.mu.Unlock()
		fail(network.ErrorReasonBlockedByClient)
		return
	}
	h := http.Header{}
	for k, v := range e.Request.Headers {
		if s, ok := v.(string); ok {
			h.Set(k, s)
		}
	}
	resp, err := tb.fetch(ctx, Request{URL: e.Request.URL, Method: e.Request.Method, Header: h, ResourceType: string(e.ResourceType)})
	tb.mu.Lock()
	switch {
	case errors.Is(err, ErrDisallowed):
		tb.disallowed++
	case err != nil:
		tb.failed++
	default:
		tb.subs++
		tb.requisites = append(tb.requisites, e.Request.URL)
	}
	tb.mu.Unlock()
	switch {
	case errors.Is(err, ErrDisallowed):
		fail(network.ErrorReasonBlockedByClient)
	case err != nil:
		fail(network.ErrorReasonFailed)
	default:
		fulfil(resp.Status, resp.Header, resp.Body)
	}
}

// ownFavicon reports whether e is the browser's own request for the
// page's /favicon.ico (resource type Other), which no page made: Chromium
// asks for it whatever the page says. A page whose plain document names
// favicon.ico (a <link rel="icon">) gets it through the Fetcher.
func (tb *tab) ownFavicon(e *cdpfetch.EventRequestPaused) bool {
	if e.ResourceType != network.ResourceTypeOther {
		return false
	}
	u, err := url.Parse(e.Request.URL)
	if err != nil || u.Path != "/favicon.ico" {
		return false
	}
	return !bytes.Contains(tb.page.Body, []byte("favicon.ico"))
}

// sameDoc reports whether the browser's request URL a names the page b
// (the browser drops the fragment).
func sameDoc(a, b string) bool {
	if i := strings.IndexByte(b, '#'); i >= 0 {
		b = b[:i]
	}
	return a == b
}

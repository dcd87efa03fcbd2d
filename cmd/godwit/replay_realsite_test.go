package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// pythonDocs is where Debian's python3.11-doc puts the Python
// documentation, a Sphinx site no one here wrote.
const pythonDocs = "/usr/share/doc/python3.11/html"

// TestReplayPythonDocsInBrowser crawls a page of the Python documentation
// (Sphinx's classic theme: page → pydoctheme.css → default.css →
// classic.css → basic.css, each by @import) served as it is from Debian's
// package, and replays it in ReplayWeb.page in headless Chromium: the
// replayed page must have the layout the live page has, judged by the
// computed style of elements each sheet of the chain styles (basic.css,
// four imports deep, floats and sizes the sidebar). It needs
// python3.11-doc, Chromium and the replaywebpage package, and is skipped
// without them.
func TestReplayPythonDocsInBrowser(t *testing.T) {
	tools := replayBrowserTools(t)
	t.Parallel() // see replayBrowserTools
	if _, err := os.Stat(filepath.Join(pythonDocs, "_static", "basic.css")); err != nil {
		t.Skip("no Python documentation (apt-get install python3.11-doc)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	site := &http.Server{Handler: http.FileServer(http.Dir(pythonDocs))}
	go site.Serve(ln)
	t.Cleanup(func() { site.Close() })
	page := "http://" + ln.Addr().String() + "/tutorial/" // (Go's file server redirects .../index.html here)

	s := testSettings(t, "")
	s.Proxy = ""
	s.AllowPrivate = true
	s.Delay = time.Millisecond
	s.MaxDepth = 1 // the page, the pages it links to (~30) and their requisites
	crawlInProcess(t, s, []string{page})

	b := startBrowserReplay(t, tools, s.Data, page)
	// The style of: the sidebar (basic.css floats and sizes it; its
	// overflow-wrap is basic.css's alone), the related bar (classic.css's
	// colours) and the body (pydoctheme.css's font).
	const probe = `(() => {
		const st = (sel) => { const e = document.querySelector(sel); return e ? getComputedStyle(e) : null; };
		const side = st("div.sphinxsidebar"), rel = st("div.related"), body = st("body");
		return JSON.stringify({
			sideWrap: side ? side.overflowWrap : "", sideFloat: side ? side.cssFloat : "",
			relBg: rel ? rel.backgroundColor : "", bodyFont: body ? body.fontFamily : "",
			ready: document.readyState});
	})()`
	type style struct{ SideWrap, SideFloat, RelBg, BodyFont, Ready string }

	// The live page's style, as the site serves it.
	if _, err := b.cdp.call(b.ctx, "Page.navigate", map[string]any{"url": page}); err != nil {
		t.Fatal(err)
	}
	var live style
	for live.Ready != "complete" {
		if b.ctx.Err() != nil {
			t.Fatal("the live page did not load")
		}
		res, err := b.cdp.call(b.ctx, "Runtime.evaluate", map[string]any{"expression": probe, "returnByValue": true})
		if err == nil {
			var v struct{ Result struct{ Value string } }
			if json.Unmarshal(res, &v) == nil {
				json.Unmarshal([]byte(v.Result.Value), &live)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if live.SideWrap != "break-word" {
		t.Fatalf("the live page's sidebar has overflow-wrap %q, want basic.css's break-word: the probe does not test the chain", live.SideWrap)
	}

	// The replayed page's.
	v := b.replay(t, probe, fmt.Sprintf("took the live page's style %+v", live), func(v string) bool {
		var got style
		return json.Unmarshal([]byte(v), &got) == nil && got.Ready == "complete" && got == live
	})
	t.Logf("replayed with the live page's style: %s", v)
}

// TestReplaySPAInBrowser: a page whose text and links a script builds
// from a JSON endpoint, crawled with --render auto, replays in
// ReplayWeb.page in headless Chromium with that text and those links: the
// script and the JSON it asks for were archived as the browser fetched
// them through godwit, so the replayed script finds them in the archive.
// Needs Chromium and the replaywebpage package; skipped without them.
func TestReplaySPAInBrowser(t *testing.T) {
	tools := replayBrowserTools(t)
	t.Parallel() // see replayBrowserTools
	web, addr := startWeb(t, fakeweb.Config{Hosts: 1, PagesPerHost: 3, Seed: 7, SPA: true})
	page := "http://h0." + web.Config().Domain + "/"
	s := testSettings(t, addr)
	s.Delay = 5 * time.Millisecond
	s.Render.Mode = "auto"
	s.MaxDepth = 1
	res := crawlInProcess(t, s, []string{page})
	if res.Render.Pages == 0 {
		t.Fatalf("nothing rendered: %+v", res.Render)
	}

	b := startBrowserReplay(t, tools, s.Data, page)
	// The shell's root is empty as archived; only the replayed script,
	// reading the archived JSON, fills it with a heading and links.
	const probe = `JSON.stringify({h1: (document.querySelector("#root h1") || {}).textContent || "",
		links: document.querySelectorAll("#root ul.links a[href]").length})`
	v := b.replay(t, probe, "showed its script-built heading and links", func(v string) bool {
		var got struct {
			H1    string
			Links int
		}
		return json.Unmarshal([]byte(v), &got) == nil && got.H1 != "" && got.Links > 0
	})
	t.Logf("replayed with its script-built content: %s", v)
}

// TestReplayHTTP2InBrowser: pages fetched over HTTP/2 (a web served
// directly over TLS, --http2 auto), archived in HTTP/1.1 form with
// WARC-Protocol h2, replay in ReplayWeb.page in headless Chromium with
// their stylesheet (an @import chain) and image, as TestReplayInBrowser's
// pages fetched over HTTP/1.1 do. Needs Chromium and the replaywebpage
// package; skipped without them.
func TestReplayHTTP2InBrowser(t *testing.T) {
	tools := replayBrowserTools(t)
	t.Parallel() // judged by what the browser shows, not by when: see replayBrowserTools
	web := newDirectWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 6, Seed: 5, Requisites: true, HTTPS: true}, "127.0.0.2")
	page := "https://h0.fake.test/"
	s := web.settings(t)
	s.HTTP2 = "auto"
	s.MaxDepth = 1
	crawlInProcess(t, s, []string{page})
	for _, q := range web.Requests() {
		if q.Proto != "HTTP/2.0" {
			t.Fatalf("fakeweb saw %s %s, want only HTTP/2", q.Proto, q.RawURL)
		}
	}
	b := startBrowserReplay(t, tools, s.Data, page)
	// As TestReplayInBrowser: the <h1> colour base.css (imported by
	// site.css) sets, and the image loaded from the archive.
	const probe = `JSON.stringify({color: document.querySelector("h1") ? getComputedStyle(document.querySelector("h1")).color : "",
		img: document.images.length ? document.images[0].naturalWidth : -1,
		complete: document.images.length ? document.images[0].complete : false})`
	v := b.replay(t, probe, "showed its style and image (fetched over HTTP/2)", func(v string) bool {
		var got struct {
			Color    string
			Img      int
			Complete bool
		}
		return json.Unmarshal([]byte(v), &got) == nil && got.Complete && got.Img == 2 && got.Color == "rgb(1, 2, 3)"
	})
	t.Logf("replayed: %s", v)
}

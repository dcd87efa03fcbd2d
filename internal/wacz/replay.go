package wacz

import (
	"fmt"
	"html"
	"net/http"
	"path/filepath"
	"regexp"
)

// ReplayWebPageVersion is the ReplayWeb.page release that `godwit replay`
// (ReplayHandler) loads from the jsDelivr CDN when no local copy is given; the replay test
// (TestReplayInBrowser) runs the same release from its npm package.
const ReplayWebPageVersion = "2.5.3"

// ReplayWebPageCDN is where that release's ui.js and sw.js are served.
const ReplayWebPageCDN = "https://cdn.jsdelivr.net/npm/replaywebpage@" + ReplayWebPageVersion + "/"

// ReplayHandler serves the replay of the WACZ file wacz: at / a page
// embedding ReplayWeb.page (opening url, or the page list when url is
// ""), its service worker under /replay/, and the file under its own name
// (which ReplayWeb.page shows as the collection's; /archive.wacz when the
// name is not a plain NAME.wacz), with range requests, which
// ReplayWeb.page uses to read records in place. ui is the directory of
// the replaywebpage package, served at /ui.js, /replay/ui.js and
// /replay/sw.js; "" loads them from the CDN.
func ReplayHandler(wacz, ui, url string) http.Handler {
	name := filepath.Base(wacz)
	if !plainName.MatchString(name) {
		name = "archive.wacz"
	}
	script := ReplayWebPageCDN + "ui.js"
	if ui != "" {
		script = "/ui.js"
	}
	page := `<!doctype html>
<html><head><meta charset="utf-8"><title>godwit replay: ` + html.EscapeString(filepath.Base(wacz)) + `</title>
<script src="` + script + `"></script></head>
<body style="margin:0;height:100vh">
<replay-web-page style="display:block;width:100%;height:100%" source="/` + name + `" replayBase="/replay/"`
	if url != "" {
		page += ` url="` + html.EscapeString(url) + `"`
	}
	page += "></replay-web-page>\n</body></html>\n"

	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	})
	mux.HandleFunc("GET /"+name, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/wacz+zip")
		http.ServeFile(w, r, wacz)
	})
	// The embed's iframe opens /replay/, whose page the service worker
	// makes up (serveIndex): <script src="./ui.js">, the replay app, is
	// /replay/ui.js, fetched from here. The embed opens the iframe as
	// soon as the worker is registered, before it is active, and
	// reloads it only three times, 100 ms apart, when no worker
	// controls it: a worker slower to start than that (a busy machine)
	// left the iframe on this server's answer for /replay/ for good, and
	// that was a 404. The answer is now a page that waits for the worker
	// and reloads itself once it is active; from then on the worker, not
	// this server, answers /replay/.
	mux.HandleFunc("GET /replay/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, startingPage)
	})
	if ui != "" {
		serveUI := func(w http.ResponseWriter, r *http.Request) {
			http.ServeFile(w, r, filepath.Join(ui, "ui.js"))
		}
		mux.HandleFunc("GET /ui.js", serveUI)
		mux.HandleFunc("GET /replay/ui.js", serveUI)
		mux.HandleFunc("GET /replay/sw.js", func(w http.ResponseWriter, r *http.Request) {
			http.ServeFile(w, r, filepath.Join(ui, "sw.js"))
		})
	} else {
		// ReplayWeb.page's documented way to embed it from a CDN: a
		// service worker of this origin that imports the release's; the
		// app's script is the release's too.
		mux.HandleFunc("GET /replay/sw.js", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprintf(w, "importScripts(%q);\n", ReplayWebPageCDN+"sw.js")
		})
		mux.HandleFunc("GET /replay/ui.js", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, ReplayWebPageCDN+"ui.js", http.StatusFound)
		})
	}
	return mux
}

// startingPage is /replay/ while ReplayWeb.page's service worker is not
// active yet: it reloads itself when the worker is.
const startingPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>godwit replay: starting</title></head>
<body><p style="font-family:sans-serif">Starting the replay…</p>
<script>
if ("serviceWorker" in navigator) navigator.serviceWorker.ready.then(() => location.reload());
</script></body></html>
`

// plainName is a file name served as it is: no character a URL path
// or a ServeMux pattern would read otherwise.
var plainName = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*\.wacz$`)

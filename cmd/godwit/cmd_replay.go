package main

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/warc"
)

// replayWebPageVersion is the ReplayWeb.page release that `godwit replay`
// loads from the jsDelivr CDN when no local copy is given; the replay test
// (TestReplayInBrowser) runs the same release from its npm package.
const replayWebPageVersion = "2.5.3"

// replayWebPageCDN is where that release's ui.js and sw.js are served.
const replayWebPageCDN = "https://cdn.jsdelivr.net/npm/replaywebpage@" + replayWebPageVersion + "/"

func newReplayCmd() *cobra.Command {
	var data, listen, ui, url string
	cmd := &cobra.Command{
		Use:   "replay [FILE.wacz]",
		Short: "Serve a crawl to replay in your browser with ReplayWeb.page",
		Long: `Serve a WACZ file (or, with no argument, the complete WARC files of the
crawl in --data, copied into a WACZ in the temporary directory, $TMPDIR,
and removed when the command stops) on a local address, in a page that
embeds ReplayWeb.page, and print the address to open in a browser. For a
large crawl, export it once (godwit export wacz) and serve that file.
Pages replay with the stylesheets, images and fonts the crawl archived
(page requisites); the archive's page list is shown unless --url names
the page to open.

ReplayWeb.page runs in the browser. By default the page loads release
` + replayWebPageVersion + ` from the jsDelivr CDN (the browser needs the internet; the archive
never leaves this machine). To replay offline, give --replayweb the
directory of its npm package:

  npm pack replaywebpage@` + replayWebPageVersion + ` && tar xzf replaywebpage-` + replayWebPageVersion + `.tgz
  godwit replay --replayweb package crawl.wacz

Serves until interrupted (Ctrl-C).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if ui != "" {
				if err := checkFiles([]string{filepath.Join(ui, "ui.js"), filepath.Join(ui, "sw.js")}); err != nil {
					return fmt.Errorf("--replayweb %s is not the replaywebpage package: %w", ui, err)
				}
			}
			// Interrupts are caught from here on, so that the package
			// made below is removed however the command ends.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			wacz := ""
			if len(args) == 1 {
				if err := checkFiles(args); err != nil {
					return err
				}
				wacz = args[0]
			} else {
				paths, err := crawlWARCs(data)
				if err != nil {
					return err
				}
				tmp, err := os.MkdirTemp("", "godwit-replay-")
				if err != nil {
					return failure{err}
				}
				defer os.RemoveAll(tmp)
				name := "crawl"
				if abs, err := filepath.Abs(data); err == nil {
					name = filepath.Base(abs)
				}
				wacz = filepath.Join(tmp, name+".wacz")
				if err := writeWACZFile(wacz, paths, name, time.Now()); err != nil {
					return failure{err}
				}
				if ctx.Err() != nil {
					return nil // interrupted while packaging
				}
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return failure{err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "replaying %s at http://%s/ (Ctrl-C to stop)\n", wacz, ln.Addr())
			if ui == "" {
				fmt.Fprintf(cmd.OutOrStdout(), "  ReplayWeb.page %s from %s (--replayweb DIR to replay offline)\n", replayWebPageVersion, replayWebPageCDN)
			}
			if err := serveReplay(ctx, ln, replayHandler(wacz, ui, url)); err != nil {
				return failure{err}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&data, "data", defaultSettings().Data, "the crawl's data directory (when no WACZ file is given)")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8090", "the address to serve the replay on")
	cmd.Flags().StringVar(&ui, "replayweb", "", "the directory of the replaywebpage npm package (ui.js, sw.js); default: load it from the CDN")
	cmd.Flags().StringVar(&url, "url", "", "the archived page to open (default: the archive's page list)")
	return cmd
}

// crawlWARCs lists the complete WARC files of the crawl in data, in name
// order (which is the order they were written).
func crawlWARCs(data string) ([]string, error) {
	dir := dataDir(data).warc()
	paths, err := filepath.Glob(filepath.Join(dir, "*"+warc.Ext))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no WARC files in %s", dir)
	}
	return paths, nil // Glob sorts
}

// replayHandler serves the replay of the WACZ file wacz: at / a page
// embedding ReplayWeb.page (opening url, or the page list when url is
// ""), its service worker under /replay/, and the file under its own name
// (which ReplayWeb.page shows as the collection's; /archive.wacz when the
// name is not a plain NAME.wacz), with range requests, which
// ReplayWeb.page uses to read records in place. ui is the directory of
// the replaywebpage package, served at /ui.js, /replay/ui.js and
// /replay/sw.js; "" loads them from the CDN.
func replayHandler(wacz, ui, url string) http.Handler {
	name := filepath.Base(wacz)
	if !plainWACZName.MatchString(name) {
		name = "archive.wacz"
	}
	script := replayWebPageCDN + "ui.js"
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
	// /replay/ui.js, fetched from here.
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
			fmt.Fprintf(w, "importScripts(%q);\n", replayWebPageCDN+"sw.js")
		})
		mux.HandleFunc("GET /replay/ui.js", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, replayWebPageCDN+"ui.js", http.StatusFound)
		})
	}
	return mux
}

// plainWACZName is a file name served as it is: no character a URL path
// or a ServeMux pattern would read otherwise.
var plainWACZName = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*\.wacz$`)

// serveReplay serves h on ln until ctx ends.
func serveReplay(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		srv.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

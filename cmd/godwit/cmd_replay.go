package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/lifecycle"
	"github.com/godwit-crawler/godwit/internal/wacz"
	"github.com/godwit-crawler/godwit/internal/warc"
)

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
` + wacz.ReplayWebPageVersion + ` from the jsDelivr CDN (the browser needs the internet; the archive
never leaves this machine). To replay offline, give --replayweb the
directory of its npm package:

  npm pack replaywebpage@` + wacz.ReplayWebPageVersion + ` && tar xzf replaywebpage-` + wacz.ReplayWebPageVersion + `.tgz
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
			waczFile := ""
			if len(args) == 1 {
				if err := checkFiles(args); err != nil {
					return err
				}
				waczFile = args[0]
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
				waczFile = filepath.Join(tmp, name+".wacz")
				if err := writeWACZFile(waczFile, paths, name); err != nil {
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
			fmt.Fprintf(cmd.OutOrStdout(), "replaying %s at http://%s/ (Ctrl-C to stop)\n", waczFile, ln.Addr())
			if ui == "" {
				fmt.Fprintf(cmd.OutOrStdout(), "  ReplayWeb.page %s from %s (--replayweb DIR to replay offline)\n", wacz.ReplayWebPageVersion, wacz.ReplayWebPageCDN)
			}
			if err := serveReplay(ctx, ln, wacz.ReplayHandler(waczFile, ui, url)); err != nil {
				return failure{err}
			}
			return nil
		},
	}
	flagReplayData.stringVar(cmd.Flags(), &data, defaultSettings().Data)
	flagReplayListen.stringVar(cmd.Flags(), &listen, "127.0.0.1:8090")
	flagReplayReplayweb.stringVar(cmd.Flags(), &ui, "")
	flagReplayURL.stringVar(cmd.Flags(), &url, "")
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

// serveReplay serves h on ln until ctx ends.
func serveReplay(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	return lifecycle.ServeHTTP(ctx, srv, ln, nil, 5*time.Second)
}

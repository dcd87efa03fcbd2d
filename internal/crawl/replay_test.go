package crawl

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"testing"

	"github.com/godwit-crawler/godwit/internal/fetch"
)

// missingArchive is an archive whose files are elsewhere (another
// node's): Load finds no file.
type missingArchive struct{ nop }

func (missingArchive) Load(context.Context, Capture) (*fetch.Response, error) {
	return nil, fmt.Errorf("archive: load x.warc.gz: %w", fs.ErrNotExist)
}

// countingFetcher counts the requests it is asked to make.
type countingFetcher struct {
	nop
	n *int
}

func (f countingFetcher) Fetch(context.Context, fetch.Request) (*fetch.Response, error) {
	*f.n++
	return nil, fmt.Errorf("countingFetcher: no fetching")
}

// TestReplayOfACaptureNotHere: a replay whose capture cannot be read
// makes no request and asks the frontier to queue the URL as a fetch
// (Retry), quietly when the file is merely not here.
func TestReplayOfACaptureNotHere(t *testing.T) {
	for _, maxDepth := range []int{0, 3} {
		var logged strings.Builder
		requests := 0
		c, err := New(Config{MaxDepth: maxDepth}, Deps{
			Frontier: nop{},
			Fetcher:  countingFetcher{n: &requests},
			Archive:  missingArchive{},
			Logger:   slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelInfo})),
		})
		if err != nil {
			t.Fatal(err)
		}
		task := Task{Link: Link{URL: "http://a.example/p", Host: "a.example", Depth: 1, Via: "http://a.example/"},
			Replay: &Capture{File: "x.warc.gz", Offset: 10, Length: 100}}
		out, links, err := c.process(t.Context(), Lease{Task: task})
		// With a depth limit the page is fetched again (a Retry the
		// frontier queues as a plain fetch), so that the links the
		// smaller depth brings within it are followed; without one, a
		// smaller depth reaches nothing new and the URL is done.
		want := Retry
		if maxDepth == 0 {
			want = Done
		}
		if err != nil || out.Disposition != want || out.Requested || len(links) != 0 {
			t.Errorf("max depth %d: process(replay of a capture not here) = %+v, %d links, %v; want disposition %v, no request, no links",
				maxDepth, out, len(links), err, want)
		}
		if requests != 0 {
			t.Errorf("max depth %d: the replay made %d requests", maxDepth, requests)
		}
		if strings.Contains(logged.String(), "level=WARN") {
			t.Errorf("max depth %d: a capture not here warned:\n%s", maxDepth, logged.String())
		}
	}
}

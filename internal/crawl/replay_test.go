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
	var logged strings.Builder
	requests := 0
	c, err := New(Config{}, Deps{
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
	if err != nil || out.Disposition != Retry || out.Requested || len(links) != 0 {
		t.Errorf("process(replay of a capture not here) = %+v, %d links, %v; want Retry, no request, no links", out, len(links), err)
	}
	if requests != 0 {
		t.Errorf("the replay made %d requests", requests)
	}
	if strings.Contains(logged.String(), "level=WARN") {
		t.Errorf("a capture not here warned:\n%s", logged.String())
	}
}

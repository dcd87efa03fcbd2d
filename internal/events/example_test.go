package events_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/events"
)

func Example() {
	dir, _ := os.MkdirTemp("", "events")
	defer os.RemoveAll(dir)
	f, err := events.Open(events.Config{Path: filepath.Join(dir, "pages.jsonl")})
	if err != nil {
		panic(err)
	}
	f.Page(context.Background(), crawl.PageEvent{URL: "http://example.test/", Status: 200,
		Capture: crawl.Capture{File: "a.warc.gz", Offset: 1234, Length: 567}})
	f.Close()
	b, _ := os.ReadFile(filepath.Join(dir, "pages.jsonl"))
	fmt.Print(string(b))
	// Output:
	// {"event":"page","url":"http://example.test/","status":200,"time":"0001-01-01T00:00:00Z","depth":0,"warc":{"file":"a.warc.gz","offset":1234,"length":567}}
}

package frontier

import (
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
)

func TestTaskRoundTrip(t *testing.T) {
	tests := []crawl.Task{
		{Link: crawl.Link{URL: "http://a.test/", Key: "http://a.test/", Host: "a.test"}},
		{Link: crawl.Link{URL: "http://a.test/x?b=1&a=2", Key: "http://a.test/x?a=2&b=1", Host: "a.test", Depth: 3, Hops: 2, Via: "http://a.test/"}, Attempt: 1,
			Replay: &crawl.Capture{File: "f.warc.gz", Offset: 10, Length: 20}},
		{Link: crawl.Link{URL: "http://a.test/sitemap.xml", Key: "http://a.test/sitemap.xml", Host: "a.test", Sitemap: 2}},
		{Link: crawl.Link{URL: "http://a.test/p", Key: "http://a.test/p", Host: "a.test", Depth: 1,
			Hints: crawl.Hints{LastMod: time.Unix(1700000000, 0), ChangeFreq: "daily", Priority: 0.8, HasPriority: true}}},
		{Link: crawl.Link{URL: "http://a.test/q", Key: "http://a.test/q", Host: "a.test", Hints: crawl.Hints{Priority: 0, HasPriority: true}}},
	}
	for _, want := range tests {
		got, err := decodeTask(encodeTask(want))
		if err != nil {
			t.Fatalf("decodeTask(encodeTask(%+v)): %v", want, err)
		}
		if !sameTask(got, want) || !got.Hints.LastMod.Equal(want.Hints.LastMod) {
			t.Errorf("round trip = %+v, want %+v", got, want)
		}
	}
}

package events_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	clusterjs "github.com/godwit-crawler/godwit/internal/cluster/jetstream"
	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/events"
)

func TestParseNATS(t *testing.T) {
	for _, tc := range []struct{ spec, servers, subject string }{
		{"nats://127.0.0.1:4222/pages", "nats://127.0.0.1:4222", "pages"},
		{"nats://a:4222,b:4222/crawl.books.pages", "nats://a:4222,nats://b:4222", "crawl.books.pages"},
	} {
		servers, subject, err := events.ParseNATS(tc.spec)
		if err != nil || servers != tc.servers || subject != tc.subject {
			t.Errorf("ParseNATS(%q) = %q, %q, %v; want %q, %q", tc.spec, servers, subject, err, tc.servers, tc.subject)
		}
	}
	for _, bad := range []string{"jsonl:x", "nats://host:4222", "nats://host:4222/", "nats:///pages", "nats://h:1/a.*", "nats://h:1/a/b", "nats://h:1/a."} {
		if _, _, err := events.ParseNATS(bad); err == nil {
			t.Errorf("ParseNATS(%q) accepted", bad)
		}
	}
	if got := events.StreamName("crawl.books-1"); got != "GODWIT_EVENTS_crawl_books_1" {
		t.Errorf("StreamName = %q", got)
	}
}

// TestStreamPublishesEveryPage: each page's event is in the JetStream
// stream when Page returns, in order, as the events file writes it.
func TestStreamPublishesEveryPage(t *testing.T) {
	srv, err := clusterjs.NewServer(clusterjs.ServerConfig{Listen: "127.0.0.1:0", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	ctx := t.Context()
	s, err := events.OpenStream(ctx, srv.ClientURL()+"/crawl.pages")
	if err != nil {
		t.Fatal(err)
	}
	want := []crawl.PageEvent{
		{URL: "http://a.test/", Status: 200, Time: time.Unix(1_700_000_000, 0).UTC(), Title: "A",
			Capture: crawl.Capture{File: "w.warc.gz", Offset: 10, Length: 20, RecordID: "<urn:uuid:1>"}, Outlinks: []string{"http://a.test/x"}},
		{URL: "http://a.test/x", Status: 404, Time: time.Unix(1_700_000_001, 0).UTC(), Depth: 1,
			Capture: crawl.Capture{File: "w.warc.gz", Offset: 30, Length: 40}},
	}
	for _, e := range want {
		if err := s.Page(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	stream, err := js.Stream(ctx, events.StreamName("crawl.pages"))
	if err != nil {
		t.Fatal(err)
	}
	cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range want {
		m, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		var got events.Event
		if err := json.Unmarshal(m.Data(), &got); err != nil {
			t.Fatal(err)
		}
		exp := events.Encode(e)
		if got.URL != exp.URL || got.Status != exp.Status || !got.Time.Equal(exp.Time) || got.WARC != exp.WARC ||
			got.Title != exp.Title || !slices.Equal(got.Outlinks, exp.Outlinks) || m.Subject() != "crawl.pages" {
			t.Errorf("event %d = %+v on %s, want %+v", i, got, m.Subject(), exp)
		}
	}
}

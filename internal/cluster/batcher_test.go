package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/shard"
)

// sink is a PublishFunc that decodes what it is given.
type sink struct {
	codec *Codec
	mu    sync.Mutex
	msgs  []Event
	sizes []int
	at    []time.Time
	block chan struct{} // when not nil, each publish waits for a receive
	busy  int           // publishes running now
	peak  int
}

func (s *sink) publish(ctx context.Context, shard int, msg []byte) error {
	s.mu.Lock()
	s.busy++
	s.peak = max(s.peak, s.busy)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.busy--
		s.mu.Unlock()
	}()
	if s.block != nil {
		select {
		case <-s.block:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	e, err := s.codec.Decode(msg)
	if err != nil {
		return err
	}
	if e.Kind != KindLinks || e.Shard != shard {
		return fmt.Errorf("got %c event for shard %d on shard %d", e.Kind, e.Shard, shard)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, e)
	s.sizes = append(s.sizes, len(msg))
	s.at = append(s.at, time.Now())
	return nil
}

// published is a copy of the events published so far, their times and
// the peak of concurrent publishes.
func (s *sink) published() ([]Event, []time.Time, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.msgs...), append([]time.Time(nil), s.at...), s.peak
}

func (s *sink) links() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[string]int{}
	for _, e := range s.msgs {
		for _, l := range e.Links {
			if shard.Of(l.Host, 16) != e.Shard {
				m["wrong shard: "+l.URL]++
			}
			m[l.URL]++
		}
	}
	return m
}

// hostLinks are n links all on one host, so on one shard.
func hostLinks(host string, n int) []crawl.Link {
	links := make([]crawl.Link, n)
	for i := range links {
		u := fmt.Sprintf("https://%s/page/%d", host, i)
		links[i] = crawl.Link{URL: u, Key: u, Host: host, Depth: 2}
	}
	return links
}

func startBatcher(t *testing.T, cfg BatcherConfig, s *sink) (*Batcher, func()) {
	t.Helper()
	b, err := NewBatcher(cfg, s.codec, s.publish)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	return b, func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	}
}

func TestBatcherFlushesFullBatchesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sink{codec: newCodec(t)}
		b, stop := startBatcher(t, BatcherConfig{Shards: 16}, s)
		defer stop()
		if err := b.Add(t.Context(), hostLinks("a.example", 1200)...); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		// Two full batches leave at once; 200 links wait for MaxDelay.
		msgs, _, _ := s.published()
		if len(msgs) != 2 || len(msgs[0].Links) != 500 || len(msgs[1].Links) != 500 {
			t.Fatalf("published %d batches at once, want 2 of 500 links", len(msgs))
		}
		start := time.Now()
		time.Sleep(2 * time.Second)
		msgs, at, _ := s.published()
		if len(msgs) != 3 || len(msgs[2].Links) != 200 {
			t.Fatalf("after 2 s, %d batches, want the 200 left in a third", len(msgs))
		}
		if d := at[2].Sub(start); d > time.Second {
			t.Errorf("the partial batch left after %v, want ≤ 1 s", d)
		}
		if got := s.links(); len(got) != 1200 {
			t.Errorf("%d distinct links published, want 1200", len(got))
		}
	})
}

func TestBatcherSplitsByShardAndBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sink{codec: newCodec(t)}
		b, stop := startBatcher(t, BatcherConfig{Shards: 16, MaxBytes: 4 << 10}, s)
		defer stop()
		var all []crawl.Link
		for h := range 20 {
			all = append(all, hostLinks(fmt.Sprintf("h%d.example", h), 50)...)
		}
		if err := b.Add(t.Context(), all...); err != nil {
			t.Fatal(err)
		}
		if err := b.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		got := s.links()
		if len(got) != 1000 {
			t.Errorf("%d distinct links, want 1000", len(got))
		}
		for u, n := range got {
			if n != 1 {
				t.Errorf("%s published %d times", u, n)
			}
		}
		msgs, _, _ := s.published()
		for _, e := range msgs {
			raw := 0
			for i := range e.Links {
				raw += linkSize(&e.Links[i])
			}
			if raw-linkSize(&e.Links[len(e.Links)-1]) >= 4<<10 {
				t.Errorf("a batch of shard %d holds %d bytes, past MaxBytes before its last link", e.Shard, raw)
			}
		}
	})
}

func TestBatcherBoundsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sink{codec: newCodec(t), block: make(chan struct{})}
		b, stop := startBatcher(t, BatcherConfig{Shards: 16, MaxLinks: 1, MaxInFlight: 3}, s)
		defer stop()
		added := make(chan error, 1)
		go func() {
			var links []crawl.Link
			for i := range 10 {
				links = append(links, hostLinks(fmt.Sprintf("h%d.example", i), 1)...)
			}
			added <- b.Add(t.Context(), links...)
		}()
		synctest.Wait()
		select {
		case err := <-added:
			t.Fatalf("Add of 10 one-link batches returned (%v) with 3 publishes blocked, want it to block", err)
		default:
		}
		if _, _, peak := s.published(); peak != 3 {
			t.Errorf("%d publishes ran at once, want MaxInFlight = 3", peak)
		}
		for range 10 {
			s.block <- struct{}{}
		}
		if err := <-added; err != nil {
			t.Fatal(err)
		}
		if err := b.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		if msgs, _, peak := s.published(); peak != 3 || len(msgs) != 10 {
			t.Errorf("peak %d, %d published; want 3 and 10", peak, len(msgs))
		}
	})
}

func TestBatcherPublishErrorSticks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		codec := newCodec(t)
		boom := errors.New("boom")
		b, err := NewBatcher(BatcherConfig{Shards: 4}, codec, func(context.Context, int, []byte) error { return boom })
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- b.Run(ctx) }()
		if err := b.Add(ctx, hostLinks("a.example", 3)...); err != nil {
			t.Fatal(err)
		}
		if err := b.Flush(ctx); !errors.Is(err, boom) {
			t.Errorf("Flush = %v, want boom", err)
		}
		if err := b.Add(ctx, hostLinks("b.example", 1)...); !errors.Is(err, boom) {
			t.Errorf("Add after a failed publish = %v, want boom", err)
		}
		cancel()
		<-done
		if err := b.Flush(t.Context()); err == nil {
			t.Errorf("Flush after Run returned = nil, want an error")
		}
	})
}

// BenchmarkBatcher measures the bytes per link a node sends: links of 2000
// hosts spread over 1024 shards, flushed by size and at the end.
func BenchmarkBatcher(b *testing.B) {
	codec := newCodec(b)
	var mu sync.Mutex
	var bytes, msgs int
	bt, err := NewBatcher(BatcherConfig{}, codec, func(_ context.Context, _ int, msg []byte) error {
		mu.Lock()
		bytes += len(msg)
		msgs++
		mu.Unlock()
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- bt.Run(ctx) }()
	n := 0
	for b.Loop() {
		links := seededLinks(1000, uint64(n))
		for i := range links {
			host := fmt.Sprintf("host%d.example.org", (n+i)%2000)
			links[i].URL = strings.Replace(links[i].URL, links[i].Host, host, 1)
			links[i].Via = strings.Replace(links[i].Via, links[i].Host, host, 1)
			links[i].Key, links[i].Host = links[i].URL, host
		}
		if err := bt.Add(ctx, links...); err != nil {
			b.Fatal(err)
		}
		n += len(links)
	}
	if err := bt.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	cancel()
	<-done
	b.ReportMetric(float64(bytes)/float64(n), "bytes/link")
	b.ReportMetric(float64(n)/float64(msgs), "links/msg")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/link")
}

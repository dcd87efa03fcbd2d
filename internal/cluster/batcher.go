package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/shard"
)

// BatcherConfig tunes a Batcher. The zero value of a field means its
// default (Default).
type BatcherConfig struct {
	Shards      int           // P; default DefaultShards
	MaxLinks    int           // a shard's batch is sent at this many links; default 500
	MaxBytes    int           // … or at this many bytes, encoded before compression; default 256 KiB
	MaxDelay    time.Duration // … or when its first link has waited this long; default 1 s
	MaxInFlight int           // publishes running at once; default 16
}

// Default fills the zero fields of c with the defaults.
func (c *BatcherConfig) Default() {
	if c.Shards == 0 {
		c.Shards = DefaultShards
	}
	if c.MaxLinks == 0 {
		c.MaxLinks = 500
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = 256 << 10
	}
	if c.MaxDelay == 0 {
		c.MaxDelay = time.Second
	}
	if c.MaxInFlight == 0 {
		c.MaxInFlight = 16
	}
}

// Validate reports a setting that cannot work.
func (c BatcherConfig) Validate() error {
	if c.Shards <= 0 || c.MaxLinks <= 0 || c.MaxBytes <= 0 || c.MaxDelay <= 0 || c.MaxInFlight <= 0 {
		return fmt.Errorf("cluster: batcher: every setting must be positive: %+v", c)
	}
	return nil
}

// PublishFunc publishes one encoded KindLinks event for shard. It should
// retry transient failures itself (a full stream is backpressure, not an
// error): an error it returns is final, and the Batcher stops accepting
// links.
type PublishFunc func(ctx context.Context, shard int, msg []byte) error

// ErrBatcherStopped is returned by Add and Flush once Run has returned.
var ErrBatcherStopped = errors.New("cluster: batcher stopped")

// A Batcher groups links by destination shard and hands each group to a
// PublishFunc as one compressed KindLinks event, when it reaches MaxLinks
// links or MaxBytes bytes, or MaxDelay after its first link, or on Flush.
// At most MaxInFlight publishes run at once; past that, Add blocks
// (backpressure to the workers that discover links).
//
// Run must be running for links to leave; it owns the publishing
// goroutines.
type Batcher struct {
	cfg     BatcherConfig
	codec   *Codec
	publish PublishFunc

	ready   chan job      // full batches from Add and Flush, to Run
	stopped chan struct{} // closed when Run returns

	mu          sync.Mutex
	pending     map[int]*batch
	outstanding int           // batches taken and not yet published
	idle        chan struct{} // closed while outstanding == 0
	err         error         // the first publish error
}

type batch struct {
	links []crawl.Link
	size  int
	start time.Time
}

type job struct {
	shard int
	links []crawl.Link
}

// NewBatcher returns a Batcher publishing through publish. It starts
// nothing; the codec stays the caller's.
func NewBatcher(cfg BatcherConfig, codec *Codec, publish PublishFunc) (*Batcher, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	idle := make(chan struct{})
	close(idle)
	return &Batcher{
		cfg:     cfg,
		codec:   codec,
		publish: publish,
		ready:   make(chan job),
		stopped: make(chan struct{}),
		pending: map[int]*batch{},
		idle:    idle,
	}, nil
}

// linkSize estimates a link's encoded size before compression.
func linkSize(l *crawl.Link) int {
	n := len(l.URL) + len(l.Host) + len(l.Via) + 24
	if l.Key != l.URL {
		n += len(l.Key)
	}
	return n
}

// Add queues links for their shards (Shard(link.Host, P)). It blocks while
// full batches wait for a free publish slot, until ctx ends.
func (b *Batcher) Add(ctx context.Context, links ...crawl.Link) error {
	now := time.Now()
	var full []job
	b.mu.Lock()
	if err := b.err; err != nil {
		b.mu.Unlock()
		return err
	}
	for _, l := range links {
		s := shard.Of(l.Host, b.cfg.Shards)
		p := b.pending[s]
		if p == nil {
			p = &batch{start: now}
			b.pending[s] = p
		}
		p.links = append(p.links, l)
		p.size += linkSize(&l)
		if len(p.links) >= b.cfg.MaxLinks || p.size >= b.cfg.MaxBytes {
			full = append(full, b.takeLocked(s))
		}
	}
	b.mu.Unlock()
	return b.send(ctx, full)
}

// Flush sends every pending batch and waits until all batches taken so
// far are published.
func (b *Batcher) Flush(ctx context.Context) error {
	b.mu.Lock()
	var all []job
	for s := range b.pending {
		all = append(all, b.takeLocked(s))
	}
	b.mu.Unlock()
	if err := b.send(ctx, all); err != nil {
		return err
	}
	b.mu.Lock()
	idle := b.idle
	b.mu.Unlock()
	select {
	case <-idle:
	case <-b.stopped:
		return ErrBatcherStopped
	case <-ctx.Done():
		return ctx.Err()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// takeLocked removes shard s's batch and counts it outstanding; the
// caller holds b.mu. Batches are encoded by the goroutine publishing them.
func (b *Batcher) takeLocked(s int) job {
	p := b.pending[s]
	delete(b.pending, s)
	if b.outstanding == 0 {
		b.idle = make(chan struct{})
	}
	b.outstanding++
	return job{shard: s, links: p.links}
}

func (b *Batcher) send(ctx context.Context, jobs []job) error {
	for i, j := range jobs {
		select {
		case b.ready <- j:
		case <-b.stopped:
			b.finish(len(jobs)-i, ErrBatcherStopped)
			return ErrBatcherStopped
		case <-ctx.Done():
			b.finish(len(jobs)-i, ctx.Err())
			return ctx.Err()
		}
	}
	return nil
}

// finish accounts for n batches done (published, or lost with err).
func (b *Batcher) finish(n int, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil && b.err == nil {
		b.err = fmt.Errorf("cluster: batcher: %w", err)
	}
	if n == 0 {
		return
	}
	b.outstanding -= n
	if b.outstanding == 0 {
		close(b.idle)
	}
}

// Run publishes batches until ctx ends, then waits for the publishes in
// flight (their ctx is the same) and returns ctx's error.
func (b *Batcher) Run(ctx context.Context) error {
	defer close(b.stopped)
	tick := time.NewTicker(max(b.cfg.MaxDelay/4, time.Millisecond))
	defer tick.Stop()
	done := make(chan struct{}, b.cfg.MaxInFlight)
	inflight := 0
	var queue []job
	start := func(j job) {
		inflight++
		go func() {
			msg, err := b.codec.Encode(nil, Event{Kind: KindLinks, Shard: j.shard, Links: j.links})
			if err == nil {
				err = b.publish(ctx, j.shard, msg)
			}
			b.finish(1, err)
			done <- struct{}{}
		}()
	}
	for {
		for len(queue) > 0 && inflight < b.cfg.MaxInFlight {
			start(queue[0])
			queue = queue[1:]
		}
		var in chan job
		if len(queue) == 0 && inflight < b.cfg.MaxInFlight {
			in = b.ready
		}
		select {
		case j := <-in:
			start(j)
		case <-done:
			inflight--
		case now := <-tick.C:
			queue = append(queue, b.takeAged(now)...)
		case <-ctx.Done():
			for ; inflight > 0; inflight-- {
				<-done
			}
			b.finish(len(queue), ctx.Err())
			return ctx.Err()
		}
	}
}

// takeAged takes the batches whose first link has waited MaxDelay.
func (b *Batcher) takeAged(now time.Time) []job {
	b.mu.Lock()
	defer b.mu.Unlock()
	var jobs []job
	for s, p := range b.pending {
		if now.Sub(p.start) >= b.cfg.MaxDelay {
			jobs = append(jobs, b.takeLocked(s))
		}
	}
	return jobs
}

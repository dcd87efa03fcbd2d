package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"

	"github.com/godwit-crawler/godwit/internal/cluster"
	"github.com/godwit-crawler/godwit/internal/shard"
)

// ErrConflict is returned by Open when the crawl exists with settings
// this node does not share.
var ErrConflict = errors.New("jetstream: crawl exists with other settings")

// crawlRecord is the control bucket's "crawl" key, written once when the
// crawl is created.
type crawlRecord struct {
	Shards  int `json:"shards"`
	Streams int `json:"streams"`
	// Partition is shard.Partition when the crawl was created: how hosts
	// map to shards. Absent in a crawl created before 2026-11-27, whose
	// hosts were sharded by name: a node of this version refuses it.
	Partition string    `json:"partition,omitempty"`
	Settings  []byte    `json:"settings"` // base64 in JSON
	Created   time.Time `json:"created"`
	By        string    `json:"by"`
}

// Open connects a node to crawl cfg.Crawl over nc: it waits for
// JetStream's meta leader, creates the crawl's streams and buckets (or
// finds them), and stores the crawl record, or checks this node's
// settings against it. It starts no goroutine; Run does the node's work.
// The connection stays the caller's.
func Open(ctx context.Context, nc *nats.Conn, cfg Config) (*Node, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	j, err := js.New(nc, js.WithDefaultTimeout(cfg.RequestTimeout), js.WithPublishAsyncTimeout(cfg.RequestTimeout))
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	if err := waitMetaLeader(ctx, j, cfg.RequestTimeout, cfg.Logger); err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, nc: nc, js: j, log: cfg.Logger.With("node", cfg.Node, "crawl", cfg.Crawl)}
	n.maker = &maker{js: j, timeout: cfg.RequestTimeout, log: n.log}
	if n.control, err = n.bucket(ctx, "control", cfg.LeaderTTL); err != nil {
		return nil, err
	}
	if err := n.checkCrawl(ctx); err != nil {
		return nil, err
	}
	if n.members, err = n.bucket(ctx, "members", cfg.MemberTTL); err != nil {
		return nil, err
	}
	if n.leases, err = n.bucket(ctx, "leases", cfg.LeaseTTL); err != nil {
		return nil, err
	}
	n.streams = make([]js.Stream, cfg.Streams)
	for i := range cfg.Streams {
		if n.streams[i], err = n.logStream(ctx, i); err != nil {
			return nil, err
		}
	}
	n.codec, err = cluster.NewCodec()
	if err != nil {
		return nil, err
	}
	n.held = map[int]*lease{}
	n.fences = map[int]*sync.Mutex{}
	return n, nil
}

// checkCrawl creates the crawl record, or refuses a node whose shards,
// streams or settings differ from it.
func (n *Node) checkCrawl(ctx context.Context) error {
	mine := crawlRecord{Shards: n.cfg.Shards, Streams: n.cfg.Streams, Partition: shard.Partition, Settings: n.cfg.Settings, Created: time.Now().UTC(), By: n.cfg.Node}
	b, err := json.Marshal(mine)
	if err != nil {
		return fmt.Errorf("jetstream: crawl record: %w", err)
	}
	_, err = retry(ctx, n.cfg.RequestTimeout, func(ctx context.Context) (uint64, error) {
		rev, err := n.control.Create(ctx, keyCrawl, b)
		if errors.Is(err, js.ErrKeyExists) {
			return 0, nil
		}
		return rev, err
	})
	if err != nil {
		return fmt.Errorf("jetstream: crawl record: %w", err)
	}
	e, err := retry(ctx, n.cfg.RequestTimeout, func(ctx context.Context) (js.KeyValueEntry, error) {
		return n.control.Get(ctx, keyCrawl)
	})
	if err != nil {
		return fmt.Errorf("jetstream: crawl record: %w", err)
	}
	var stored crawlRecord
	if err := json.Unmarshal(e.Value(), &stored); err != nil {
		return fmt.Errorf("jetstream: crawl record: %w", err)
	}
	switch {
	case stored.Shards != mine.Shards:
		return fmt.Errorf("%w: crawl %q has %d shards, this node %d", ErrConflict, n.cfg.Crawl, stored.Shards, mine.Shards)
	case stored.Streams != mine.Streams:
		return fmt.Errorf("%w: crawl %q has %d streams, this node %d", ErrConflict, n.cfg.Crawl, stored.Streams, mine.Streams)
	case stored.Partition == "":
		// Its hosts' shards (its logs, snapshots and nodes' stores) are
		// laid out by name: this version would look for www. hosts in
		// other shards.
		return fmt.Errorf("%w: crawl %q was created by a godwit before 2026-11-27, which shards hosts by name (this version shards www.X with X): finish it with that version, or start a new crawl", ErrConflict, n.cfg.Crawl)
	case stored.Partition != mine.Partition:
		return fmt.Errorf("%w: crawl %q shards hosts by %q, this node by %q", ErrConflict, n.cfg.Crawl, stored.Partition, mine.Partition)
	}
	if err := n.cfg.Compatible(stored.Settings, mine.Settings); err != nil {
		return fmt.Errorf("%w: crawl %q (created by %s at %s): %w", ErrConflict, n.cfg.Crawl, stored.By, stored.Created.Format(time.RFC3339), err)
	}
	n.settings = stored.Settings
	if stored.By != n.cfg.Node {
		// The crawl's creator makes its streams and buckets; a node
		// that joins gives it time to (ensure.go).
		n.maker.patience.Store(int64(2 * n.cfg.RequestTimeout))
	}
	return nil
}

// bucket finds or makes the crawl's key-value bucket what, whose keys
// live ttl after their last update.
func (n *Node) bucket(ctx context.Context, what string, ttl time.Duration) (js.KeyValue, error) {
	c := js.KeyValueConfig{
		Bucket:         bucketName(n.cfg.Crawl, what),
		History:        1,
		Storage:        js.FileStorage,
		Replicas:       n.cfg.Replicas,
		LimitMarkerTTL: ttl,
	}
	b, err := ensure(ctx, n.maker, object[js.KeyValue]{
		what:   "bucket " + c.Bucket,
		stream: "KV_" + c.Bucket,
		fits: func(have js.StreamConfig) bool {
			return have.Replicas == c.Replicas && have.SubjectDeleteMarkerTTL == ttl && have.MaxMsgsPerSubject == int64(c.History)
		},
		open: func(ctx context.Context, _ js.Stream) (js.KeyValue, error) { return n.js.KeyValue(ctx, c.Bucket) },
		make: func(ctx context.Context) (js.KeyValue, error) { return n.js.CreateOrUpdateKeyValue(ctx, c) },
	})
	if err != nil {
		return nil, fmt.Errorf("jetstream: bucket %s: %w", c.Bucket, err)
	}
	return b, nil
}

// errStorageExceeded is the server's JSStorageResourcesExceededErr: a
// stream's MaxBytes does not fit what is left of JetStream's storage.
const errStorageExceeded js.ErrorCode = 10047

// logStream finds or makes the crawl's stream i, which holds the logs
// of shards i, i+S, i+2S, …
func (n *Node) logStream(ctx context.Context, i int) (js.Stream, error) {
	sc := js.StreamConfig{
		Name:      StreamName(n.cfg.Crawl, i),
		Retention: js.LimitsPolicy,
		Storage:   js.FileStorage,
		Replicas:  n.cfg.Replicas,
		MaxBytes:  n.cfg.StreamMaxBytes,
		Discard:   js.DiscardNew,
		MaxAge:    n.cfg.StreamMaxAge,
		// Each owned shard reads its log with an ephemeral consumer;
		// those of readers replaced (a shard moving, a server lost)
		// linger until inactive. The server's default cap per stream
		// would refuse new readers after much churn.
		MaxConsumers: -1,
	}
	for p := i; p < n.cfg.Shards; p += n.cfg.Streams {
		sc.Subjects = append(sc.Subjects, shardFilter(n.cfg.Crawl, p))
	}
	s, err := ensure(ctx, n.maker, object[js.Stream]{
		what:   "stream " + sc.Name,
		stream: sc.Name,
		fits: func(have js.StreamConfig) bool {
			return have.Replicas == sc.Replicas && have.MaxBytes == sc.MaxBytes && have.MaxAge == sc.MaxAge &&
				have.MaxConsumers == sc.MaxConsumers && have.Discard == sc.Discard && slices.Equal(have.Subjects, sc.Subjects)
		},
		open: func(_ context.Context, s js.Stream) (js.Stream, error) { return s, nil },
		make: func(ctx context.Context) (js.Stream, error) { return n.js.CreateOrUpdateStream(ctx, sc) },
	})
	if err != nil {
		if api := (*js.APIError)(nil); errors.As(err, &api) && api.ErrorCode == errStorageExceeded {
			return nil, fmt.Errorf("jetstream: stream %s: the NATS server cannot reserve its %d bytes "+
				"(each of the crawl's %d streams reserves that much of JetStream's file storage, whose default "+
				"limit is 75%% of the free space of the server's disk): free space there, or raise the server's "+
				"limit (nats-server: jetstream max_file_store): %w", sc.Name, sc.MaxBytes, n.cfg.Streams, err)
		}
		return nil, fmt.Errorf("jetstream: stream %s: %w", sc.Name, err)
	}
	return s, nil
}

// waitMetaLeader waits until JetStream answers account requests, which
// in a cluster means a meta leader is elected.
func waitMetaLeader(ctx context.Context, j js.JetStream, timeout time.Duration, log *slog.Logger) error {
	_, err := retryLogged(ctx, timeout, log, "a JetStream meta leader", func(ctx context.Context) (*js.AccountInfo, error) { return j.AccountInfo(ctx) })
	if err != nil {
		return fmt.Errorf("jetstream: no JetStream meta leader: %w", err)
	}
	return nil
}

// retry calls f with a per-call timeout until it succeeds, fails
// permanently, or ctx ends, backing off from 50 ms to 1 s.
func retry[T any](ctx context.Context, timeout time.Duration, f func(context.Context) (T, error)) (T, error) {
	return retryLogged(ctx, timeout, nil, "", f)
}

// retryLogged is retry that logs, at the third failure and every tenth
// after it, what it is waiting for and why.
func retryLogged[T any](ctx context.Context, timeout time.Duration, log *slog.Logger, what string, f func(context.Context) (T, error)) (T, error) {
	wait := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		v, err := f(cctx)
		cancel()
		if err == nil || !transient(err) {
			return v, err
		}
		if log != nil && (attempt == 3 || attempt%10 == 0) {
			log.Warn("cluster: JetStream does not answer yet; trying again", "waiting_for", what, "attempts", attempt, "err", err)
		}
		if serr := sleep(ctx, wait); serr != nil {
			return v, fmt.Errorf("%w (last error: %w)", serr, err)
		}
		wait = min(2*wait, time.Second)
	}
}

// transient reports whether a JetStream error may go away by itself: no
// responders or a timeout while a leader is elected or a server restarts,
// a full stream (backpressure), a cluster not yet formed.
func transient(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, js.ErrNoStreamResponse) ||
		errors.Is(err, nats.ErrConnectionReconnecting) || errors.Is(err, js.ErrJetStreamNotEnabled) {
		return true
	}
	var api *js.APIError
	if errors.As(err, &api) {
		switch api.Code {
		case 503, 408:
			return true
		}
		switch api.ErrorCode {
		case 10077, // store failed: a full stream (DiscardNew) answers this
			10008, // JetStream temporarily unavailable (leader election)
			10005, // no peers yet, while the cluster forms
			10023: // insufficient resources
			return true
		}
	}
	return false
}

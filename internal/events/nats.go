package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/godwit-crawler/godwit/internal/crawl"
)

var _ crawl.Events = (*Stream)(nil)

// Stream publishes page events to a JetStream stream, one message per
// page on one subject, each acknowledged by the stream before Page
// returns: the worker marks the page done only after that, so every
// archived page's event is in the stream at least once.
type Stream struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	subject string
	timeout time.Duration
}

// ParseNATS splits an events destination nats://HOST:PORT[,HOST:PORT…]/SUBJECT
// into the servers' URLs and the subject.
func ParseNATS(spec string) (servers, subject string, err error) {
	rest, ok := strings.CutPrefix(spec, "nats://")
	if !ok {
		return "", "", fmt.Errorf("events: %q is not nats://HOST:PORT/SUBJECT", spec)
	}
	hosts, subject, ok := strings.Cut(rest, "/")
	if !ok || hosts == "" || subject == "" || strings.ContainsAny(subject, " \t\r\n*>/") || strings.HasPrefix(subject, ".") || strings.HasSuffix(subject, ".") {
		return "", "", fmt.Errorf("events: %q: want nats://HOST:PORT/SUBJECT, the subject without wildcards or slashes", spec)
	}
	var urls []string
	for h := range strings.SplitSeq(hosts, ",") {
		urls = append(urls, "nats://"+strings.TrimPrefix(h, "nats://"))
	}
	return strings.Join(urls, ","), subject, nil
}

// StreamName is the JetStream stream that keeps the events of subject:
// GODWIT_EVENTS_ and the subject with every character but letters and
// digits replaced by '_'.
func StreamName(subject string) string {
	b := []byte(subject)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '_'
		}
	}
	return "GODWIT_EVENTS_" + string(b)
}

// OpenStream connects to the NATS servers of spec
// (nats://HOST:PORT[,…]/SUBJECT) and creates the stream that keeps the
// subject's events (StreamName; file storage, kept 7 days), or finds it.
func OpenStream(ctx context.Context, spec string) (*Stream, error) {
	servers, subject, err := ParseNATS(spec)
	if err != nil {
		return nil, err
	}
	nc, err := nats.Connect(servers, nats.Name("godwit events"), nats.MaxReconnects(-1), nats.Timeout(5*time.Second))
	if err != nil {
		return nil, fmt.Errorf("events: %s: %w", servers, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("events: %w", err)
	}
	s := &Stream{nc: nc, js: js, subject: subject, timeout: 5 * time.Second}
	cfg := jetstream.StreamConfig{Name: StreamName(subject), Subjects: []string{subject},
		Storage: jetstream.FileStorage, Retention: jetstream.LimitsPolicy, MaxAge: 7 * 24 * time.Hour}
	err = s.retry(ctx, func(ctx context.Context) error {
		_, err := js.CreateOrUpdateStream(ctx, cfg)
		return err
	})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("events: stream %s: %w", cfg.Name, err)
	}
	return s, nil
}

// Page publishes e's event and waits for the stream's acknowledgement,
// retrying while the servers elect a leader or reconnect, until ctx ends.
func (s *Stream) Page(ctx context.Context, e crawl.PageEvent) error {
	msg, err := json.Marshal(Encode(e))
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	err = s.retry(ctx, func(ctx context.Context) error {
		_, err := s.js.Publish(ctx, s.subject, msg)
		return err
	})
	if err != nil {
		return fmt.Errorf("events: publish to %s: %w", s.subject, err)
	}
	return nil
}

// retry calls f with a per-call timeout until it succeeds, fails for a
// reason other than an unavailable server, or ctx ends.
func (s *Stream) retry(ctx context.Context, f func(context.Context) error) error {
	wait := 50 * time.Millisecond
	for {
		cctx, cancel := context.WithTimeout(ctx, s.timeout)
		err := f(cctx)
		cancel()
		if err == nil || ctx.Err() != nil || !unavailable(err) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, time.Second)
	}
}

func unavailable(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, nats.ErrConnectionReconnecting) || errors.Is(err, jetstream.ErrJetStreamNotEnabled)
}

// Close flushes what is buffered and closes the connection.
func (s *Stream) Close() error {
	err := s.nc.Drain()
	if errors.Is(err, nats.ErrConnectionClosed) {
		err = nil
	}
	return err
}

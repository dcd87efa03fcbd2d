package jetstream

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"

	"github.com/godwit-crawler/godwit/internal/cluster"
)

func TestParseAck(t *testing.T) {
	for _, tc := range []struct {
		in  string
		seq uint64
		ok  bool
	}{
		{`{"stream":"godwit_c_3","seq":42}`, 42, true},
		{`{"stream":"s","seq":18446744073709551615}`, 1<<64 - 1, true},
		{`{"stream":"s","seq":0}`, 0, true},
		// Anything else is left to encoding/json.
		{`{"stream":"s","seq":1,"domain":"hub"}`, 0, false},
		{`{"stream":"s","seq":7,"duplicate":true}`, 0, false},
		{`{"stream":"0","seq":0,`, 0, false},
		{`{"stream":"s","seq":01}`, 0, false},
		{"{\"stream\":\"a\tb\",\"seq\":5}", 0, false},
		{`{"stream":"s","seq":5} `, 0, false},
		{`{"stream":"s","seq":18446744073709551616}`, 0, false},
		{`{"error":{"code":400,"err_code":10071,"description":"wrong last sequence: 3"},"stream":"s","seq":0}`, 0, false},
		{`{"stream":"s","seq":5,"error":{"code":503}}`, 0, false},
		{`{"stream":"","seq":5}`, 0, false},
		{`{"stream":"a\"b","seq":5}`, 0, false},
		{`{"stream":"s","seq":}`, 0, false},
		{`{"stream":"s","seq":12`, 0, false},
		{`{"stream":"s","seq":-1}`, 0, false},
		{`{"seq":5,"stream":"s"}`, 0, false},
		{``, 0, false},
	} {
		seq, ok := parseAck([]byte(tc.in))
		if seq != tc.seq || ok != tc.ok {
			t.Errorf("parseAck(%s) = %d, %v; want %d, %v", tc.in, seq, ok, tc.seq, tc.ok)
		}
		if !ok {
			continue
		}
		// What it reads is what encoding/json reads.
		var ack struct {
			Stream string `json:"stream"`
			Seq    uint64 `json:"seq"`
		}
		if err := json.Unmarshal([]byte(tc.in), &ack); err != nil || ack.Seq != seq || ack.Stream == "" {
			t.Errorf("parseAck(%s) = %d; encoding/json reads %+v (%v)", tc.in, seq, ack, err)
		}
	}
}

// TestPubAck: pubAck returns the sequence JetStream stored the message
// at, and its refusals are the errors js.PublishMsg returns: a wrong
// expected last sequence (which fences outcomes) and no stream.
func TestPubAck(t *testing.T) {
	s := startServer(t, ServerConfig{})
	nc := connect(t, s.ClientURL())
	n, err := Open(t.Context(), nc, testConfig("a"))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	subject := Subject("test", cluster.KindOutcome, 3)
	msg := func() *nats.Msg { return &nats.Msg{Subject: subject, Data: []byte("x")} }
	first, err := n.pubAck(t.Context(), expectLast(msg(), 0))
	if err != nil {
		t.Fatalf("first publish, expecting none before it: %v", err)
	}
	second, err := n.pubAck(t.Context(), msg())
	if err != nil {
		t.Fatal(err)
	}
	last, err := n.lastOnSubject(t.Context(), 3, subject)
	if err != nil {
		t.Fatal(err)
	}
	if first == 0 || second <= first || last != second {
		t.Fatalf("acked at %d and %d, the subject's last is at %d", first, second, last)
	}
	for _, expect := range []uint64{0, first, second + 1} {
		_, err := n.pubAck(t.Context(), expectLast(msg(), expect))
		var api *js.APIError
		if !wrongSeq(err) || !errors.As(err, &api) || transient(err) {
			t.Errorf("publish expecting the last at %d (it is at %d) = %v, want a wrong last sequence", expect, second, err)
		}
	}
	third, err := n.pubAck(t.Context(), expectLast(msg(), second))
	if err != nil || third <= second {
		t.Errorf("publish expecting the right last sequence = %d, %v", third, err)
	}
	// The server's acks take the fast path (else it would never be used).
	resp, err := nc.RequestMsgWithContext(t.Context(), msg())
	if err != nil {
		t.Fatal(err)
	}
	if seq, ok := parseAck(resp.Data); !ok || seq <= third {
		t.Errorf("parseAck(%s) = %d, %v: the server's ack is not read by the fast path", resp.Data, seq, ok)
	}
	if _, err := n.pubAck(t.Context(), &nats.Msg{Subject: "nostream.here", Data: []byte("x")}); !errors.Is(err, js.ErrNoStreamResponse) || !transient(err) {
		t.Errorf("publish to a subject of no stream = %v, want %v", err, js.ErrNoStreamResponse)
	}
}

// BenchmarkPubAck publishes an outcome-sized message fenced by the
// subject's last sequence, as PublishOutcome does, through pubAck and
// through js.PublishMsg (the CPU of the whole round trip, this process's
// share and the in-process server's alike).
func BenchmarkPubAck(b *testing.B) {
	s := startServer(b, ServerConfig{})
	nc := connect(b, s.ClientURL())
	n, err := Open(b.Context(), nc, testConfig("a"))
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	data := make([]byte, 280)
	subject := Subject("test", cluster.KindOutcome, 3)
	last, err := n.lastOnSubject(b.Context(), 3, subject)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("pubAck", func(b *testing.B) {
		for b.Loop() {
			seq, err := n.pubAck(b.Context(), expectLast(&nats.Msg{Subject: subject, Data: data}, last))
			if err != nil {
				b.Fatal(err)
			}
			last = seq
		}
	})
	b.Run("PublishMsg", func(b *testing.B) {
		for b.Loop() {
			ack, err := n.js.PublishMsg(b.Context(), &nats.Msg{Subject: subject, Data: data}, js.WithExpectLastSequencePerSubject(last))
			if err != nil {
				b.Fatal(err)
			}
			last = ack.Sequence
		}
	})
}

// BenchmarkParseAck reads an acknowledgement as pubAck does and as
// js.PublishMsg does.
func BenchmarkParseAck(b *testing.B) {
	ack := []byte(`{"stream":"godwit_bench_3","seq":1234567}`)
	b.Run("parseAck", func(b *testing.B) {
		for b.Loop() {
			if _, ok := parseAck(ack); !ok {
				b.Fatal("not read")
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			var r struct {
				Error *js.APIError `json:"error"`
				*js.PubAck
			}
			if err := json.Unmarshal(ack, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestLast: a shard's last event and last outcome, whichever subject
// the last event is on, and not another shard's of the same stream.
func TestLast(t *testing.T) {
	s := startServer(t, ServerConfig{})
	nc := connect(t, s.ClientURL())
	n, err := Open(t.Context(), nc, testConfig("a"))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	log := n.ShardLog()
	pub := func(k cluster.Kind, p int) uint64 {
		t.Helper()
		seq, err := n.pubAck(t.Context(), &nats.Msg{Subject: Subject("test", k, p), Data: []byte("x")})
		if err != nil {
			t.Fatal(err)
		}
		return seq
	}
	check := func(p int, last, lastOutcome uint64) {
		t.Helper()
		l, lo, err := log.Last(t.Context(), p)
		if err != nil || l != last || lo != lastOutcome {
			t.Errorf("Last(%d) = %d, %d, %v; want %d, %d", p, l, lo, err, last, lastOutcome)
		}
	}
	check(1, 0, 0)
	links := pub(cluster.KindLinks, 1)
	check(1, links, 0)
	out := pub(cluster.KindOutcome, 1)
	check(1, out, out)
	control := pub(cluster.KindControl, 1)
	check(1, control, out)
	links = pub(cluster.KindLinks, 1)
	// Shards 5 and 13 share shard 1's stream (4 streams); 13 ends in 1.
	other := pub(cluster.KindOutcome, 13)
	pub(cluster.KindLinks, 5)
	check(1, links, out)
	check(13, other, other)
	out = pub(cluster.KindOutcome, 1)
	check(1, out, out)
}

// FuzzParseAck: whatever parseAck reads, encoding/json reads alike, as
// a success with that sequence.
func FuzzParseAck(f *testing.F) {
	for _, s := range []string{
		`{"stream":"godwit_c_3","seq":42}`,
		`{"stream":"s","seq":1,"domain":"hub"}`,
		`{"stream":"s","seq":5,"error":{"code":503}}`,
		`{"error":{"code":400,"err_code":10071,"description":"wrong last sequence: 3"},"stream":"s","seq":0}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		seq, ok := parseAck(b)
		if !ok {
			return
		}
		var ack struct {
			Error  *js.APIError `json:"error"`
			Stream string       `json:"stream"`
			Seq    uint64       `json:"seq"`
		}
		if err := json.Unmarshal(b, &ack); err != nil || ack.Error != nil || ack.Stream == "" || ack.Seq != seq {
			t.Fatalf("parseAck(%q) = %d; encoding/json reads %+v (%v)", b, seq, ack, err)
		}
	})
}

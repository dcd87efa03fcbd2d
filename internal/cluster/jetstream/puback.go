package jetstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"
)

// pubAck publishes m to its stream and returns the stream sequence
// JetStream acknowledged, as js.JetStream's PublishMsg does (expectLast
// sets what its WithExpectLastSequencePerSubject sets). An acknowledgement is read without
// encoding/json (parseAck) unless it is not the plain form, an error
// among others, which is decoded as PublishMsg decodes it: a refusal is
// a *js.APIError (wrongSeq and transient see it the same way), no
// stream listening is js.ErrNoStreamResponse. Unlike PublishMsg it does
// not itself retry on no responders: every caller retries transient
// failures. The shard logs' publishes go through it: the JSON decoding
// of each ack was ~1% of a node's CPU (docs/decisions.md, 2026-11-27).
func (n *Node) pubAck(ctx context.Context, m *nats.Msg) (uint64, error) {
	resp, err := n.nc.RequestMsgWithContext(ctx, m)
	if errors.Is(err, nats.ErrNoResponders) {
		return 0, js.ErrNoStreamResponse
	}
	if err != nil {
		return 0, err
	}
	if seq, ok := parseAck(resp.Data); ok {
		return seq, nil
	}
	var ack struct {
		Error  *js.APIError `json:"error"`
		Stream string       `json:"stream"`
		Seq    uint64       `json:"seq"`
	}
	if err := json.Unmarshal(resp.Data, &ack); err != nil {
		return 0, js.ErrInvalidJSAck
	}
	if ack.Error != nil {
		return 0, fmt.Errorf("nats: %w", ack.Error)
	}
	if ack.Stream == "" {
		return 0, js.ErrInvalidJSAck
	}
	return ack.Seq, nil
}

// expectLast makes m's publish expect its subject's last sequence to be
// seq (0: no message on the subject), as
// js.WithExpectLastSequencePerSubject(seq) does.
func expectLast(m *nats.Msg, seq uint64) *nats.Msg {
	if m.Header == nil {
		m.Header = nats.Header{}
	}
	m.Header.Set(js.ExpectedLastSubjSeqHeader, strconv.FormatUint(seq, 10))
	return m
}

// parseAck reads the sequence of a plain acknowledgement,
// {"stream":"NAME","seq":N} and nothing else; false for any other form
// (an error, a "domain" or "duplicate" field), which the caller decodes
// in full. What it reads, encoding/json reads alike (FuzzParseAck).
func parseAck(b []byte) (uint64, bool) {
	rest, ok := bytes.CutPrefix(b, []byte(`{"stream":"`))
	if !ok {
		return 0, false
	}
	end := bytes.IndexByte(rest, '"')
	if end <= 0 {
		return 0, false
	}
	for _, c := range rest[:end] {
		if c < 0x20 || c == '\\' {
			return 0, false
		}
	}
	digits, ok := bytes.CutPrefix(rest[end+1:], []byte(`,"seq":`))
	if !ok {
		return 0, false
	}
	digits, ok = bytes.CutSuffix(digits, []byte("}"))
	if !ok || len(digits) == 0 || len(digits) > 1 && digits[0] == '0' {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	seq, err := strconv.ParseUint(string(digits), 10, 64)
	if err != nil {
		return 0, false
	}
	return seq, true
}

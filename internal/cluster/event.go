package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"

	"github.com/godwit-crawler/godwit/internal/crawl"
)

// Kind is the kind of a shard log event: the first byte after the version.
type Kind byte

// The three kinds of event in a shard's log (design/cluster.md, "What a
// shard is").
const (
	// KindLinks is a batch of links discovered anywhere for one shard.
	KindLinks Kind = 'L'
	// KindOutcome is written by the shard's owner only: a fetch outcome
	// (opaque to this package) or, with an empty payload, the claim that
	// opens an epoch (see jetstream.Node.Claim).
	KindOutcome Kind = 'O'
	// KindControl is an operator's command for the shard (opaque here).
	KindControl Kind = 'C'
)

// Token is the kind's subject token: links, outcomes or control.
func (k Kind) Token() string {
	switch k {
	case KindLinks:
		return "links"
	case KindOutcome:
		return "outcomes"
	case KindControl:
		return "control"
	}
	return "unknown"
}

func (k Kind) valid() bool { return k == KindLinks || k == KindOutcome || k == KindControl }

// Event is one message of a shard's log.
type Event struct {
	Kind  Kind
	Shard int
	// Epoch is the writer's lease epoch on the shard for outcomes and
	// claims (the lease key's revision when claimed); 0 for links.
	Epoch uint64
	// Links are the links of a KindLinks event, all of them on Shard;
	// a KindOutcome event with a payload may carry links too (the page's
	// links to its own shard, applied before the outcome).
	Links []crawl.Link
	// Payload is the body of a KindOutcome or KindControl event.
	Payload []byte
}

// eventVersion is the first byte of every encoded event but an outcome
// that carries links, which is eventVersionLinks: its body is
// uvarint(n), n links (as a KindLinks body) and the outcome's payload.
// A node of an earlier version refuses such an event (ErrCorrupt) rather
// than misreading it (docs/decisions.md, 2026-11-27).
//
// An event whose body is compressed with s2 (compressS2) has its version
// raised by versionS2: 3 is version 1's layout, 4 version 2's. Only those
// versions may carry compression 2, so a node of an earlier version
// refuses such an event at its first byte.
const (
	eventVersion      = 1
	eventVersionLinks = 2
	versionS2         = 2
)

// Body compression, the byte after the epoch.
const (
	compressNone = 0
	compressZstd = 1
	compressS2   = 2 // s2 block format (klauspost/compress/s2); versions 3 and 4 only
)

// Limits that keep a hostile or corrupt message from costing much.
const (
	maxDecoded  = 64 << 20 // bytes of a decompressed body
	minCompress = 256      // bodies shorter than this are stored as they are
	// minZstd: bodies of at least this many bytes are compressed with
	// zstd (a batch of links: it packs URLs tighter), shorter ones with
	// s2 (an outcome and its page's links: zstd costs ~10 µs whatever
	// the body, s2 ~0.5 µs; docs/decisions.md, 2026-11-27).
	minZstd = 4096
)

// ErrCorrupt reports an event that does not decode.
var ErrCorrupt = errors.New("cluster: corrupt event")

// Codec encodes and decodes events, compressing bodies with zstd. It is
// safe for concurrent use; Close releases its decoder.
type Codec struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
}

// NewCodec returns a Codec. Its encoder and decoder start no goroutines
// (they are used only through EncodeAll and DecodeAll).
func NewCodec() (*Codec, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("cluster: zstd encoder: %w", err)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxDecoded), zstd.WithDecoderConcurrency(0))
	if err != nil {
		return nil, fmt.Errorf("cluster: zstd decoder: %w", err)
	}
	return &Codec{enc: enc, dec: dec}, nil
}

// Close releases the codec's resources.
func (c *Codec) Close() {
	c.dec.Close()
	_ = c.enc.Close()
}

// Encode appends the binary form of e to dst:
//
//	version(1) kind(1) uvarint(shard) uvarint(epoch) compression(1) body
//
// The body of a KindLinks event is uvarint(n) and n links (see
// appendLink); of the other kinds, the payload. A body of minZstd bytes
// or more is zstd compressed (compression 1), one of minCompress bytes or
// more s2 compressed (compression 2, and the version raised by
// versionS2), when that makes it smaller; else it is stored
// (compression 0).
func (c *Codec) Encode(dst []byte, e Event) ([]byte, error) {
	if !e.Kind.valid() {
		return dst, fmt.Errorf("cluster: encode: unknown event kind %q", byte(e.Kind))
	}
	if e.Shard < 0 {
		return dst, fmt.Errorf("cluster: encode: shard %d", e.Shard)
	}
	version := byte(eventVersion)
	carries := e.Kind == KindOutcome && len(e.Links) > 0
	switch {
	case carries && len(e.Payload) == 0:
		return dst, errors.New("cluster: encode: links in a claim")
	case carries:
		version = eventVersionLinks
	case len(e.Links) > 0 && e.Kind != KindLinks:
		return dst, fmt.Errorf("cluster: encode: links in a %q event", byte(e.Kind))
	}
	start := len(dst)
	dst = append(dst, version, byte(e.Kind))
	dst = binary.AppendUvarint(dst, uint64(e.Shard))
	dst = binary.AppendUvarint(dst, e.Epoch)
	body := e.Payload
	if e.Kind == KindLinks || carries {
		body = binary.AppendUvarint(nil, uint64(len(e.Links)))
		for i := range e.Links {
			body = appendLink(body, &e.Links[i])
		}
		if carries {
			body = append(body, e.Payload...)
		}
	}
	switch {
	case len(body) >= minZstd:
		z := c.enc.EncodeAll(body, nil)
		if len(z) < len(body) {
			return append(append(dst, compressZstd), z...), nil
		}
	case len(body) >= minCompress:
		// Encoded in place after the header: no buffer of its own.
		head := len(dst) + 1
		dst = slices.Grow(dst, 1+s2.MaxEncodedLen(len(body)))
		z := s2.Encode(dst[head:cap(dst)], body)
		if len(z) < len(body) {
			dst[start] += versionS2
			return append(dst, compressS2)[:head+len(z)], nil
		}
	}
	return append(append(dst, compressNone), body...), nil
}

// Link flags.
const (
	linkKey   = 1 << iota // Key differs from URL and follows it
	linkHints             // sitemap hints follow
	linkEmbed             // a page requisite: varint(Embed) follows
)

// appendLink appends one link:
//
//	flags(1) str(URL) [str(Key)] str(Host) varint(Depth) varint(Hops)
//	str(Via) varint(Sitemap) float64le(Cash)
//	[varint(LastMod unix ns, 0 = none) str(ChangeFreq) float64le(Priority) bool(HasPriority)]
//	[varint(Embed)]
//
// (the bracketed parts present when the flags linkKey, linkHints and
// linkEmbed say so; events written before linkEmbed existed decode as
// before, with Embed 0), where str is uvarint(length) and the bytes.
func appendLink(b []byte, l *crawl.Link) []byte {
	var flags byte
	if l.Key != l.URL {
		flags |= linkKey
	}
	if l.Hints != (crawl.Hints{}) {
		flags |= linkHints
	}
	if l.Embed != 0 {
		flags |= linkEmbed
	}
	b = append(b, flags)
	b = appendString(b, l.URL)
	if flags&linkKey != 0 {
		b = appendString(b, l.Key)
	}
	b = appendString(b, l.Host)
	b = binary.AppendVarint(b, int64(l.Depth))
	b = binary.AppendVarint(b, int64(l.Hops))
	b = appendString(b, l.Via)
	b = binary.AppendVarint(b, int64(l.Sitemap))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(l.Cash))
	if flags&linkHints != 0 {
		var ns int64
		if !l.Hints.LastMod.IsZero() {
			ns = l.Hints.LastMod.UnixNano()
		}
		b = binary.AppendVarint(b, ns)
		b = appendString(b, l.Hints.ChangeFreq)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(l.Hints.Priority))
		hp := byte(0)
		if l.Hints.HasPriority {
			hp = 1
		}
		b = append(b, hp)
	}
	if flags&linkEmbed != 0 {
		b = binary.AppendVarint(b, int64(l.Embed))
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Decode parses an event that Encode produced. Links' strings are copies:
// the event does not alias b. A Payload may alias b when the body was not
// compressed.
func (c *Codec) Decode(b []byte) (Event, error) {
	r := reader{b: b}
	raw := r.byte()
	v, s2ok := raw, raw > eventVersionLinks
	if s2ok {
		v -= versionS2
	}
	if v != eventVersion && v != eventVersionLinks {
		return Event{}, fmt.Errorf("%w: version %d", ErrCorrupt, raw)
	}
	e := Event{Kind: Kind(r.byte())}
	shard := r.uvarint()
	e.Epoch = r.uvarint()
	comp := r.byte()
	if r.err != nil {
		return Event{}, r.err
	}
	if !e.Kind.valid() {
		return Event{}, fmt.Errorf("%w: kind %q", ErrCorrupt, byte(e.Kind))
	}
	if shard > math.MaxInt32 {
		return Event{}, fmt.Errorf("%w: shard %d", ErrCorrupt, shard)
	}
	if v == eventVersionLinks && e.Kind != KindOutcome {
		return Event{}, fmt.Errorf("%w: version %d of a %q event", ErrCorrupt, v, byte(e.Kind))
	}
	if s2ok != (comp == compressS2) {
		return Event{}, fmt.Errorf("%w: compression %d in a version %d event", ErrCorrupt, comp, raw)
	}
	e.Shard = int(shard)
	body := r.b
	switch comp {
	case compressNone:
	case compressZstd:
		var err error
		body, err = c.dec.DecodeAll(body, nil)
		if err != nil {
			return Event{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
	case compressS2:
		n, err := s2.DecodedLen(body)
		if err != nil || n > maxDecoded {
			return Event{}, fmt.Errorf("%w: s2 body of %d bytes (%v)", ErrCorrupt, n, err)
		}
		if body, err = s2.Decode(nil, body); err != nil {
			return Event{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
	default:
		return Event{}, fmt.Errorf("%w: compression %d", ErrCorrupt, comp)
	}
	if e.Kind != KindLinks && v != eventVersionLinks {
		if len(body) > 0 {
			e.Payload = body
		}
		return e, nil
	}
	r = reader{b: body}
	n := r.uvarint()
	if n > uint64(len(r.b)) { // every link takes more than a byte
		return Event{}, fmt.Errorf("%w: %d links in %d bytes", ErrCorrupt, n, len(body))
	}
	if v == eventVersionLinks && n == 0 {
		return Event{}, fmt.Errorf("%w: an outcome carrying no links", ErrCorrupt)
	}
	e.Links = make([]crawl.Link, 0, n)
	for range n {
		l := r.link()
		if r.err != nil {
			return Event{}, r.err
		}
		e.Links = append(e.Links, l)
	}
	if v == eventVersionLinks {
		if len(r.b) == 0 {
			return Event{}, fmt.Errorf("%w: an outcome carrying links without its payload", ErrCorrupt)
		}
		e.Payload = r.b
		return e, nil
	}
	if len(r.b) != 0 {
		return Event{}, fmt.Errorf("%w: %d bytes after the links", ErrCorrupt, len(r.b))
	}
	return e, nil
}

// reader decodes from b; the first error sticks and later reads return
// zero values.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: truncated %s", ErrCorrupt, what)
	}
	r.b = nil
}

func (r *reader) byte() byte {
	if len(r.b) < 1 {
		r.fail("byte")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("uvarint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) int() int {
	v, n := binary.Varint(r.b)
	if n <= 0 || v < math.MinInt32 || v > math.MaxInt32 {
		r.fail("varint")
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *reader) float() float64 {
	if len(r.b) < 8 {
		r.fail("float")
		return 0
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return f
}

func (r *reader) string() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("string")
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *reader) link() crawl.Link {
	flags := r.byte()
	if flags&^(linkKey|linkHints|linkEmbed) != 0 {
		if r.err == nil {
			r.err = fmt.Errorf("%w: link flags %#x", ErrCorrupt, flags)
		}
		return crawl.Link{}
	}
	var l crawl.Link
	l.URL = r.string()
	l.Key = l.URL
	if flags&linkKey != 0 {
		l.Key = r.string()
	}
	l.Host = r.string()
	l.Depth = r.int()
	l.Hops = r.int()
	l.Via = r.string()
	l.Sitemap = r.int()
	l.Cash = r.float()
	if flags&linkHints != 0 {
		v, n := binary.Varint(r.b)
		if n <= 0 {
			r.fail("lastmod")
			return crawl.Link{}
		}
		r.b = r.b[n:]
		if v != 0 {
			l.Hints.LastMod = time.Unix(0, v).UTC()
		}
		l.Hints.ChangeFreq = r.string()
		l.Hints.Priority = r.float()
		l.Hints.HasPriority = r.byte() == 1
	}
	if flags&linkEmbed != 0 {
		l.Embed = r.int()
	}
	return l
}

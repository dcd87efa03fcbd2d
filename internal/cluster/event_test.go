package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"

	"github.com/godwit-crawler/godwit/internal/crawl"
)

func newCodec(t testing.TB) *Codec {
	t.Helper()
	c, err := NewCodec()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

var words = strings.Fields("river stone garden winter market light paper north harbor silver quiet orchard" +
	" lantern meadow copper island signal forest canyon velvet amber summit thunder willow")

// sampleLinks are n links of a few hosts, as a page's outlinks look: word
// slugs drawn from a fixed pseudo-random sequence.
func sampleLinks(n int) []crawl.Link {
	r := rand.New(rand.NewPCG(uint64(n), 0))
	links := make([]crawl.Link, n)
	for i := range links {
		host := fmt.Sprintf("site%d.example.org", r.IntN(7))
		slug := words[r.IntN(len(words))] + "-" + words[r.IntN(len(words))] + "-" + words[r.IntN(len(words))]
		u := fmt.Sprintf("https://%s/section-%d/%s-%d.html", host, i%13, slug, r.IntN(100000))
		links[i] = crawl.Link{
			URL: u, Key: u, Host: host, Depth: 1 + i%4,
			Via:  fmt.Sprintf("https://%s/section-%d/", host, i%13),
			Cash: 1.0 / float64(1+i%50),
		}
	}
	return links
}

func TestEventRoundTrip(t *testing.T) {
	c := newCodec(t)
	links := sampleLinks(40)
	links[3].Key = "https://site3.example.org/canonical"
	links[5].Hops = 2
	links[5].Sitemap = 1
	links[5].Hints = crawl.Hints{LastMod: time.Date(2026, 11, 1, 12, 0, 0, 5, time.UTC), ChangeFreq: "daily", Priority: 0.7, HasPriority: true}
	links[6].Hints = crawl.Hints{ChangeFreq: "never"}
	links[7].Via = ""
	links[8].Embed = 1
	links[9].Embed, links[9].Hints = 3, crawl.Hints{ChangeFreq: "weekly"}
	big := bytes.Repeat([]byte("outcome "), 100)
	for _, e := range []Event{
		{Kind: KindLinks, Shard: 1023, Links: links},
		{Kind: KindLinks, Shard: 5, Links: links[:1]},
		{Kind: KindLinks, Shard: 0, Links: []crawl.Link{}},
		{Kind: KindOutcome, Shard: 17, Epoch: 1 << 40, Payload: []byte("small")},
		{Kind: KindOutcome, Shard: 17, Epoch: 3, Payload: big},
		{Kind: KindOutcome, Shard: 2, Epoch: 9}, // a claim
		{Kind: KindControl, Shard: 900, Payload: []byte(`{"block":"a.example"}`)},
		// An outcome carrying its page's links to its own shard.
		{Kind: KindOutcome, Shard: 17, Epoch: 3, Links: links[:8], Payload: []byte("small")},
		{Kind: KindOutcome, Shard: 17, Epoch: 3, Links: links[:1], Payload: big},
	} {
		b, err := c.Encode([]byte("prefix"), e)
		if err != nil {
			t.Fatalf("Encode(%v): %v", e.Kind, err)
		}
		if !bytes.HasPrefix(b, []byte("prefix")) {
			t.Fatalf("Encode did not append to dst")
		}
		got, err := c.Decode(b[len("prefix"):])
		if err != nil {
			t.Fatalf("Decode(Encode(%c shard %d)): %v", e.Kind, e.Shard, err)
		}
		if e.Kind == KindLinks && len(e.Links) == 0 {
			e.Links = []crawl.Link{}
		}
		if !reflect.DeepEqual(got, e) {
			t.Errorf("Decode(Encode(e)) = %+v, want %+v", got, e)
		}
	}
}

func s2Block(b []byte) []byte { return s2.Encode(nil, b) }

// TestEventCompression: a body of minZstd bytes or more is zstd
// compressed (version 1 or 2), a shorter one of minCompress bytes or
// more s2 compressed (the version raised to 3 or 4), a shorter one or
// one that does not shrink stored; each decodes to what was encoded.
func TestEventCompression(t *testing.T) {
	c := newCodec(t)
	payload := bytes.Repeat([]byte("outcome "), 12) // 96 bytes
	noise := make([]byte, 1000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	for _, tc := range []struct {
		name          string
		e             Event
		version, comp byte
	}{
		{"one link", Event{Kind: KindLinks, Shard: 1, Links: sampleLinks(1)}, 1, compressNone},
		{"8 links", Event{Kind: KindLinks, Shard: 1, Links: sampleLinks(8)}, 3, compressS2},
		{"500 links", Event{Kind: KindLinks, Shard: 1, Links: sampleLinks(500)}, 1, compressZstd},
		{"outcome", Event{Kind: KindOutcome, Shard: 1, Epoch: 2, Payload: payload}, 1, compressNone},
		{"outcome, 4 links", Event{Kind: KindOutcome, Shard: 1, Epoch: 2, Links: sampleLinks(4), Payload: payload}, 4, compressS2},
		{"outcome, 100 links", Event{Kind: KindOutcome, Shard: 1, Epoch: 2, Links: sampleLinks(100), Payload: payload}, 2, compressZstd},
		{"incompressible", Event{Kind: KindControl, Shard: 1, Payload: noise}, 1, compressNone},
	} {
		b, err := c.Encode(nil, tc.e)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		// version, kind, shard 1, epoch < 128: the compression byte is b[4].
		if b[0] != tc.version || b[4] != tc.comp {
			t.Errorf("%s: version %d, compression %d (%d bytes); want %d, %d", tc.name, b[0], b[4], len(b), tc.version, tc.comp)
		}
		got, err := c.Decode(b)
		if err != nil {
			t.Fatalf("%s: Decode: %v", tc.name, err)
		}
		if !reflect.DeepEqual(got, tc.e) {
			t.Errorf("%s: Decode(Encode(e)) = %+v, want %+v", tc.name, got, tc.e)
		}
	}
}

func TestEventCompresses(t *testing.T) {
	c := newCodec(t)
	links := sampleLinks(500)
	b, err := c.Encode(nil, Event{Kind: KindLinks, Shard: 1, Links: links})
	if err != nil {
		t.Fatal(err)
	}
	raw := 0
	for i := range links {
		raw += len(links[i].URL) + len(links[i].Via)
	}
	// version, kind, shard 1, epoch 0: the compression byte is b[4].
	if b[4] != compressZstd || len(b)*2 > raw {
		t.Errorf("500 links encode to %d bytes (compression %d), their URLs alone are %d: not compressed", len(b), b[4], raw)
	}
}

func TestDecodeRejects(t *testing.T) {
	c := newCodec(t)
	good, err := c.Encode(nil, Event{Kind: KindLinks, Shard: 3, Links: sampleLinks(2)})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"empty":       nil,
		"version":     append([]byte{9}, good[1:]...),
		"kind":        append([]byte{1, 'X'}, good[2:]...),
		"compression": {1, 'O', 0, 0, 7},
		"truncated":   good[:len(good)-3],
		"trailing":    append(bytes.Clone(good), 0),
		"link count":  {1, 'L', 0, 0, 0, 0xff, 0xff, 0x03},
		"zstd":        {1, 'O', 0, 0, 1, 1, 2, 3},
		// Compression 2 (s2) only in versions 3 and 4, and only it.
		"s2 in v1":       {1, 'O', 0, 0, compressS2, 1, 0, 'x'},
		"s2 in v2":       {2, 'O', 0, 0, compressS2, 1, 0, 'x'},
		"stored in v3":   {3, 'O', 0, 0, compressNone, 'x'},
		"zstd in v4":     {4, 'O', 0, 0, compressZstd, 1, 2, 3},
		"version 5":      {5, 'O', 0, 0, compressS2, 1, 0, 'x'},
		"s2 garbage":     {3, 'O', 0, 0, compressS2, 9, 0xff, 0xff},
		"s2 too large":   {3, 'O', 0, 0, compressS2, 0xff, 0xff, 0xff, 0xff, 0x0f, 0},
		"s2 v4 no links": append([]byte{4, 'O', 0, 1, compressS2}, s2Block([]byte{0, 'x'})...),
		// Version 2 is an outcome carrying links, and only that.
		"links v2":      append([]byte{2}, good[1:]...),
		"no links v2":   {2, 'O', 0, 1, 0, 0, 'x'},
		"no payload v2": appendLink([]byte{2, 'O', 3, 1, compressNone, 1}, &crawl.Link{URL: "http://a/", Key: "http://a/", Host: "a"}),
	} {
		if _, err := c.Decode(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Decode(%s) = %v, want ErrCorrupt", name, err)
		}
	}
}

// TestEncodeRefuses: links go in a links event or an outcome with a
// payload, nowhere else (a claim carrying links would be read as an
// outcome).
func TestEncodeRefuses(t *testing.T) {
	c := newCodec(t)
	for _, e := range []Event{
		{Kind: KindOutcome, Shard: 3, Epoch: 2, Links: sampleLinks(1)},
		{Kind: KindControl, Shard: 3, Links: sampleLinks(1), Payload: []byte("x")},
	} {
		if b, err := c.Encode(nil, e); err == nil {
			t.Errorf("Encode(%c with %d links and %d payload bytes) = %x, want an error", e.Kind, len(e.Links), len(e.Payload), b)
		}
	}
}

func FuzzDecode(f *testing.F) {
	c := newCodec(f)
	for _, e := range []Event{
		{Kind: KindLinks, Shard: 3, Links: sampleLinks(30)},
		{Kind: KindLinks, Shard: 3, Links: sampleLinks(1)},
		{Kind: KindOutcome, Shard: 1, Epoch: 4, Payload: []byte("x")},
		{Kind: KindOutcome, Shard: 3, Epoch: 4, Links: sampleLinks(3), Payload: []byte("x")},
		{Kind: KindControl, Shard: 1},
	} {
		b, err := c.Encode(nil, e)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := c.Decode(b)
		if err != nil {
			return
		}
		// What decodes re-encodes to something that decodes the same.
		b2, err := c.Encode(nil, e)
		if err != nil {
			t.Fatalf("Encode(Decode(b)): %v", err)
		}
		e2, err := c.Decode(b2)
		if err != nil {
			t.Fatalf("Decode(Encode(Decode(b))): %v", err)
		}
		if !reflect.DeepEqual(normalize(e), normalize(e2)) {
			t.Fatalf("round trip differs:\n%+v\n%+v", e, e2)
		}
	})
}

// normalize makes NaN cash comparable for the fuzz round trip.
func normalize(e Event) Event {
	for i := range e.Links {
		if e.Links[i].Cash != e.Links[i].Cash {
			e.Links[i].Cash = -1
		}
		if p := e.Links[i].Hints.Priority; p != p {
			e.Links[i].Hints.Priority = -1
		}
	}
	return e
}

// BenchmarkEncodeLinks reports the bytes per link of a full batch (500
// links) and of a small one (20 links, what a flush sends for a quiet
// shard).
func BenchmarkEncodeLinks(b *testing.B) {
	c := newCodec(b)
	for _, n := range []int{1, 8, 20, 500} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			links := sampleLinks(n)
			var size int
			for b.Loop() {
				out, err := c.Encode(nil, Event{Kind: KindLinks, Shard: 1, Links: links})
				if err != nil {
					b.Fatal(err)
				}
				size = len(out)
			}
			b.ReportMetric(float64(size)/float64(n), "bytes/link")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/link")
		})
	}
}

// BenchmarkEncodeOutcome is what a node does per page: an outcome event
// carrying the page's links to its own shard (3.6 a page on the
// benchmark web), and a payload the size of frontier.EncodeOutcome's.
func BenchmarkEncodeOutcome(b *testing.B) {
	c := newCodec(b)
	payload := bytes.Repeat([]byte("outcome "), 15)
	for _, n := range []int{0, 4, 8, 30} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e := Event{Kind: KindOutcome, Shard: 1, Epoch: 7, Links: sampleLinks(n), Payload: payload}
			var size int
			for b.Loop() {
				out, err := c.Encode(nil, e)
				if err != nil {
					b.Fatal(err)
				}
				size = len(out)
			}
			b.ReportMetric(float64(size), "bytes/event")
		})
	}
}

// BenchmarkDecodeOutcome decodes BenchmarkEncodeOutcome's events.
func BenchmarkDecodeOutcome(b *testing.B) {
	c := newCodec(b)
	payload := bytes.Repeat([]byte("outcome "), 15)
	for _, n := range []int{0, 4, 8, 30} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			msg, err := c.Encode(nil, Event{Kind: KindOutcome, Shard: 1, Epoch: 7, Links: sampleLinks(n), Payload: payload})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := c.Decode(msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeLinks(b *testing.B) {
	c := newCodec(b)
	msg, err := c.Encode(nil, Event{Kind: KindLinks, Shard: 1, Links: sampleLinks(500)})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := c.Decode(msg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*500), "ns/link")
}

// TestLinkWithoutEmbedUnchanged: a link that is no requisite is encoded
// exactly as before the embed flag existed, so events in logs written
// then decode alike, and an embed sets only its own flag bit.
func TestLinkWithoutEmbedUnchanged(t *testing.T) {
	l := crawl.Link{URL: "http://a.test/", Key: "http://a.test/", Host: "a.test", Depth: 1, Cash: 0.5}
	plain := appendLink(nil, &l)
	if plain[0] != 0 {
		t.Fatalf("flags of a plain link = %#x, want 0", plain[0])
	}
	l.Embed = 2
	embed := appendLink(nil, &l)
	if embed[0] != linkEmbed || !bytes.Equal(embed[1:len(plain)], plain[1:]) {
		t.Fatalf("embed link = %x, want flag %#x, the plain encoding %x and the hops", embed, linkEmbed, plain)
	}
	r := reader{b: embed}
	if got := r.link(); r.err != nil || got != l {
		t.Fatalf("decoded %+v (err %v), want %+v", got, r.err, l)
	}
}

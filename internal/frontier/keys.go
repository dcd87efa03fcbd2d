package frontier

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/freshness"
	"github.com/godwit-crawler/godwit/internal/politeness"
	"github.com/godwit-crawler/godwit/internal/shard"
)

// Shards is P in DESIGN.md: every key starts with shard = xxhash64(host)
// mod Shards, fixed for the life of a crawl, so cluster mode can hand a
// shard's key range to another node as a unit.
const Shards = shard.Default

// Table tags: the first byte of every key. The byte layout of keys and
// values is documented in docs/formats.md ("Crawl state").
const (
	tagHost   = 'h' // h shard host                  → hostRecord
	tagRobots = 'r' // r shard host                  → robotsRecord
	tagQueue  = 'q' // q shard host 0x00 prio seq    → task
	tagURL    = 'u' // u shard urlkey                → urlRecord
	tagMeta   = 'm' // m name                        → meta values
	tagDue    = 'v' // v shard due(8) host 0x00 key → task: a revisit due then
)

// encodingVersion starts every value, so the format can evolve.
const encodingVersion = 1

var errCorrupt = errors.New("frontier: corrupt record")

func shardOf(host string) uint16 { return uint16(shard.Of(host, Shards)) }

func appendPrefix(b []byte, tag byte, host string) []byte {
	b = append(b, tag)
	b = binary.BigEndian.AppendUint16(b, shardOf(host))
	return append(b, host...)
}

func hostKey(host string) []byte { return appendPrefix(nil, tagHost, host) }

// dueKey is a revisit's entry in the due-time index: within a shard,
// entries sort by due time, so the due ones are a prefix.
func dueKey(host string, due time.Time, key string) []byte {
	b := []byte{tagDue}
	b = binary.BigEndian.AppendUint16(b, shardOf(host))
	b = binary.BigEndian.AppendUint64(b, uint64(max(due.UnixNano(), 0)))
	b = append(b, host...)
	b = append(b, 0)
	return append(b, key...)
}

// dueShard is the prefix of one shard's due-time index.
func dueShard(shard uint16) []byte {
	return binary.BigEndian.AppendUint16([]byte{tagDue}, shard)
}

// parseDueKey splits a due-index key.
func parseDueKey(k []byte) (due time.Time, host, key string, ok bool) {
	if len(k) < 1+2+8+2 || k[0] != tagDue {
		return time.Time{}, "", "", false
	}
	due = time.Unix(0, int64(binary.BigEndian.Uint64(k[3:11])))
	rest := k[11:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return time.Time{}, "", "", false
	}
	return due, string(rest[:i]), string(rest[i+1:]), true
}
func robotsKey(host string) []byte { return appendPrefix(nil, tagRobots, host) }

// queuePrefix is the key prefix of one host's queue.
func queuePrefix(host string) []byte { return append(appendPrefix(nil, tagQueue, host), 0) }

func queueKey(host string, prio uint8, seq uint64) []byte {
	b := append(queuePrefix(host), prio)
	return binary.BigEndian.AppendUint64(b, seq)
}

// urlKey places a URL record in its host's shard.
func urlKey(host, key string) []byte {
	b := append(make([]byte, 0, 3+len(key)), tagURL)
	b = binary.BigEndian.AppendUint16(b, shardOf(host))
	return append(b, key...)
}

func metaKey(name string) []byte { return append([]byte{tagMeta}, name...) }

// prefixEnd is the smallest key greater than every key with prefix p.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// Queue bands. The byte after a host's queue prefix orders its entries:
// revisitBand holds revisits of fetched pages (see lease for how they
// share the host with discovery), and discovery bands follow from
// firstBand, by importance (importanceBand) or, breadth-first, by depth
// (priority).
const (
	revisitBand = 0
	firstBand   = 1
)

// priority is the breadth-first band of a link: its depth, so each
// host's queue is served breadth-first.
func priority(depth int) uint8 { return uint8(firstBand + min(max(depth, 0), 255-firstBand)) }

// bandOf is the band of a queue entry's key.
func bandOf(queueKey []byte) uint8 { return queueKey[len(queueKey)-9] }

// decoder reads the fields of a value in order, remembering the first error.
type decoder struct {
	b   []byte
	err error
}

func newDecoder(b []byte) *decoder {
	d := &decoder{b: b}
	if len(b) == 0 || b[0] != encodingVersion {
		d.err = errCorrupt
		return d
	}
	d.b = b[1:]
	return d
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if uint64(len(d.b)) < n {
		d.err = errCorrupt
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string { return string(d.bytes()) }

func (d *decoder) float64() float64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 8 {
		d.err = errCorrupt
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	if !finite(v) {
		// Nothing stored is infinite or not a number; one read would
		// poison every sum it joins (OPIC cash, host capacity, spending).
		d.err = errCorrupt
		return 0
	}
	return v
}

func (d *decoder) time() time.Time {
	ns := d.varint()
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return binary.AppendVarint(b, 0)
	}
	return binary.AppendVarint(b, t.UnixNano())
}

// appendCapture writes a tag byte, then the capture: 0 none; 1 file,
// offset, length; 2 the same plus record ID and date.
func appendCapture(b []byte, c *crawl.Capture) []byte {
	if c == nil {
		return append(b, 0)
	}
	tag := byte(1)
	if c.RecordID != "" || !c.Date.IsZero() {
		tag = 2
	}
	b = append(b, tag)
	b = appendString(b, c.File)
	b = binary.AppendUvarint(b, uint64(c.Offset))
	b = binary.AppendUvarint(b, uint64(c.Length))
	if tag == 2 {
		b = appendString(b, c.RecordID)
		b = appendTime(b, c.Date)
	}
	return b
}

func (d *decoder) capture() *crawl.Capture {
	if d.err != nil || len(d.b) == 0 {
		d.err = errCorrupt
		return nil
	}
	has := d.b[0]
	d.b = d.b[1:]
	if has == 0 {
		return nil
	}
	c := &crawl.Capture{File: d.string()}
	c.Offset = int64(d.uvarint())
	c.Length = int64(d.uvarint())
	if has == 2 {
		c.RecordID = d.string()
		c.Date = d.time()
	}
	return c
}

// encodeTask is a queue entry's value. The URL is stored once more as the
// key only when the canonical key differs from it.
func encodeTask(t crawl.Task) []byte {
	b := make([]byte, 0, 32+len(t.URL)+len(t.Via))
	b = append(b, encodingVersion)
	b = appendString(b, t.URL)
	if t.Key == t.URL {
		b = appendString(b, "")
	} else {
		b = appendString(b, t.Key)
	}
	b = appendString(b, t.Host)
	b = binary.AppendUvarint(b, uint64(t.Depth))
	b = binary.AppendUvarint(b, uint64(t.Hops))
	b = appendString(b, t.Via)
	b = binary.AppendUvarint(b, uint64(t.Attempt))
	b = appendCapture(b, t.Replay)
	// Optional trailing fields: absent in entries written before they
	// existed, and when they and those after them are zero.
	if t.Sitemap == 0 && t.Hints == (crawl.Hints{}) && t.Validators.IsZero() && t.Prior == nil && t.Embed == 0 {
		return b
	}
	b = binary.AppendUvarint(b, uint64(t.Sitemap))
	b = appendTime(b, t.Hints.LastMod)
	b = appendString(b, t.Hints.ChangeFreq)
	prio := uint64(0) // 0: none; else 1 + priority in thousandths
	if t.Hints.HasPriority {
		prio = 1 + uint64(math.Round(min(max(t.Hints.Priority, 0), 1)*1000))
	}
	b = binary.AppendUvarint(b, prio)
	if t.Validators.IsZero() && t.Prior == nil && t.Embed == 0 {
		return b
	}
	b = appendString(b, t.Validators.ETag)
	b = appendString(b, t.Validators.LastModified)
	b = appendCapture(b, t.Prior)
	if t.Embed == 0 {
		return b
	}
	return binary.AppendUvarint(b, uint64(t.Embed))
}

func decodeTask(v []byte) (crawl.Task, error) {
	d := newDecoder(v)
	var t crawl.Task
	t.URL = d.string()
	t.Key = d.string()
	if t.Key == "" {
		t.Key = t.URL
	}
	t.Host = d.string()
	t.Depth = int(d.uvarint())
	t.Hops = int(d.uvarint())
	t.Via = d.string()
	t.Attempt = int(d.uvarint())
	t.Replay = d.capture()
	if d.err == nil && len(d.b) > 0 {
		t.Sitemap = int(d.uvarint())
		t.Hints.LastMod = d.time()
		t.Hints.ChangeFreq = d.string()
		switch prio := d.uvarint(); {
		case prio > 1001:
			d.err = errCorrupt // encodeTask clamps a priority to [0, 1]
		case prio > 0:
			t.Hints.Priority, t.Hints.HasPriority = float64(prio-1)/1000, true
		}
	}
	if d.err == nil && len(d.b) > 0 {
		t.Validators.ETag = d.string()
		t.Validators.LastModified = d.string()
		if d.err == nil && len(d.b) > 0 {
			t.Prior = d.capture()
		}
		if d.err == nil && len(d.b) > 0 {
			t.Embed = int(d.uvarint())
		}
	}
	if d.err != nil {
		return crawl.Task{}, fmt.Errorf("%w: queue entry", d.err)
	}
	return t, nil
}

// urlState is where a URL stands in the crawl.
type urlState uint8

const (
	urlQueued urlState = 1 // a queue entry exists (also while leased)
	urlDone   urlState = 2 // finished: fetched, failed for good, or skipped
)

// urlRecord is the authoritative seen-set entry of one URL key.
type urlRecord struct {
	state     urlState
	depth     int
	prio      uint8  // queue band of its entry, when queued
	seq       uint64 // queue sequence of its entry, when queued
	status    int    // HTTP status of the last fetch, 0 if none
	fetchedAt time.Time
	capture   *crawl.Capture   // where the last response was archived
	valid     crawl.Validators // the last response's ETag and Last-Modified
	// nextVisit is when a revisit is due: the time of its entry in the
	// due-time index, or, once queued as a revisit, the time it fell due.
	// Zero: none.
	nextVisit time.Time

	// OPIC importance (see importance.go): the cash the URL holds and the
	// cash that went through it.
	cash, history float64
	// sitemapPrio is the sitemap's priority in thousandths plus one; 0:
	// none.
	sitemapPrio uint16
	// What the visits saw (see recrawl.go): the change estimate, when at
	// least one visit was observed; a fingerprint of the last content
	// (crawl.Outcome.Content); how many visits saw a change and when
	// the last did; the revisit interval last chosen.
	fresh      *freshness.State
	content    uint64
	changed    uint32
	lastChange time.Time
	interval   time.Duration
}

// Flags of a url record's extension.
const (
	extContent = 1 << iota
	extFresh
	extChanges
)

func (r urlRecord) encode() []byte {
	b := make([]byte, 0, 64)
	b = append(b, encodingVersion, byte(r.state))
	b = binary.AppendUvarint(b, uint64(r.depth))
	b = append(b, r.prio)
	b = binary.AppendUvarint(b, r.seq)
	b = binary.AppendUvarint(b, uint64(r.status))
	b = appendTime(b, r.fetchedAt)
	b = appendCapture(b, r.capture)
	// Optional trailing fields: absent in records written before they
	// existed.
	ext := r.cash != 0 || r.history != 0 || r.sitemapPrio != 0 || r.fresh != nil || r.content != 0 ||
		r.changed != 0 || !r.lastChange.IsZero() || r.interval != 0
	if r.valid.IsZero() && r.nextVisit.IsZero() && !ext {
		return b
	}
	b = appendString(b, r.valid.ETag)
	b = appendString(b, r.valid.LastModified)
	b = appendTime(b, r.nextVisit)
	if !ext {
		return b
	}
	// The extension: flags, cash and history (float32: only their order
	// and rough ratios matter), the sitemap priority, then what the flags
	// say is there.
	var flags byte
	if r.content != 0 {
		flags |= extContent
	}
	if r.fresh != nil {
		flags |= extFresh
	}
	if r.changed != 0 || !r.lastChange.IsZero() || r.interval != 0 {
		flags |= extChanges
	}
	b = append(b, flags)
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(r.cash)))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(r.history)))
	b = binary.AppendUvarint(b, uint64(r.sitemapPrio))
	if flags&extContent != 0 {
		b = binary.LittleEndian.AppendUint64(b, r.content)
	}
	if flags&extFresh != 0 {
		b, _ = r.fresh.AppendBinary(b) // never fails
	}
	if flags&extChanges != 0 {
		b = binary.AppendUvarint(b, uint64(r.changed))
		b = appendTime(b, r.lastChange)
		b = binary.AppendUvarint(b, uint64(max(r.interval, 0)/time.Millisecond))
	}
	return b
}

func decodeURLRecord(v []byte) (urlRecord, error) {
	d := newDecoder(v)
	var r urlRecord
	if d.err == nil && len(d.b) > 0 {
		r.state = urlState(d.b[0])
		d.b = d.b[1:]
	}
	r.depth = int(d.uvarint())
	if d.err == nil && len(d.b) > 0 {
		r.prio = d.b[0]
		d.b = d.b[1:]
	}
	r.seq = d.uvarint()
	r.status = int(d.uvarint())
	r.fetchedAt = d.time()
	r.capture = d.capture()
	if d.err == nil && len(d.b) > 0 {
		r.valid.ETag = d.string()
		r.valid.LastModified = d.string()
	}
	if d.err == nil && len(d.b) > 0 {
		r.nextVisit = d.time()
	}
	if d.err == nil && len(d.b) > 0 {
		d.urlExtension(&r)
	}
	if d.err != nil {
		return urlRecord{}, fmt.Errorf("%w: url record", d.err)
	}
	return r, nil
}

// urlExtension reads the extension of a url record (see encode).
func (d *decoder) urlExtension(r *urlRecord) {
	if len(d.b) < 9 {
		d.err = errCorrupt
		return
	}
	flags := d.b[0]
	r.cash = float64(math.Float32frombits(binary.LittleEndian.Uint32(d.b[1:])))
	r.history = float64(math.Float32frombits(binary.LittleEndian.Uint32(d.b[5:])))
	d.b = d.b[9:]
	if !finite(r.cash) || !finite(r.history) {
		d.err = errCorrupt
		return
	}
	r.sitemapPrio = uint16(min(d.uvarint(), math.MaxUint16))
	if flags&extContent != 0 {
		if len(d.b) < 8 {
			d.err = errCorrupt
			return
		}
		r.content = binary.LittleEndian.Uint64(d.b)
		d.b = d.b[8:]
	}
	if flags&extFresh != 0 && d.err == nil {
		s, rest, err := freshness.Decode(d.b)
		if err != nil {
			d.err = errCorrupt
			return
		}
		r.fresh, d.b = &s, rest
	}
	if flags&extChanges != 0 {
		r.changed = uint32(min(d.uvarint(), math.MaxUint32))
		r.lastChange = d.time()
		r.interval = time.Duration(min(d.uvarint(), math.MaxInt64/uint64(time.Millisecond))) * time.Millisecond
	}
}

// hostRecord is the persistent, frequently rewritten part of a host's
// state; its robots.txt lives in its own record, rewritten only when it
// changes.
type hostRecord struct {
	readyAt time.Time
	nextSeq uint64
	queued  int // queue entries, revisits included
	fetched int
	pol     politeness.HostState // adaptive politeness: latency, streak, breaker
	policy  crawl.HostPolicy     // an operator's override
	blocked bool                 // an operator's block
	// revisits counts the queue entries in revisitBand; capacity is the
	// host's last contribution to the crawl's capacity estimate
	// (requests per second, see recrawl.go).
	revisits int
	capacity float64
	// aliases is the host's URL alias learning state (crawl/aliases.go);
	// nil when it taught none.
	aliases *crawl.HostAliases
	// errors counts the host's failed attempts: fetches given up on or
	// retried (transient, permanent), robots.txt unreachable.
	errors int
}

func (r hostRecord) encode() []byte {
	b := make([]byte, 0, 48)
	b = append(b, encodingVersion)
	b = appendTime(b, r.readyAt)
	b = binary.AppendUvarint(b, r.nextSeq)
	b = binary.AppendUvarint(b, uint64(r.queued))
	b = binary.AppendUvarint(b, uint64(r.fetched))
	// Optional trailing sections, each present when it or a later one
	// has something: absent in records written before they existed, and
	// for hosts that never taught us anything.
	aliases := r.aliases != nil && len(r.aliases.Rules) > 0
	errs := r.errors != 0
	recrawl := r.revisits != 0 || r.capacity != 0 || aliases || errs
	operator := !r.policy.IsZero() || r.blocked || recrawl
	if r.pol == (politeness.HostState{}) && !operator {
		return b
	}
	b = binary.AppendUvarint(b, uint64(max(r.pol.Latency, 0)))
	b = binary.AppendUvarint(b, uint64(r.pol.Streak))
	b = append(b, byte(r.pol.Breaker))
	b = binary.AppendUvarint(b, uint64(r.pol.Trips))
	b = appendTime(b, r.pol.Until)
	b = appendString(b, string(r.pol.Why))
	if !operator {
		return b
	}
	// The operator's part: flags (1 delay set, 2 max pages set, 4
	// blocked), then the values that are set.
	var flags byte
	if r.policy.Delay != nil {
		flags |= 1
	}
	if r.policy.MaxPages != nil {
		flags |= 2
	}
	if r.blocked {
		flags |= 4
	}
	b = append(b, flags)
	if r.policy.Delay != nil {
		b = binary.AppendUvarint(b, uint64(max(*r.policy.Delay, 0)))
	}
	if r.policy.MaxPages != nil {
		b = binary.AppendUvarint(b, uint64(max(*r.policy.MaxPages, 0)))
	}
	if !recrawl {
		return b
	}
	b = binary.AppendUvarint(b, uint64(r.revisits))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(r.capacity)))
	if !aliases && !errs {
		return b
	}
	if aliases {
		b = appendAliases(b, *r.aliases)
	} else {
		b = binary.AppendUvarint(b, 0) // no rules
	}
	if !errs {
		return b
	}
	return binary.AppendUvarint(b, uint64(r.errors))
}

// appendAliases writes a host's alias rules: their number, then per
// rule its kind, parameter, confirmations and flags (1 contradicted,
// 2 adopted).
func appendAliases(b []byte, a crawl.HostAliases) []byte {
	b = binary.AppendUvarint(b, uint64(len(a.Rules)))
	for _, e := range a.Rules {
		b = append(b, byte(e.Rule.Kind))
		b = appendString(b, e.Rule.Param)
		b = binary.AppendUvarint(b, uint64(max(e.Confirmations, 0)))
		var flags byte
		if e.Contradicted {
			flags |= 1
		}
		if e.Adopted {
			flags |= 2
		}
		b = append(b, flags)
	}
	return b
}

func (d *decoder) aliases() crawl.HostAliases {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errCorrupt
		return crawl.HostAliases{}
	}
	a := crawl.HostAliases{Rules: make([]crawl.AliasEvidence, 0, n)}
	for range n {
		if d.err != nil || len(d.b) == 0 {
			d.err = errCorrupt
			return crawl.HostAliases{}
		}
		var e crawl.AliasEvidence
		e.Rule.Kind = crawl.AliasKind(d.b[0])
		d.b = d.b[1:]
		e.Rule.Param = d.string()
		e.Confirmations = int(min(d.uvarint(), math.MaxInt32))
		if d.err != nil || len(d.b) == 0 {
			d.err = errCorrupt
			return crawl.HostAliases{}
		}
		e.Contradicted, e.Adopted = d.b[0]&1 != 0, d.b[0]&2 != 0
		d.b = d.b[1:]
		a.Rules = append(a.Rules, e)
	}
	return a
}

func decodeHostRecord(v []byte) (hostRecord, error) {
	d := newDecoder(v)
	var r hostRecord
	r.readyAt = d.time()
	r.nextSeq = d.uvarint()
	r.queued = int(d.uvarint())
	r.fetched = int(d.uvarint())
	if d.err == nil && len(d.b) > 0 {
		r.pol.Latency = time.Duration(d.uvarint())
		r.pol.Streak = int(d.uvarint())
		if d.err == nil && len(d.b) > 0 {
			r.pol.Breaker = politeness.Breaker(d.b[0])
			d.b = d.b[1:]
		}
		r.pol.Trips = int(d.uvarint())
		r.pol.Until = d.time()
		r.pol.Why = politeness.Reason(d.string())
	}
	if d.err == nil && len(d.b) > 0 {
		flags := d.b[0]
		d.b = d.b[1:]
		if flags&1 != 0 {
			v := time.Duration(d.uvarint())
			r.policy.Delay = &v
		}
		if flags&2 != 0 {
			v := int64(d.uvarint())
			r.policy.MaxPages = &v
		}
		r.blocked = flags&4 != 0
	}
	if d.err == nil && len(d.b) > 0 {
		r.revisits = int(d.uvarint())
		if len(d.b) < 4 {
			d.err = errCorrupt
		} else {
			r.capacity = float64(math.Float32frombits(binary.LittleEndian.Uint32(d.b)))
			d.b = d.b[4:]
		}
	}
	if d.err == nil && len(d.b) > 0 {
		if a := d.aliases(); len(a.Rules) > 0 {
			r.aliases = &a
		}
	}
	if d.err == nil && len(d.b) > 0 {
		r.errors = int(d.uvarint())
	}
	if d.err != nil {
		return hostRecord{}, fmt.Errorf("%w: host record", d.err)
	}
	return r, nil
}

// encodeRobots stores a host's robots.txt state; the compiled rules are
// rebuilt from the body on load.
func encodeRobots(s crawl.RobotsState) []byte {
	b := make([]byte, 0, 32+len(s.Body))
	b = append(b, encodingVersion, byte(s.Status))
	b = appendString(b, string(s.Body))
	b = appendTime(b, s.FetchedAt)
	b = binary.AppendUvarint(b, uint64(s.Failures))
	b = appendString(b, s.URL)
	b = binary.AppendUvarint(b, uint64(s.Hops))
	b = appendTime(b, s.FailingSince)
	if s.Validators.IsZero() && s.Capture == nil { // optional trailing fields
		return b
	}
	b = appendString(b, s.Validators.ETag)
	b = appendString(b, s.Validators.LastModified)
	return appendCapture(b, s.Capture)
}

func decodeRobots(v []byte) (crawl.RobotsState, error) {
	d := newDecoder(v)
	var s crawl.RobotsState
	if d.err == nil && len(d.b) > 0 {
		s.Status = crawl.RobotsStatus(d.b[0])
		d.b = d.b[1:]
	}
	if body := d.bytes(); len(body) > 0 {
		s.Body = append([]byte(nil), body...)
	}
	s.FetchedAt = d.time()
	s.Failures = int(d.uvarint())
	s.URL = d.string()
	s.Hops = int(d.uvarint())
	if d.err == nil && len(d.b) > 0 {
		s.FailingSince = d.time()
	}
	if d.err == nil && len(d.b) > 0 {
		s.Validators.ETag = d.string()
		s.Validators.LastModified = d.string()
		s.Capture = d.capture()
	}
	if d.err != nil {
		return crawl.RobotsState{}, fmt.Errorf("%w: robots record", d.err)
	}
	return s, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

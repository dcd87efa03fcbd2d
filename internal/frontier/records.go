package frontier

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/freshness"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

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
	// traps is the host's trap-defence state (crawl/traps_state.go), as
	// the crawl handed it over (never changed, so shared with leases);
	// nil while it handed none.
	traps *crawl.HostTraps
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
	traps := r.traps != nil
	errs := r.errors != 0 || traps
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
	b = binary.AppendUvarint(b, uint64(r.errors))
	if !traps {
		return b
	}
	return appendTraps(b, *r.traps)
}

// Flags of a trap section.
const (
	trapsDemoted = 1 << iota
	trapsSketch
)

// appendTraps writes a host's trap-defence state as a length-prefixed
// section (so that a later version can add fields a reader skips):
// flags (1 demoted, 2 sketch), the state's sequence and pages fetched,
// the demotion's page budget (when demoted), the templates (count, then
// per template its hash as 8 bytes little endian, entry depth, pages and
// barren run × 2 + open), the calendars (count, then hash and steps),
// and the sketch's 256 registers, clamped at 15, two to a byte (low
// nibble first).
func appendTraps(b []byte, s crawl.HostTraps) []byte {
	v := make([]byte, 0, 16+len(s.Templates)*12+len(s.Calendars)*10+128)
	var flags byte
	if s.Demoted {
		flags |= trapsDemoted
	}
	if s.Sketch != nil {
		flags |= trapsSketch
	}
	v = append(v, flags)
	v = binary.AppendUvarint(v, s.Seq)
	v = binary.AppendUvarint(v, uint64(max(s.Fetched, 0)))
	if s.Demoted {
		v = binary.AppendUvarint(v, uint64(max(s.Budget, 0)))
	}
	v = binary.AppendUvarint(v, uint64(len(s.Templates)))
	for _, t := range s.Templates {
		v = binary.LittleEndian.AppendUint64(v, t.Hash)
		v = binary.AppendUvarint(v, uint64(max(t.Entry, 0)))
		v = binary.AppendUvarint(v, uint64(max(t.Pages, 0)))
		open := uint64(0)
		if t.Open {
			open = 1
		}
		v = binary.AppendUvarint(v, uint64(max(t.Barren, 0))<<1|open)
	}
	v = binary.AppendUvarint(v, uint64(len(s.Calendars)))
	for _, c := range s.Calendars {
		v = binary.LittleEndian.AppendUint64(v, c.Hash)
		v = binary.AppendUvarint(v, uint64(max(c.Steps, 0)))
	}
	if s.Sketch != nil {
		for i := 0; i < len(s.Sketch); i += 2 {
			v = append(v, min(s.Sketch[i], 15)|min(s.Sketch[i+1], 15)<<4)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// traps reads what appendTraps wrote. Bytes after the fields it knows,
// inside the section, are skipped: a later version's.
func (d *decoder) traps() crawl.HostTraps {
	sec := d.bytes()
	if d.err != nil {
		return crawl.HostTraps{}
	}
	v := &decoder{b: sec}
	var s crawl.HostTraps
	if len(v.b) == 0 {
		d.err = errCorrupt
		return s
	}
	flags := v.b[0]
	v.b = v.b[1:]
	s.Seq = v.uvarint()
	s.Fetched = int64(min(v.uvarint(), math.MaxInt64))
	if flags&trapsDemoted != 0 {
		s.Demoted = true
		s.Budget = int64(min(v.uvarint(), math.MaxInt64))
	}
	const maxInt = math.MaxInt32
	if n := v.uvarint(); v.err == nil && n <= uint64(len(v.b))/9 {
		if n > 0 {
			s.Templates = make([]crawl.TemplateTrap, 0, n)
		}
		for range n {
			t := crawl.TemplateTrap{Hash: v.fixed64()}
			t.Entry = int(min(v.uvarint(), maxInt))
			t.Pages = int(min(v.uvarint(), maxInt))
			bo := v.uvarint()
			t.Barren, t.Open = int(min(bo>>1, maxInt)), bo&1 != 0
			s.Templates = append(s.Templates, t)
		}
	} else {
		v.err = errCorrupt
	}
	if n := v.uvarint(); v.err == nil && n <= uint64(len(v.b))/9 {
		if n > 0 {
			s.Calendars = make([]crawl.CalendarTrap, 0, n)
		}
		for range n {
			c := crawl.CalendarTrap{Hash: v.fixed64()}
			c.Steps = int(min(v.uvarint(), maxInt))
			s.Calendars = append(s.Calendars, c)
		}
	} else {
		v.err = errCorrupt
	}
	if flags&trapsSketch != 0 && v.err == nil {
		if len(v.b) < 128 {
			v.err = errCorrupt
		} else {
			var reg [256]uint8
			for i, x := range v.b[:128] {
				reg[2*i], reg[2*i+1] = x&15, x>>4
			}
			s.Sketch = &reg
			v.b = v.b[128:]
		}
	}
	if v.err != nil {
		d.err = v.err
		return crawl.HostTraps{}
	}
	return s
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
	if d.err == nil && len(d.b) > 0 {
		t := d.traps()
		r.traps = &t
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

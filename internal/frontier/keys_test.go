package frontier

import (
	"encoding/binary"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/freshness"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

func TestTaskRoundTrip(t *testing.T) {
	tests := []crawl.Task{
		{Link: crawl.Link{URL: "http://a.test/", Key: "http://a.test/", Host: "a.test"}},
		{Link: crawl.Link{URL: "http://a.test/x?b=1&a=2", Key: "http://a.test/x?a=2&b=1", Host: "a.test", Depth: 3, Hops: 2, Via: "http://a.test/"}, Attempt: 1,
			Replay: &crawl.Capture{File: "f.warc.gz", Offset: 10, Length: 20}},
		{Link: crawl.Link{URL: "http://a.test/sitemap.xml", Key: "http://a.test/sitemap.xml", Host: "a.test", Sitemap: 2}},
		{Link: crawl.Link{URL: "http://a.test/p", Key: "http://a.test/p", Host: "a.test", Depth: 1,
			Hints: crawl.Hints{LastMod: time.Unix(1700000000, 0), ChangeFreq: "daily", Priority: 0.8, HasPriority: true}}},
		{Link: crawl.Link{URL: "http://a.test/q", Key: "http://a.test/q", Host: "a.test", Hints: crawl.Hints{Priority: 0, HasPriority: true}}},
		{Link: crawl.Link{URL: "http://a.test/v", Key: "http://a.test/v", Host: "a.test"},
			Validators: crawl.Validators{ETag: `W/"x1"`, LastModified: "Sat, 21 Nov 2026 10:00:00 GMT"}},
		{Link: crawl.Link{URL: "http://a.test/v", Key: "http://a.test/v", Host: "a.test"}, Validators: crawl.Validators{ETag: `"e"`}},
		{Link: crawl.Link{URL: "http://a.test/v", Key: "http://a.test/v", Host: "a.test"}, Validators: crawl.Validators{ETag: `"e"`},
			Prior: &crawl.Capture{File: "f.warc.gz", Offset: 5, Length: 9, RecordID: "<urn:uuid:1>", Date: time.Unix(1700000000, 0)}},
		// Requisites: the embed hops are the last optional field.
		{Link: crawl.Link{URL: "http://cdn.test/a.png", Key: "http://cdn.test/a.png", Host: "cdn.test", Depth: 2, Via: "http://a.test/", Embed: 1}},
		{Link: crawl.Link{URL: "http://cdn.test/f.woff", Key: "http://cdn.test/f.woff", Host: "cdn.test", Embed: 3}, Validators: crawl.Validators{ETag: `"e"`},
			Prior: &crawl.Capture{File: "f.warc.gz", Offset: 5, Length: 9}},
	}
	for _, want := range tests {
		got, err := decodeTask(encodeTask(want))
		if err != nil {
			t.Fatalf("decodeTask(encodeTask(%+v)): %v", want, err)
		}
		if !sameTask(got, want) || !got.Hints.LastMod.Equal(want.Hints.LastMod) {
			t.Errorf("round trip = %+v, want %+v", got, want)
		}
	}
}

// TestTaskPriorityOutOfRange: encodeTask clamps a sitemap priority to
// [0, 1], stored as 1 + thousandths. A larger stored value is not what it
// wrote (decoding it as 4.999 and writing it back as 1 would change the
// task; the outcome fuzzer found this) and reads as corrupt.
func TestTaskPriorityOutOfRange(t *testing.T) {
	base := encodeTask(crawl.Task{Link: crawl.Link{URL: "u", Key: "u", Host: "h", Sitemap: 1}})
	for prio, wantErr := range map[uint64]bool{0: false, 1: false, 1001: false, 1002: true, 5000: true} {
		b := binary.AppendUvarint(slices.Clone(base[:len(base)-1]), prio) // the last byte is the priority 0
		got, err := decodeTask(b)
		if (err != nil) != wantErr {
			t.Errorf("priority field %d: err = %v, want error %v", prio, err, wantErr)
			continue
		}
		if err == nil && (got.Hints.HasPriority != (prio > 0) || got.Hints.HasPriority && got.Hints.Priority != float64(prio-1)/1000) {
			t.Errorf("priority field %d: hints %+v", prio, got.Hints)
		}
	}
}

func TestHostRecordRoundTrip(t *testing.T) {
	until := time.Unix(1800000000, 5)
	tests := []hostRecord{
		{},
		{readyAt: time.Unix(1700000000, 0), nextSeq: 7, queued: 3, fetched: 9},
		{readyAt: time.Unix(1700000000, 0), nextSeq: 1, queued: 1, fetched: 2, pol: politeness.HostState{
			Latency: 1500 * time.Millisecond, Streak: 4, Breaker: politeness.BreakerOpen, Trips: 2,
			Until: until, Why: politeness.ReasonBreaker}},
		{pol: politeness.HostState{Latency: time.Millisecond}},
	}
	for _, want := range tests {
		got, err := decodeHostRecord(want.encode())
		if err != nil {
			t.Fatalf("decode(encode(%+v)): %v", want, err)
		}
		if !got.readyAt.Equal(want.readyAt) || !got.pol.Until.Equal(want.pol.Until) {
			t.Errorf("round trip times = %v %v, want %v %v", got.readyAt, got.pol.Until, want.readyAt, want.pol.Until)
		}
		got.readyAt, want.readyAt, got.pol.Until, want.pol.Until = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if got != want {
			t.Errorf("round trip = %+v, want %+v", got, want)
		}
	}
}

// TestHostRecordAliases: a host's alias rules survive the host record,
// and a record without them reads as before.
func TestHostRecordAliases(t *testing.T) {
	want := &crawl.HostAliases{Rules: []crawl.AliasEvidence{
		{Rule: crawl.AliasRule{Kind: crawl.AliasIndex, Param: "index.html"}, Confirmations: 3, Adopted: true},
		{Rule: crawl.AliasRule{Kind: crawl.AliasParam, Param: "ref"}, Confirmations: 1, Contradicted: true},
	}}
	got, err := decodeHostRecord(hostRecord{nextSeq: 4, aliases: want}.encode())
	if err != nil {
		t.Fatal(err)
	}
	if got.nextSeq != 4 || got.aliases == nil || !slices.Equal(got.aliases.Rules, want.Rules) {
		t.Errorf("round trip = %+v %+v, want %+v", got, got.aliases, want)
	}
	got, err = decodeHostRecord(hostRecord{nextSeq: 4}.encode())
	if err != nil || got.aliases != nil {
		t.Errorf("record without aliases = %+v, %v", got, err)
	}
	// The error count follows the aliases section, with or without rules.
	for _, a := range []*crawl.HostAliases{nil, want} {
		got, err = decodeHostRecord(hostRecord{nextSeq: 4, aliases: a, errors: 7}.encode())
		if err != nil || got.errors != 7 || (a == nil) != (got.aliases == nil) {
			t.Errorf("record with aliases %v and 7 errors = %+v (aliases %v), %v", a != nil, got, got.aliases, err)
		}
	}
}

func TestURLRecordRoundTrip(t *testing.T) {
	tests := []urlRecord{
		{state: urlQueued, depth: 2, prio: 1, seq: 5},
		{state: urlDone, depth: 1, status: 200, capture: &crawl.Capture{File: "a.warc.gz", Offset: 1, Length: 2},
			valid: crawl.Validators{ETag: `"abc"`, LastModified: "Sat, 21 Nov 2026 10:00:00 GMT"}},
		{state: urlDone, status: 304, valid: crawl.Validators{LastModified: "x"}},
	}
	for _, want := range tests {
		got, err := decodeURLRecord(want.encode())
		if err != nil {
			t.Fatalf("decode(encode(%+v)): %v", want, err)
		}
		if (got.capture == nil) != (want.capture == nil) || got.capture != nil && *got.capture != *want.capture {
			t.Errorf("capture = %v, want %v", got.capture, want.capture)
		}
		got.capture, want.capture = nil, nil
		got.fetchedAt, want.fetchedAt = time.Time{}, time.Time{}
		if got != want {
			t.Errorf("round trip = %+v, want %+v", got, want)
		}
	}
}

func TestHostRecordOperatorFields(t *testing.T) {
	d, n := 3*time.Second, int64(7)
	for _, want := range []hostRecord{
		{blocked: true},
		{policy: crawl.HostPolicy{Delay: &d}},
		{policy: crawl.HostPolicy{MaxPages: &n}, blocked: true, pol: politeness.HostState{Streak: 2}},
		{policy: crawl.HostPolicy{Delay: &d, MaxPages: &n}},
	} {
		got, err := decodeHostRecord(want.encode())
		if err != nil {
			t.Fatal(err)
		}
		if got.blocked != want.blocked || got.pol.Streak != want.pol.Streak ||
			(got.policy.Delay == nil) != (want.policy.Delay == nil) || got.policy.Delay != nil && *got.policy.Delay != d ||
			(got.policy.MaxPages == nil) != (want.policy.MaxPages == nil) || got.policy.MaxPages != nil && *got.policy.MaxPages != n {
			t.Errorf("round trip = %+v, want %+v", got, want)
		}
	}
}

// TestURLRecordExtension: importance, the change estimate and history
// round-trip, alone or with the older trailing fields; records written
// before they existed still decode.
func TestURLRecordExtension(t *testing.T) {
	s := freshness.Policy{}
	s.Default()
	st := s.Observe(s.NewState("daily"), freshness.Observation{At: time.UnixMilli(1_700_000_000_000)})
	at := time.Unix(1_700_000_100, 0)
	tests := []urlRecord{
		{state: urlQueued, depth: 3, prio: 9, seq: 4, cash: 0.25},
		{state: urlQueued, sitemapPrio: 801},
		{state: urlDone, status: 200, history: 3.5, cash: 0.125, content: 0xdeadbeefcafe, fresh: &st,
			changed: 4, lastChange: at, interval: 90 * time.Minute, nextVisit: at.Add(time.Hour)},
		{state: urlDone, status: 304, fresh: &st, valid: crawl.Validators{ETag: `"e"`}},
		{state: urlDone, changed: 1},
	}
	for _, want := range tests {
		got, err := decodeURLRecord(want.encode())
		if err != nil {
			t.Fatalf("decode(encode(%+v)): %v", want, err)
		}
		if (got.fresh == nil) != (want.fresh == nil) || got.fresh != nil && !sameState(*got.fresh, *want.fresh) {
			t.Errorf("change estimate = %+v, want %+v", got.fresh, want.fresh)
		}
		got.fresh, want.fresh = nil, nil
		if !got.lastChange.Equal(want.lastChange) || !got.nextVisit.Equal(want.nextVisit) {
			t.Errorf("times = %v, %v; want %v, %v", got.lastChange, got.nextVisit, want.lastChange, want.nextVisit)
		}
		got.lastChange, want.lastChange, got.nextVisit, want.nextVisit = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if got != want {
			t.Errorf("round trip = %+v, want %+v", got, want)
		}
	}
	old := urlRecord{state: urlDone, status: 200}.encode() // no extension
	if got, err := decodeURLRecord(old); err != nil || got.fresh != nil || got.cash != 0 {
		t.Errorf("a record without extension: %+v, %v", got, err)
	}
	for n := range len(tests[2].encode()) {
		if _, err := decodeURLRecord(tests[2].encode()[:n]); err == nil && n > 20 {
			// Cut inside the extension: must be refused, not misread.
			t.Errorf("a record cut to %d bytes decoded without error", n)
		}
	}
}

func sameState(a, b freshness.State) bool {
	return a.Changes == b.Changes && a.Exposure == b.Exposure && a.Visits == b.Visits && a.Last.Equal(b.Last) &&
		a.LastModified.Equal(b.LastModified) && a.LastModifiedWrong == b.LastModifiedWrong
}

// FuzzURLRecord: no input makes the decoder panic, and what it accepts
// encodes to a record that decodes the same.
func FuzzURLRecord(f *testing.F) {
	st := freshness.State{Changes: 2, Exposure: 3600, Visits: 3, Last: time.UnixMilli(1_700_000_000_000)}
	f.Add(urlRecord{state: urlDone, status: 200, cash: 1, history: 2, fresh: &st, content: 7, changed: 1}.encode())
	f.Add(urlRecord{state: urlQueued, depth: 1, prio: 3, seq: 9}.encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeURLRecord(b)
		if err != nil {
			return
		}
		r2, err := decodeURLRecord(r.encode())
		if err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		if (r.fresh == nil) != (r2.fresh == nil) || r.state != r2.state || r.content != r2.content || r.changed != r2.changed {
			t.Fatalf("round trip changed the record: %+v → %+v", r, r2)
		}
	})
}

func TestHostRecordRecrawlFields(t *testing.T) {
	for _, want := range []hostRecord{
		{revisits: 3, capacity: 2.5},
		{revisits: 1, blocked: true},
		{capacity: 0.5, pol: politeness.HostState{Streak: 1}},
	} {
		got, err := decodeHostRecord(want.encode())
		if err != nil {
			t.Fatal(err)
		}
		if got.revisits != want.revisits || got.capacity != want.capacity || got.blocked != want.blocked || got.pol.Streak != want.pol.Streak {
			t.Errorf("round trip = %+v, want %+v", got, want)
		}
	}
}

// TestAliasesSurviveRestart: the alias rules an outcome carries are kept
// with the host record, handed out with the host's next lease, shown by
// Host, and still there after the frontier is closed and opened again.
func TestAliasesSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	p := politeness.Policy{Delay: time.Millisecond}
	f := openAt(t, dir, p)
	ctx := t.Context()
	if _, err := f.Add(ctx, []crawl.Link{link("a", 1), link("a", 2), link("a", 3)}); err != nil {
		t.Fatal(err)
	}
	rules := &crawl.HostAliases{Rules: []crawl.AliasEvidence{
		{Rule: crawl.AliasRule{Kind: crawl.AliasIndex, Param: "index.html"}, Confirmations: 2, Adopted: true}}}
	l := mustNext(t, f)
	if len(l.Aliases.Rules) != 0 {
		t.Fatalf("first lease has rules %+v", l.Aliases)
	}
	now := time.Now()
	if err := f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, Status: 200, Start: now, End: now, Aliases: rules}); err != nil {
		t.Fatal(err)
	}
	if got := hostInfo(t, f, "a").Aliases; !slices.Equal(got, rules.Rules) {
		t.Errorf("Host(a).Aliases = %+v, want %+v", got, rules.Rules)
	}
	l = mustNext(t, f)
	if !slices.Equal(l.Aliases.Rules, rules.Rules) {
		t.Errorf("next lease's rules = %+v, want %+v", l.Aliases.Rules, rules.Rules)
	}
	if err := f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Requeue}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f = openAt(t, dir, p)
	defer f.Close()
	if got := hostInfo(t, f, "a").Aliases; !slices.Equal(got, rules.Rules) {
		t.Errorf("after restart Host(a).Aliases = %+v, want %+v", got, rules.Rules)
	}
	l = mustNext(t, f)
	if !slices.Equal(l.Aliases.Rules, rules.Rules) {
		t.Errorf("after restart the lease's rules = %+v, want %+v", l.Aliases.Rules, rules.Rules)
	}
}

// trapState is a host's trap state with every field set.
func trapState() *crawl.HostTraps {
	reg := [256]uint8{0: 1, 1: 15, 2: 3, 255: 7}
	return &crawl.HostTraps{Seq: 9, Fetched: 321, Demoted: true, Budget: 1321,
		Templates: []crawl.TemplateTrap{
			{Hash: 0xfeedface12345678, Entry: 2, Pages: 14, Barren: 9},
			{Hash: 1, Entry: 0, Pages: 1, Barren: 0, Open: true}},
		Calendars: []crawl.CalendarTrap{{Hash: 0xabcdef, Steps: 6}},
		Sketch:    &reg}
}

// TestHostRecordTraps: a host's trap state survives the host record,
// after every earlier section, whichever of them are empty; a record
// without it, as written before it existed, reads as before; a record
// cut inside the section is refused, not misread.
func TestHostRecordTraps(t *testing.T) {
	full := trapState()
	bare := &crawl.HostTraps{Seq: 1, Fetched: 3}
	d := 2 * time.Second
	aliases := &crawl.HostAliases{Rules: []crawl.AliasEvidence{{Rule: crawl.AliasRule{Kind: crawl.AliasCase}, Confirmations: 1}}}
	for i, want := range []hostRecord{
		{nextSeq: 4, traps: full},
		{nextSeq: 4, traps: bare},
		{nextSeq: 4, fetched: 8, traps: full, aliases: aliases, errors: 2, revisits: 1, capacity: 0.5,
			policy: crawl.HostPolicy{Delay: &d}, pol: politeness.HostState{Streak: 3}},
	} {
		got, err := decodeHostRecord(want.encode())
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if got.traps == nil || !reflect.DeepEqual(*got.traps, *want.traps) {
			t.Errorf("%d: traps = %+v, want %+v", i, got.traps, want.traps)
		}
		if got.nextSeq != want.nextSeq || got.errors != want.errors || got.revisits != want.revisits ||
			got.pol.Streak != want.pol.Streak || (got.aliases == nil) != (want.aliases == nil) {
			t.Errorf("%d: the sections before the traps changed: %+v, want %+v", i, got, want)
		}
	}
	// Written before the section existed: no traps, the rest as before.
	old := hostRecord{nextSeq: 4, aliases: aliases, errors: 7}.encode()
	got, err := decodeHostRecord(old)
	if err != nil || got.traps != nil || got.errors != 7 || got.aliases == nil {
		t.Errorf("a record without traps = %+v, %v", got, err)
	}
	if got, err := decodeHostRecord(hostRecord{nextSeq: 4}.encode()); err != nil || got.traps != nil {
		t.Errorf("a bare record = %+v, %v", got, err)
	}
	rec := hostRecord{nextSeq: 4, traps: full}.encode()
	for n := len(hostRecord{nextSeq: 4, errors: 1}.encode()); n < len(rec); n++ {
		if got, err := decodeHostRecord(rec[:n]); err == nil && got.traps != nil {
			t.Errorf("a record cut to %d of %d bytes decoded traps %+v", n, len(rec), got.traps)
		}
	}
}

// TestTrapSectionSize: the section is bounded by what the crawl stores
// (16 templates, 16 calendars, the sketch): at most 720 bytes with every
// count at its largest, some tens for a host with one trap.
func TestTrapSectionSize(t *testing.T) {
	const big = math.MaxInt32
	s := crawl.HostTraps{Seq: math.MaxUint64, Fetched: math.MaxInt64, Demoted: true, Budget: math.MaxInt64, Sketch: &[256]uint8{}}
	for i := range 16 {
		s.Templates = append(s.Templates, crawl.TemplateTrap{Hash: ^uint64(i), Entry: 16000, Pages: big, Barren: big, Open: true})
		s.Calendars = append(s.Calendars, crawl.CalendarTrap{Hash: ^uint64(i), Steps: big})
	}
	if n := len(appendTraps(nil, s)); n > 720 {
		t.Errorf("trap section of the largest stored state: %d bytes, want at most 720", n)
	}
	one := crawl.HostTraps{Seq: 40, Fetched: 320, Templates: []crawl.TemplateTrap{{Hash: 1, Entry: 2, Pages: 9, Barren: 5}}}
	if n := len(appendTraps(nil, one)); n > 40 {
		t.Errorf("trap section of a host with one trap template: %d bytes, want at most 40", n)
	}
}

// A section with bytes after the fields this version knows (a later
// version's) reads as the fields it knows.
func TestTrapSectionSkipsLaterFields(t *testing.T) {
	s := *trapState()
	sec := appendTraps(nil, s)
	n, k := binary.Uvarint(sec)
	longer := binary.AppendUvarint(nil, n+3)
	longer = append(append(longer, sec[k:]...), 1, 2, 3)
	d := &decoder{b: longer}
	got := d.traps()
	if d.err != nil || !reflect.DeepEqual(got, s) || len(d.b) != 0 {
		t.Errorf("section with later fields = %+v (err %v, %d bytes left), want %+v", got, d.err, len(d.b), s)
	}
}

// TestTrapsSurviveRestart: the trap state an outcome carries is kept
// with the host record, handed out with the host's next lease, and
// still there after the frontier is closed and opened again.
func TestTrapsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	p := politeness.Policy{Delay: time.Millisecond}
	f := openAt(t, dir, p)
	ctx := t.Context()
	if _, err := f.Add(ctx, []crawl.Link{link("a", 1), link("a", 2), link("a", 3)}); err != nil {
		t.Fatal(err)
	}
	l := mustNext(t, f)
	if l.Traps != nil {
		t.Fatalf("first lease has trap state %+v", l.Traps)
	}
	want := trapState()
	now := time.Now()
	if err := f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, Status: 200, Start: now, End: now, Traps: want}); err != nil {
		t.Fatal(err)
	}
	l = mustNext(t, f)
	if l.Traps == nil || !reflect.DeepEqual(*l.Traps, *want) {
		t.Errorf("next lease's traps = %+v, want %+v", l.Traps, want)
	}
	// An outcome without trap state leaves the stored one alone.
	if err := f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, Status: 200, Start: now, End: now}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f = openAt(t, dir, p)
	defer f.Close()
	l = mustNext(t, f)
	if l.Traps == nil || !reflect.DeepEqual(*l.Traps, *want) {
		t.Errorf("after restart the lease's traps = %+v, want %+v", l.Traps, want)
	}
}

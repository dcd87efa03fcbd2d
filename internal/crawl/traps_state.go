package crawl

import (
	"cmp"
	"slices"
)

// A host's trap-defence state outlives the process that learnt it: the
// frontier keeps it with the host record, as it keeps alias rules, so a
// resumed crawl (kill -9 or a clean stop) and a cluster node that
// acquires the host's shard go on from what was learnt instead of paying
// each defence's window again. The state travels like alias rules: each
// lease carries the stored state (Lease.Traps), which load takes when
// this process has none newer, and an outcome carries the state back
// (Outcome.Traps) when it changed in a way that matters. What is stored
// is a bounded digest of the in-memory state:
//
//   - the pages fetched (the page budget's count), rewritten when it
//     grew by an eighth, or by trapStoreFetched pages, and with any
//     other change, so a restart loses at most that much of the count;
//   - the demotion and the page budget it set;
//   - at most trapStoreTemplates URL templates that had a page fetched,
//     the most fetched first, each by the 64-bit xxhash of its spelling
//     with its entry depth, pages, barren run and whether it is open;
//     a change is stored when a template has its first page, a
//     shallower entry, opens, or its barren run ends or grows while short
//     of its window, so an exhausted template causes no more writes;
//   - at most trapStoreCalendars calendar templates that took a step,
//     the most steps first, by hash with their step count (the URLs a
//     calendar admitted are not stored: after a restart a repeat counts
//     as a step, which refuses sooner, never later);
//   - the distinct-URL sketch once it counts trapStoreSketch URLs, its
//     registers clamped at 15 (exact up to hundreds of millions of URLs
//     a host), rewritten when its estimate grew by a sixteenth.
//
// In the frontier's encoding (docs/formats.md) that is at most 720 bytes
// with every count at its largest, and some tens for a host with one
// trap (TestTrapSectionSize in internal/frontier). A
// stored template or calendar not met again in this process is kept in a
// side table (bounded by the same limits) until its spelling comes up,
// and stored again with the others.

// Bounds of the stored trap state (see above).
const (
	trapStoreTemplates = 16
	trapStoreCalendars = 16
	trapStoreFetched   = 64
	trapStoreSketch    = 1024
)

// HostTraps is a host's trap-defence state as the frontier stores it
// with the host record (traps_state.go). A value handed over is never
// changed afterwards: the frontier may keep and share it.
type HostTraps struct {
	// Seq numbers the states stored for the host (by any node): a lease
	// carrying a higher Seq than the one this process last stored or
	// loaded holds state learnt elsewhere, which replaces its own.
	Seq uint64
	// Fetched counts the pages fetched from the host (Traps.HostPages).
	Fetched int64
	// Demoted: the anomaly throttle demoted the host; Budget is the page
	// budget that set.
	Demoted bool
	Budget  int64
	// Templates and Calendars are the URL templates and calendars the
	// host's pages taught, by the xxhash64 of their spelling.
	Templates []TemplateTrap
	Calendars []CalendarTrap
	// Sketch is the distinct-URL sketch (HyperLogLog registers); nil
	// while the host yielded fewer than 1,024 distinct URLs.
	Sketch *[256]uint8
}

// TemplateTrap is one URL template's state (traps_template.go).
type TemplateTrap struct {
	Hash   uint64
	Entry  int // the least depth of a URL of the template
	Pages  int // pages of it fetched
	Barren int // the last pages in a row that yielded nothing new
	Open   bool
}

// CalendarTrap is one calendar template's steps taken.
type CalendarTrap struct {
	Hash  uint64
	Steps int
}

// trapStore is what a host's in-memory state knows of its stored copy.
type trapStore struct {
	loaded  bool    // a lease's stored state was taken (load)
	seq     uint64  // the Seq last stored or loaded
	dirty   bool    // changed in a way the stored state must learn
	fetched int64   // fetched when last stored
	urls    float64 // the sketch's estimate when last stored; 0: not stored
	// Stored templates and calendars not met in this process yet.
	templates map[uint64]templateState
	calendars map[uint64]int
}

// load takes the host's stored trap state from its lease, unless this
// process holds state as new: the state it stored itself last, or loaded.
func (t *traps) load(l Lease) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ht := t.host(l.Task.Host)
	s := l.Traps
	if ht.store.loaded && (s == nil || s.Seq <= ht.store.seq) {
		return
	}
	if ht.store.loaded {
		// Stored by another node since this one last held the host (a
		// cluster shard that came back): its state is the newer.
		*ht = hostTraps{budget: t.cfg.HostPages}
	}
	ht.store.loaded = true
	if s == nil {
		return
	}
	ht.restore(s)
	ht.store.seq, ht.store.fetched = s.Seq, ht.fetched
	if s.Sketch != nil {
		ht.store.urls = ht.urls.estimate()
	}
}

// restore merges stored state s into ht, which holds only what links to
// the host found on other hosts' pages taught (no page of it fetched).
// t.mu must be held.
func (ht *hostTraps) restore(s *HostTraps) {
	ht.fetched += s.Fetched
	if s.Demoted {
		ht.demoted = true
		if ht.budget < 0 || s.Budget < ht.budget {
			ht.budget = s.Budget
		}
	}
	if s.Sketch != nil {
		for i, r := range s.Sketch {
			if r > ht.urls.reg[i] {
				ht.urls.reg[i] = r
				ht.urls.dirty = true
			}
		}
	}
	known := make(map[uint64]*templateState, len(ht.templates))
	for _, st := range ht.templates {
		known[st.hash] = st
	}
	for _, r := range s.Templates {
		st := templateState{hash: r.Hash, entry: r.Entry, pages: r.Pages, barren: r.Barren, open: r.Open}
		if m := known[r.Hash]; m != nil {
			st.entry = min(st.entry, m.entry)
			*m = st
			continue
		}
		if ht.store.templates == nil {
			ht.store.templates = make(map[uint64]templateState)
		}
		ht.store.templates[r.Hash] = st
	}
	for _, r := range s.Calendars {
		if cs := ht.calendarByHash(r.Hash); cs != nil {
			cs.steps += r.Steps
			continue
		}
		if ht.store.calendars == nil {
			ht.store.calendars = make(map[uint64]int)
		}
		ht.store.calendars[r.Hash] = r.Steps
	}
}

func (ht *hostTraps) calendarByHash(h uint64) *calendarState {
	for _, cs := range ht.calendar {
		if cs.hash == h {
			return cs
		}
	}
	return nil
}

// restoredTemplate fills st, a template new in memory, from the stored
// state when it was stored. t.mu must be held.
func (ht *hostTraps) restoredTemplate(st *templateState) {
	r, ok := ht.store.templates[st.hash]
	if !ok {
		return
	}
	delete(ht.store.templates, st.hash)
	r.entry = min(r.entry, st.entry)
	*st = r
}

// restoredCalendar fills cs, a calendar new in memory, likewise.
func (ht *hostTraps) restoredCalendar(cs *calendarState) {
	if n, ok := ht.store.calendars[cs.hash]; ok {
		delete(ht.store.calendars, cs.hash)
		cs.steps = n
	}
}

// persist hands the host's trap state to the frontier through out when
// the stored copy must learn of a change (traps_state.go).
func (t *traps) persist(host string, out *Outcome) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ht := t.hosts[host]
	if ht == nil || !ht.store.loaded {
		return
	}
	est := ht.urls.estimate()
	sketch := est >= trapStoreSketch && est >= ht.store.urls*17/16
	if !ht.store.dirty && !sketch && ht.fetched-ht.store.fetched < fetchedStep(ht.store.fetched) {
		return
	}
	s := ht.stored()
	ht.store.seq++
	s.Seq = ht.store.seq
	ht.store.dirty, ht.store.fetched = false, ht.fetched
	if s.Sketch != nil {
		ht.store.urls = est
	}
	out.Traps = s
}

// fetchedStep is how many pages fetched since the count was last stored
// (at stored) call for storing it again: an eighth of it, at least 1 and
// at most trapStoreFetched, so that a restart loses at most that much of
// the count, even in a crawl restarted often.
func fetchedStep(stored int64) int64 {
	return min(max(stored/8, 1), trapStoreFetched)
}

// stored is the digest of ht that the frontier stores. t.mu must be held.
func (ht *hostTraps) stored() *HostTraps {
	s := &HostTraps{Fetched: ht.fetched, Demoted: ht.demoted}
	if ht.demoted {
		s.Budget = ht.budget
	}
	for _, st := range ht.templates {
		if st.pages > 0 {
			s.Templates = append(s.Templates, st.stored())
		}
	}
	for _, st := range ht.store.templates {
		s.Templates = append(s.Templates, st.stored())
	}
	slices.SortFunc(s.Templates, func(a, b TemplateTrap) int {
		return cmp.Or(cmp.Compare(b.Pages, a.Pages), cmp.Compare(a.Hash, b.Hash))
	})
	s.Templates = slices.Clip(s.Templates[:min(len(s.Templates), trapStoreTemplates)])
	for _, cs := range ht.calendar {
		if cs.steps > 0 {
			s.Calendars = append(s.Calendars, CalendarTrap{Hash: cs.hash, Steps: cs.steps})
		}
	}
	for h, n := range ht.store.calendars {
		s.Calendars = append(s.Calendars, CalendarTrap{Hash: h, Steps: n})
	}
	slices.SortFunc(s.Calendars, func(a, b CalendarTrap) int {
		return cmp.Or(cmp.Compare(b.Steps, a.Steps), cmp.Compare(a.Hash, b.Hash))
	})
	s.Calendars = slices.Clip(s.Calendars[:min(len(s.Calendars), trapStoreCalendars)])
	if ht.urls.estimate() >= trapStoreSketch {
		reg := ht.urls.reg
		s.Sketch = &reg
	}
	return s
}

func (st templateState) stored() TemplateTrap {
	return TemplateTrap{Hash: st.hash, Entry: st.entry, Pages: st.pages, Barren: st.barren, Open: st.open}
}

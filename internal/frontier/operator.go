package frontier

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/freshness"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

// Host returns what the frontier knows about one host (its politeness
// key, as urlnorm.Host spells it): queue, effective delay and why, next
// ready time, error streak, breaker and robots.txt. ok is false for a
// host never seen.
func (f *Frontier) Host(name string) (info crawl.HostInfo, ok bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.hosts[name]
	if h == nil {
		// Idle: its records are in the store.
		var found bool
		if h, found, err = f.storedHost(name); err != nil || !found {
			return crawl.HostInfo{}, false, err
		}
	}
	if !h.robotsOK {
		// Loaded into a copy: an idle host stays out of memory, and an
		// active one loads its rules when it is next leased.
		c := *h
		if err := f.loadRobots(&c); err != nil {
			return crawl.HostInfo{}, false, err
		}
		h = &c
	}
	gap := f.gap(h)
	info = crawl.HostInfo{
		Name:            name,
		Queued:          h.rec.queued,
		Fetched:         h.rec.fetched,
		Leased:          h.leased,
		Delay:           gap,
		NextReady:       h.rec.readyAt,
		Waiting:         gap.Reason,
		Latency:         h.rec.pol.Latency,
		ErrorStreak:     h.rec.pol.Streak,
		Errors:          h.rec.errors,
		Breaker:         h.rec.pol.Breaker,
		Robots:          h.robots.Status,
		RobotsFetchedAt: h.robots.FetchedAt,
		Blocked:         h.rec.blocked,
		Policy:          h.rec.policy,
	}
	if g := h.ip; g != nil {
		info.IPGroup = g.key
		if h.parkIndex >= 0 || (g.released == h && h.ipReady.After(h.rec.readyAt) && h.ipReady.After(f.now())) {
			info.Waiting = politeness.ReasonIP
			info.NextReady = laterOf(h.rec.readyAt, g.nextStart)
		}
	}
	if h.rec.aliases != nil {
		info.Aliases = slices.Clone(h.rec.aliases.Rules)
	}
	info.Traps = h.rec.traps
	switch {
	case h.rec.blocked:
		info.Waiting = politeness.ReasonBlocked
	case h.rec.pol.Until.After(f.now()) && !h.rec.pol.Until.Before(h.rec.readyAt):
		info.Waiting = h.rec.pol.Why
	}
	return info, true, nil
}

// Control applies an operator's command and returns once it is on disk.
// A blocked host leaves the ready heap at once (a request in flight
// finishes); an unblocked one returns to it. A policy delay below the
// configured delay is refused (crawl.ErrBelowFloor) unless c.Force.
func (f *Frontier) Control(_ context.Context, c crawl.Control) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return errClosed
	}
	if c.Op == crawl.SetRevisitShare {
		return f.setRevisitShare(c.Share)
	}
	if c.Host == "" {
		return errors.New("frontier: control: no host")
	}
	if d := c.Policy.Delay; c.Op == crawl.SetHostPolicy && d != nil && *d < f.policy.Delay && !c.Force {
		// The floor: an override may slow a host down, not speed it up
		// past what the crawl was told, unless forced. (robots.txt
		// Crawl-delay applies on top either way: see gap.)
		return fmt.Errorf("%w: delay %v is below the crawl's delay of %v", crawl.ErrBelowFloor, *d, f.policy.Delay)
	}
	h := f.hosts[c.Host]
	if h == nil {
		// Idle or unknown: change its record in the store.
		var found bool
		var err error
		if h, found, err = f.storedHost(c.Host); err != nil {
			return err
		}
		if !found {
			f.counts.hosts++ // an operator may block a host before it is met
		}
	}
	switch c.Op {
	case crawl.SetHostPolicy:
		h.rec.policy = c.Policy
	case crawl.ClearHostPolicy:
		h.rec.policy = crawl.HostPolicy{}
	case crawl.BlockHost:
		h.rec.blocked = true
		f.blocked[c.Host] = struct{}{}
		f.hostCapacity -= h.rec.capacity // back when it is next fetched
		h.rec.capacity = 0
	case crawl.UnblockHost:
		h.rec.blocked = false
		delete(f.blocked, c.Host)
	default:
		return fmt.Errorf("frontier: control: unknown operation %d", c.Op)
	}
	b := f.db.NewBatch()
	if err := f.commit(b, map[*host]struct{}{h: {}}); err != nil {
		return err
	}
	if _, active := f.hosts[c.Host]; active {
		f.schedule(h)
	}
	f.broadcast()
	return f.db.Sync()
}

// Hosts lists up to limit hosts, active or not, ordered by "queued",
// "fetched" or "errors" (failed attempts), most first, then by name. It
// reads every host record: an operator's query, not a hot path.
func (f *Frontier) Hosts(sortBy string, limit int) ([]crawl.HostInfo, error) {
	var key func(crawl.HostInfo) int
	switch sortBy {
	case "", "queued":
		key = func(h crawl.HostInfo) int { return h.Queued }
	case "fetched":
		key = func(h crawl.HostInfo) int { return h.Fetched }
	case "errors":
		key = func(h crawl.HostInfo) int { return h.Errors }
	default:
		return nil, fmt.Errorf("frontier: hosts: unknown order %q", sortBy)
	}
	f.mu.Lock()
	it, err := f.db.Scan([]byte{tagHost}, []byte{tagHost + 1})
	if err != nil {
		f.mu.Unlock()
		return nil, err
	}
	var names []string
	for ; it.Valid(); it.Next() {
		names = append(names, string(it.Key()[3:]))
	}
	err = it.Close()
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	infos := make([]crawl.HostInfo, 0, len(names))
	for _, n := range names {
		info, ok, err := f.Host(n)
		if err != nil {
			return nil, err
		}
		if ok {
			infos = append(infos, info)
		}
	}
	slices.SortFunc(infos, func(a, b crawl.HostInfo) int {
		if c := cmp.Compare(key(b), key(a)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	if limit > 0 && len(infos) > limit {
		infos = infos[:limit]
	}
	return infos, nil
}

// URL returns what the frontier knows of the URL with this canonical key
// on this host; ok is false for a URL never added.
func (f *Frontier) URL(host, key string) (info crawl.URLInfo, ok bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rec, err := f.urlView(host, key)
	if err != nil || rec.state == 0 {
		return crawl.URLInfo{}, false, err
	}
	info = crawl.URLInfo{
		Key:        key,
		Host:       host,
		Queued:     rec.state == urlQueued,
		Revisit:    rec.state == urlQueued && rec.prio == revisitBand,
		Depth:      rec.depth,
		Status:     rec.status,
		FetchedAt:  rec.fetchedAt,
		Validators: rec.valid,
		Capture:    rec.capture,
		NextVisit:  rec.nextVisit,
		Changed:    int(rec.changed),
		LastChange: rec.lastChange,
		Interval:   rec.interval,
		Importance: f.importance(rec),
		Cash:       rec.cash,
		History:    rec.history,
	}
	if rec.state == urlQueued && rec.prio != revisitBand {
		info.Band = int(rec.prio - firstBand)
	} else {
		info.Band = int(f.band(rec) - firstBand)
	}
	if rec.fresh != nil {
		p := freshness.Policy{}
		if f.re != nil {
			p = f.re.policy
		}
		p.Default()
		info.ChangeRate = p.Rate(*rec.fresh)
		info.Visits = int(rec.fresh.Visits)
		if rec.fresh.Changes > 0 {
			info.RateError = 1 / math.Sqrt(float64(rec.fresh.Changes))
		}
	}
	return info, true, nil
}

// urlRecord reads the stored record of one URL key, without its unsaved
// OPIC cash (see urlView). A caller that writes it back does so with
// storeURL (cash.go).
func (f *Frontier) urlRecord(host, key string) (urlRecord, error) {
	v, ok, err := f.db.Get(urlKey(host, key))
	if err != nil || !ok {
		return urlRecord{}, err
	}
	return decodeURLRecord(v)
}

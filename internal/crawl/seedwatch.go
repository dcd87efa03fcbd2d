package crawl

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// seedWatch follows what became of the seeds given to AddSeeds in this
// run, so that a crawl that can fetch nothing says so, and says why,
// instead of waiting minutes on robots.txt retries (docs/decisions.md,
// "A crawl that can fetch nothing gives up").
//
// A seed fails when its task ends in an error (its host unreachable, the
// SSRF guard, robots.txt disallowing it, an HTTP error), or when its host
// failed at the first contact (robots.txt unreachable) and no host has
// answered anything yet. Safe for concurrent use.
type seedWatch struct {
	mu        sync.Mutex
	seeds     map[string]*seedState // by crawl key
	hosts     map[string]string     // seed host → why its last contact failed ("" none yet)
	unwatched int                   // seeds past maxWatchedSeeds
	responded bool                  // some host answered something in this run
	gaveUp    bool                  // hopeless has said so
	// answered is responded, read without the lock: once a host has
	// answered, an answer that is not a failure tells the watch nothing
	// more (a host's reason matters only for a seed dropped after
	// robots.txt failures, which set it afresh), so it skips the lock.
	answered atomic.Bool
}

// maxWatchedSeeds bounds the watch's memory: a broad crawl's million
// seeds are not all followed. Past it, "every seed failed" is only said
// when no host answered at all.
const maxWatchedSeeds = 10000

type seedState struct {
	url, host string
	done, ok  bool
	reason    string
}

// SeedFailure is a seed that could not be fetched, and why, in a few
// words ("no such host", "connection refused", "robots.txt disallows it").
type SeedFailure struct {
	URL, Host, Reason string
}

// SeedReport is what became of the seeds given to AddSeeds in this run.
type SeedReport struct {
	Seeds     int           // seeds watched
	Unwatched int           // seeds past the watch's bound (see AllFailed)
	OK        int           // fetched (any answer but an error status)
	Failed    []SeedFailure // failed, in no particular order
	Responded bool          // some host answered some request
}

// AllFailed reports whether the crawl had seeds and every one of them
// failed (with seeds past the watch's bound: every one watched, and no
// host answered anything).
func (r SeedReport) AllFailed() bool {
	return r.Seeds > 0 && len(r.Failed) == r.Seeds && (r.Unwatched == 0 || !r.Responded)
}

func (w *seedWatch) add(l Link) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seeds == nil {
		w.seeds, w.hosts = map[string]*seedState{}, map[string]string{}
	}
	if _, ok := w.seeds[l.Key]; ok {
		return
	}
	if len(w.seeds) >= maxWatchedSeeds {
		w.unwatched++
		return
	}
	w.seeds[l.Key] = &seedState{url: l.URL, host: l.Host}
	if _, ok := w.hosts[l.Host]; !ok {
		w.hosts[l.Host] = ""
	}
}

// contact notes the end of a request to host: answered, or failed for
// reason.
func (w *seedWatch) contact(host string, answered bool, reason string) {
	if answered && reason == "" && w.answered.Load() {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if answered {
		w.responded = true
		w.answered.Store(true)
	}
	if _, ok := w.hosts[host]; ok {
		w.hosts[host] = reason
	}
}

// done notes the final outcome of a task, when it is a seed's.
func (w *seedWatch) done(t Task, out Outcome) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.seeds[t.Key]
	if s == nil || s.done {
		return
	}
	s.done = true
	switch {
	case out.Class == ClassNone:
		s.ok = true
	case out.Reason == reasonRobotsUnavailable:
		s.reason = "robots.txt unreachable"
		if why := w.hosts[s.host]; why != "" {
			s.reason = why
		}
	case out.Reason == ReasonRobotsDisallowed:
		s.reason = "robots.txt disallows it"
	case out.Status != 0:
		s.reason = fmt.Sprintf("HTTP status %d", out.Status)
	default:
		s.reason = out.Reason
	}
}

// hopeless reports whether nothing in this run has answered and every
// seed has failed, its host failing at the first contact included: then
// waiting for robots.txt retries (minutes apart, politely) can only end
// the same way. hosts counts the hosts the crawl knows: more than the
// seeds' (a resumed crawl) means there may be other work.
func (w *seedWatch) hopeless(hosts func() int) bool {
	w.mu.Lock()
	if w.responded || w.gaveUp || w.unwatched > 0 || len(w.seeds) == 0 {
		w.mu.Unlock()
		return false
	}
	for _, s := range w.seeds {
		if !s.failed(w.hosts) {
			w.mu.Unlock()
			return false
		}
	}
	n := len(w.hosts)
	w.mu.Unlock()
	if hosts() > n {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	first := !w.gaveUp
	w.gaveUp = true
	return first
}

func (s *seedState) failed(hosts map[string]string) bool {
	if s.done {
		return !s.ok
	}
	return hosts[s.host] != ""
}

func (w *seedWatch) report() SeedReport {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := SeedReport{Seeds: len(w.seeds), Unwatched: w.unwatched, Responded: w.responded}
	for _, s := range w.seeds {
		switch {
		case s.done && s.ok:
			r.OK++
		case s.failed(w.hosts) && (s.done || !w.responded):
			reason := s.reason
			if !s.done {
				reason = w.hosts[s.host]
			}
			r.Failed = append(r.Failed, SeedFailure{URL: s.url, Host: s.host, Reason: reason})
		}
	}
	return r
}

// Seeds reports what became of the seeds given to AddSeeds in this run.
func (c *Crawler) Seeds() SeedReport { return c.seeds.report() }

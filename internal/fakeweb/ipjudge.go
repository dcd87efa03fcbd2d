package fakeweb

import "time"

// ipTrack is the judge's running state for one local address.
type ipTrack struct {
	requests  int
	lastStart time.Time
	ends      []time.Time // Ends of the requests that may still be in flight; zero: never finished
}

// judgeIP holds q, a direct request, to the IP budget of its local
// address, timing it by Request.At (the kernel's receive time on Linux).
// The requests are judged in the order of At, so the requests in flight
// when q started are those before it that had not ended.
func (r *Report) judgeIP(ips map[string]*ipTrack, q *Request, j Judge) {
	t := ips[q.Local]
	if t == nil {
		t = &ipTrack{}
		ips[q.Local] = t
	}
	if r.IPPeak == nil {
		r.IPPeak, r.IPMinGap = map[string]int{}, map[string]time.Duration{}
	}
	live := t.ends[:0]
	for _, e := range t.ends {
		if e.IsZero() || e.After(q.At()) {
			live = append(live, e)
		}
	}
	t.ends = live
	if j.IPConcurrency > 0 && len(t.ends) >= j.IPConcurrency {
		r.IPConcurrencyViolations++
		r.flag(ViolationIPConcurrency, q, "started while %d requests to %s were in flight; %d allowed", len(t.ends), q.Local, j.IPConcurrency)
	}
	t.ends = append(t.ends, q.End)
	r.IPPeak[q.Local] = max(r.IPPeak[q.Local], len(t.ends))
	if t.requests > 0 {
		gap := q.At().Sub(t.lastStart)
		if m, ok := r.IPMinGap[q.Local]; !ok || gap < m {
			r.IPMinGap[q.Local] = gap
		}
		if j.IPDelay > 0 && gap < j.IPDelay-j.IPTolerance {
			r.IPGapViolations++
			r.flag(ViolationIPGap, q, "started %v after the previous request to %s; %v required", gap, q.Local, j.IPDelay)
		}
	}
	t.requests++
	t.lastStart = q.At()
}

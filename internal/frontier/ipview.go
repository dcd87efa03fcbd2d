package frontier

import "time"

// The operator's view of the IP budget (docs/admin.md, "IP groups"):
// what IPGroups lists per address and IPSummary counts over them. Both
// read the groups under the lock and change nothing.

// IPSummary is the frontier's IP budget as a whole.
type IPSummary struct {
	// On: the frontier keeps IP groups (Options.Resolve set: fetching
	// directly, not through a proxy).
	On bool
	// Concurrency and Delay are Options.IPConcurrency (0: no bound) and
	// Options.IPDelay.
	Concurrency int
	Delay       time.Duration
	// Groups counts the IP groups; Full, those with as many leases out
	// as their limit allows.
	Groups, Full int
	// Waiting counts the hosts held back by their group now (as
	// Stats.WaitingIP); Waits, the times a host ready by its own rules
	// was held back by its group since the frontier was opened.
	Waiting int
	Waits   int64
}

// IPSummary reads the IP budget's summary.
func (f *Frontier) IPSummary() IPSummary {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := IPSummary{On: f.ipc.on(), Concurrency: f.ipc.concurrency, Delay: f.ipc.delay,
		Groups: len(f.groups), Waiting: f.waitingIP(f.now()), Waits: f.ipWaits}
	for _, g := range f.groups {
		if !g.room(f.ipc) {
			s.Full++
		}
	}
	return s
}

// limit is how many leases g may have out now: IPConcurrency, bounded
// further by the shared budget's Limit in cluster mode; 0 when nothing
// bounds it. f.mu must be held (the budget's Limit is called with it,
// as room calls it).
func (g *ipGroup) limit(c ipConfig) int {
	n := c.concurrency
	if c.budget != nil {
		if b := c.budget.Limit(g.key); n <= 0 || b < n {
			n = b
		}
	}
	return n
}

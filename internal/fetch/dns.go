package fetch

import (
	"container/list"
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// Resolver looks up the IP addresses of a host name; network is "ip",
// "ip4" or "ip6". *net.Resolver implements it, and net.DefaultResolver is
// what a Client uses when Config.Resolver is nil.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// TTLResolver is a Resolver that also reports how long its answer may be
// cached. The cache clamps the TTL to [Config.DNSMinTTL, Config.DNSMaxTTL].
type TTLResolver interface {
	Resolver
	LookupNetIPTTL(ctx context.Context, network, host string) ([]netip.Addr, time.Duration, error)
}

// DNSStats counts what the Client's DNS cache did since New.
type DNSStats struct {
	// Hits are lookups answered with cached addresses.
	Hits uint64
	// NegativeHits are lookups answered with a cached "no such host".
	NegativeHits uint64
	// Misses are queries sent to the Resolver.
	Misses uint64
	// Joins are lookups that waited for a query another Fetch had already
	// sent for the same host, instead of sending their own.
	Joins uint64
	// Evictions are live entries dropped because the cache was full.
	Evictions uint64
	// Entries is the number of entries held now, expired ones included.
	Entries int
}

// dnsCache answers host lookups from memory when it can. Entries live for
// a TTL (the Resolver's, clamped, or Config.DNSCacheTTL when it reports
// none); "no such host" is cached for Config.DNSNegativeTTL; other errors
// are not cached. Concurrent lookups of one host share one query. At most
// max entries are held: inserting into a full cache first drops expired
// entries from the old end, then the least recently inserted live one, so
// memory is bounded whatever the crawl's breadth.
//
// Lookups run on the caller's goroutine: the first caller for a host (the
// leader) queries with its own context, later callers wait for it or for
// their context. If the leader's context ends first, a waiter whose own
// context is still live becomes the next leader.
type dnsCache struct {
	resolver Resolver
	ttl      time.Duration // for answers without a TTL
	minTTL   time.Duration
	maxTTL   time.Duration
	negTTL   time.Duration
	max      int
	now      func() time.Time

	mu       sync.Mutex
	entries  map[string]*list.Element // of *dnsEntry
	order    *list.List               // oldest insertion at the front
	inflight map[string]*dnsCall
	stats    DNSStats
}

type dnsEntry struct {
	host    string
	addrs   []netip.Addr
	err     error // a cached NXDOMAIN
	expires time.Time
}

// dnsCall is one query in flight; done is closed when addrs and err are
// set.
type dnsCall struct {
	done  chan struct{}
	addrs []netip.Addr
	err   error
}

func newDNSCache(cfg Config, now func() time.Time) *dnsCache {
	r := cfg.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	return &dnsCache{
		resolver: r,
		ttl:      cfg.DNSCacheTTL,
		minTTL:   cfg.DNSMinTTL,
		maxTTL:   cfg.DNSMaxTTL,
		negTTL:   cfg.DNSNegativeTTL,
		max:      cfg.DNSCacheSize,
		now:      now,
		entries:  make(map[string]*list.Element),
		order:    list.New(),
		inflight: make(map[string]*dnsCall),
	}
}

// lookup returns the addresses of host, from the cache or the Resolver.
// The returned slice is shared: callers must not modify it.
func (c *dnsCache) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	key := strings.ToLower(host)
	for {
		c.mu.Lock()
		if el, ok := c.entries[key]; ok {
			e := el.Value.(*dnsEntry)
			if c.now().Before(e.expires) {
				if e.err != nil {
					c.stats.NegativeHits++
				} else {
					c.stats.Hits++
				}
				c.mu.Unlock()
				return e.addrs, e.err
			}
		}
		if call, ok := c.inflight[key]; ok {
			c.stats.Joins++
			c.mu.Unlock()
			select {
			case <-call.done:
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
			if isContextErr(call.err) && ctx.Err() == nil {
				continue // the leader gave up, not the resolver: ask again
			}
			return call.addrs, call.err
		}
		call := &dnsCall{done: make(chan struct{})}
		c.inflight[key] = call
		c.stats.Misses++
		c.mu.Unlock()

		addrs, ttl, err := c.query(ctx, key)
		call.addrs, call.err = addrs, err

		c.mu.Lock()
		delete(c.inflight, key)
		switch {
		case err == nil:
			c.insert(key, addrs, nil, ttl)
		case isNotFound(err):
			c.insert(key, nil, err, c.negTTL)
		}
		c.mu.Unlock()
		close(call.done)
		return addrs, err
	}
}

// query asks the Resolver, and says how long the answer may be kept.
func (c *dnsCache) query(ctx context.Context, host string) ([]netip.Addr, time.Duration, error) {
	var (
		addrs []netip.Addr
		ttl   = c.ttl
		err   error
	)
	if tr, ok := c.resolver.(TTLResolver); ok {
		addrs, ttl, err = tr.LookupNetIPTTL(ctx, "ip", host)
		ttl = min(max(ttl, c.minTTL), c.maxTTL)
	} else {
		addrs, err = c.resolver.LookupNetIP(ctx, "ip", host)
	}
	if err == nil && len(addrs) == 0 {
		err = &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	if err != nil {
		return nil, 0, err
	}
	return addrs, ttl, nil
}

// insert stores an entry; c.mu is held.
func (c *dnsCache) insert(key string, addrs []netip.Addr, err error, ttl time.Duration) {
	if c.max <= 0 || ttl <= 0 {
		return
	}
	now := c.now()
	e := &dnsEntry{host: key, addrs: addrs, err: err, expires: now.Add(ttl)}
	if el, ok := c.entries[key]; ok {
		el.Value = e
		c.order.MoveToBack(el)
		return
	}
	for c.order.Len() >= c.max {
		front := c.order.Front()
		old := front.Value.(*dnsEntry)
		if now.Before(old.expires) {
			c.stats.Evictions++
		}
		c.order.Remove(front)
		delete(c.entries, old.host)
	}
	// Also drop a few expired entries from the old end, so names looked up
	// once do not sit there until the cache fills.
	for i := 0; i < 2; i++ {
		front := c.order.Front()
		if front == nil || now.Before(front.Value.(*dnsEntry).expires) {
			break
		}
		c.order.Remove(front)
		delete(c.entries, front.Value.(*dnsEntry).host)
	}
	c.entries[key] = c.order.PushBack(e)
}

func (c *dnsCache) snapshot() DNSStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Entries = c.order.Len()
	return s
}

// isNotFound reports an authoritative "no such host" (NXDOMAIN, or no
// address records), the one failure worth caching.
func isNotFound(err error) bool {
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) && dnsErr.IsNotFound
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

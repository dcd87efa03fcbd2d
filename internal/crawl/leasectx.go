package crawl

import "context"

// leaseCtxKey is the context key of WithLease.
type leaseCtxKey struct{}

type leaseRef struct {
	id   uint64
	host string
}

// WithLease returns ctx marked as the context in which a worker adds the
// links of lease l's page (Frontier.Add). A Frontier may use it to keep
// those links with the lease until its Complete (cluster mode puts a
// page's links to its own shard in the page's outcome event); one that
// does not look is unaffected.
func WithLease(ctx context.Context, l Lease) context.Context {
	return context.WithValue(ctx, leaseCtxKey{}, leaseRef{l.ID, l.Task.Host})
}

// LeaseOf returns the ID and host of the lease WithLease marked ctx
// with; ok is false when it is not marked.
func LeaseOf(ctx context.Context) (id uint64, host string, ok bool) {
	r, ok := ctx.Value(leaseCtxKey{}).(leaseRef)
	return r.id, r.host, ok
}

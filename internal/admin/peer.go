package admin

import "context"

// ForwardedHeader marks a request that a node of a cluster crawl sends
// another node's admin API for its own caller (a host the first node
// does not schedule: GET /api/hosts/{host}); its value is the first
// node's ID. The node asked answers from its own state and forwards no
// further, so two nodes that disagree for a moment about who owns a
// shard cannot send a request back and forth.
const ForwardedHeader = "Godwit-Forwarded-By"

type forwardedKey struct{}

// Forwarded is the node that forwarded the request ctx serves (the
// ForwardedHeader's value); "" when it was not forwarded.
func Forwarded(ctx context.Context) string {
	by, _ := ctx.Value(forwardedKey{}).(string)
	return by
}

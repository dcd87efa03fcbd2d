package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/frontier"
)

// A host's state in a cluster crawl lives on the node that owns its
// shard (docs/cluster.md, "Status"). A node asked about a host it does
// not schedule asks the owner's admin API, as listed in the owner's
// member key, with this node's admin token (a cluster's nodes share
// one); when it cannot, it answers 404 naming the owner and where its
// API is, rather than a bare "never seen".

// ownerHost answers GET /api/hosts/{name} for a host this node does not
// hold.
func (b *backend) ownerHost(ctx context.Context, name string) (admin.Host, error) {
	self := b.cluster.Node()
	shard := frontier.ShardOf(name)
	node, addr, err := b.cluster.HostOwner(ctx, name)
	switch {
	case err != nil:
		return admin.Host{}, fmt.Errorf("%w: host %q is not on this node (%s), and its shard's owner could not be read: %v",
			admin.ErrNotFound, name, self, err)
	case node == "":
		return admin.Host{}, fmt.Errorf("%w: host %q: its shard (%d) has no owner now (a node joins or leaves); ask again shortly",
			admin.ErrNotFound, name, shard)
	case node == self:
		return admin.Host{}, fmt.Errorf("%w: host %q", admin.ErrNotFound, name)
	case addr == "" || addr == b.cluster.Admin():
		// An owner with no admin API, or one listed at this node's own
		// address (its loopback address on another machine).
		return admin.Host{}, fmt.Errorf("%w: host %q is scheduled by node %s (shard %d), not this node (%s); ask that node's admin API",
			admin.ErrNotFound, name, node, shard, self)
	}
	h, err := b.askPeer(ctx, addr, name)
	if err != nil {
		return admin.Host{}, fmt.Errorf("%w: host %q is scheduled by node %s (shard %d), not this node (%s); its admin API at %s: %v",
			admin.ErrNotFound, name, node, shard, self, addr, err)
	}
	if h.Node == "" {
		h.Node = node
	}
	return h, nil
}

// askPeer gets host from the admin API at addr, as forwarded by this
// node.
func (b *backend) askPeer(ctx context.Context, addr, host string) (admin.Host, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	u := url.URL{Scheme: "http", Host: addr, Path: "/api/hosts/" + host}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return admin.Host{}, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set(admin.ForwardedHeader, b.cluster.Node())
	if b.adminToken != "" {
		req.Header.Set("Authorization", "Bearer "+b.adminToken)
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		return admin.Host{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return admin.Host{}, err
	}
	if resp.StatusCode != http.StatusOK {
		var e admin.ErrorBody
		if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
			return admin.Host{}, fmt.Errorf("%s: %s", resp.Status, e.Error.Message)
		}
		return admin.Host{}, fmt.Errorf("%s", resp.Status)
	}
	var h admin.Host
	if err := json.Unmarshal(data, &h); err != nil {
		return admin.Host{}, fmt.Errorf("bad answer: %w", err)
	}
	if h.Name != host {
		return admin.Host{}, fmt.Errorf("answered for host %q", h.Name)
	}
	return h, nil
}

package fetch_test

import (
	"context"
	"net/netip"
	"slices"
	"testing"

	"github.com/godwit-crawler/godwit/internal/fetch"
)

// tableResolver answers from a map and counts its queries.
type tableResolver struct {
	addrs   map[string][]netip.Addr
	queries int
}

func (r *tableResolver) LookupNetIP(_ context.Context, _ string, host string) ([]netip.Addr, error) {
	r.queries++
	return r.addrs[host], nil
}

func TestLookupHost(t *testing.T) {
	r := &tableResolver{addrs: map[string][]netip.Addr{
		"dns.example": {netip.MustParseAddr("192.0.2.7"), netip.MustParseAddr("192.0.2.8")},
	}}
	var overrides []fetch.Override
	for _, s := range []string{"h1.example:443:127.0.0.2:8443", "h2.example:127.0.0.3", "h3.example:8080:127.0.0.4"} {
		o, err := fetch.ParseOverride(s)
		if err != nil {
			t.Fatal(err)
		}
		overrides = append(overrides, o)
	}
	c, err := fetch.New(fetch.Config{UserAgent: "godwit-test", Resolver: r, Overrides: overrides, AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for host, want := range map[string]string{
		"h1.example":      "127.0.0.2", // override for 443
		"h2.example:9000": "127.0.0.3", // override for any port
		"h3.example:8080": "127.0.0.4",
		"10.1.2.3":        "10.1.2.3",
		"[2001:db8::1]":   "2001:db8::1",
		"[2001:db8::1]:8": "2001:db8::1",
		"dns.example":     "192.0.2.7",
	} {
		got, err := c.LookupHost(t.Context(), host)
		if err != nil || len(got) == 0 || got[0] != netip.MustParseAddr(want) {
			t.Errorf("LookupHost(%s) = %v, %v; want %s first", host, got, err, want)
		}
	}
	if r.queries != 1 {
		t.Errorf("%d DNS queries, want 1 (only dns.example)", r.queries)
	}
	// The fetch's own lookup finds the answer cached.
	again, _ := c.LookupHost(t.Context(), "dns.example")
	if r.queries != 1 || !slices.Equal(again, r.addrs["dns.example"]) {
		t.Errorf("second lookup: %v after %d queries, want the cached answer", again, r.queries)
	}
	if st := c.DNSStats(); st.Hits != 1 || st.Misses != 1 {
		t.Errorf("DNS stats %+v, want 1 hit and 1 miss", st)
	}
	if c.Proxied() {
		t.Error("Proxied() without a proxy")
	}
	p, err := fetch.New(fetch.Config{UserAgent: "godwit-test", Proxy: "http://127.0.0.1:3128"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !p.Proxied() {
		t.Error("Proxied() = false with a proxy")
	}
}

package admin

import (
	"context"
	"testing"
)

// forwardFake records the node a host lookup was forwarded by.
type forwardFake struct {
	fakeBackend
	by []string
}

func (f *forwardFake) Host(ctx context.Context, name string) (Host, error) {
	f.by = append(f.by, Forwarded(ctx))
	return Host{Name: name}, nil
}

// TestForwardedHostLookup: a host lookup with the Godwit-Forwarded-By
// header tells the backend which node forwarded it; one without, none.
func TestForwardedHostLookup(t *testing.T) {
	f := &forwardFake{}
	ts, _ := newTestServer(t, f, Options{})
	if r := do(t, ts, "GET", "/api/hosts/h1.example", ""); r.status != 200 {
		t.Fatalf("GET host: %d %s", r.status, r.body)
	}
	if r := do(t, ts, "GET", "/api/hosts/h1.example", "", ForwardedHeader, "n2"); r.status != 200 {
		t.Fatalf("GET host, forwarded: %d %s", r.status, r.body)
	}
	if len(f.by) != 2 || f.by[0] != "" || f.by[1] != "n2" {
		t.Errorf("Forwarded(ctx) = %q, want \"\" then \"n2\"", f.by)
	}
}

package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"syscall"
	"testing"
)

func TestReason(t *testing.T) {
	dial := func(err error) error {
		return fmt.Errorf("fetch: get http://a.test/robots.txt: %w", &net.OpError{Op: "dial", Net: "tcp", Err: err})
	}
	tests := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("fetch: get http://127.0.0.1/: %w", fmt.Errorf("%w 127.0.0.1", ErrForbiddenAddress)), "address refused by the SSRF guard (127.0.0.1)"},
		{fmt.Errorf("fetch: get http://x/: %w", &forbiddenError{host: "evil.test", addr: netip.MustParseAddr("127.0.0.1")}), "address refused by the SSRF guard (evil.test resolves to 127.0.0.1)"},
		{dial(&net.DNSError{Err: "no such host", Name: "a.invalid", IsNotFound: true}), "no such host"},
		{dial(&net.DNSError{Err: "server misbehaving", Name: "a.test", IsTemporary: true}), "DNS lookup failed: server misbehaving"},
		{dial(os.NewSyscallError("connect", syscall.ECONNREFUSED)), "connection refused"},
		{dial(os.NewSyscallError("read", syscall.ECONNRESET)), "connection reset"},
		{fmt.Errorf("fetch: get http://a.test/: %w", context.DeadlineExceeded), "timed out"},
		{fmt.Errorf("fetch: get http://a.test/: %w", errors.New("something odd")), "something odd"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := Reason(tt.err); got != tt.want {
			t.Errorf("Reason(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

package fetch

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
)

func TestClassify(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("fetch: get http://x/: %w", err) }
	tests := []struct {
		name string
		err  error
		want Class
	}{
		{"nil", nil, 0},
		{"forbidden", wrap(fmt.Errorf("%w 127.0.0.1", ErrForbiddenAddress)), Policy},
		{"forbidden in dial", wrap(&net.OpError{Op: "dial", Net: "tcp", Err: ErrForbiddenAddress}), Policy},
		{"too large", wrap(ErrTooLarge), Policy},
		{"invalid url", wrap(ErrInvalidURL), Permanent},
		{"unsupported scheme", wrap(ErrUnsupportedScheme), Permanent},
		{"unsupported encoding", wrap(ErrUnsupportedEncoding), Permanent},
		{"nxdomain", wrap(&net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}}), Permanent},
		{"dns temporary", wrap(&net.DNSError{Err: "server misbehaving", Name: "x", IsTemporary: true}), Transient},
		{"dns timeout", wrap(&net.DNSError{Err: "i/o timeout", Name: "x", IsTimeout: true}), Transient},
		{"unknown authority", wrap(x509.UnknownAuthorityError{}), Permanent},
		{"hostname mismatch", wrap(x509.HostnameError{Host: "x"}), Permanent},
		{"expired", wrap(x509.CertificateInvalidError{Reason: x509.Expired}), Permanent},
		{"deadline", wrap(context.DeadlineExceeded), Transient},
		{"our timeout", wrap(errTimeout), Transient},
		{"canceled", wrap(context.Canceled), Transient},
		{"refused", wrap(&net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), Transient},
		{"reset", wrap(&net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), Transient},
		{"unexpected eof", wrap(io.ErrUnexpectedEOF), Transient},
		{"unknown", errors.New("something odd"), Transient},
	}
	for _, tt := range tests {
		if got := Classify(tt.err); got != tt.want {
			t.Errorf("Classify(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestClassString(t *testing.T) {
	for c, want := range map[Class]string{0: "none", Transient: "transient", Permanent: "permanent", Policy: "policy", 9: "Class(9)"} {
		if got := c.String(); got != want {
			t.Errorf("Class(%d).String() = %q, want %q", int(c), got, want)
		}
	}
}

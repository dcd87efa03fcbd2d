package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
)

// Sentinel errors. Errors returned by this package wrap one of these (or an
// error from the network stack) so callers can test with errors.Is and
// decide what to do with Classify.
var (
	// ErrForbiddenAddress reports a refusal by the SSRF guard: the target
	// resolved to (or literally is) a loopback, private, link-local,
	// multicast, unspecified or otherwise non-public address.
	ErrForbiddenAddress = errors.New("fetch: forbidden address")
	// ErrInvalidURL reports a request URL that is not an absolute URL
	// with a host.
	ErrInvalidURL = errors.New("fetch: invalid url")
	// ErrUnsupportedScheme reports a request URL whose scheme is neither
	// http nor https.
	ErrUnsupportedScheme = errors.New("fetch: unsupported scheme")
	// ErrUnsupportedEncoding reports a Content-Encoding Decode cannot undo.
	ErrUnsupportedEncoding = errors.New("fetch: unsupported content encoding")
	// ErrTooLarge reports a decoded body that exceeds
	// Config.MaxDecodedBytes (a compression bomb, or just a huge page).
	ErrTooLarge = errors.New("fetch: decoded body too large")
)

// Class says what a caller should do about an error: retry later, give up
// on the URL, or skip it because policy forbids it. It is the one mapping
// the rest of the crawler uses for log levels, metric labels and frontier
// outcomes.
//
// The zero Class is only returned by Classify(nil); its String is "none".
type Class int

const (
	// Transient errors may succeed if retried later: timeouts, refused or
	// reset connections, temporary DNS failures, cancelled requests.
	Transient Class = iota + 1
	// Permanent errors will not go away by retrying: malformed URLs,
	// unsupported schemes, non-existent domains, TLS certificate errors.
	Permanent
	// Policy errors are refusals by our own rules (the SSRF guard, size
	// caps): skip the URL, do not count it against the host.
	Policy
)

// String returns "transient", "permanent", "policy", or "none" for the zero
// Class.
func (c Class) String() string {
	switch c {
	case 0:
		return "none"
	case Transient:
		return "transient"
	case Permanent:
		return "permanent"
	case Policy:
		return "policy"
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// Classify maps an error from Fetch or Decode to a Class. Errors it does not
// recognise are Transient: retrying with backoff is the safe default, and
// the frontier's error streaks bound how often that happens. A non-2xx
// HTTP status is not an error at all (it is a Response), so 5xx never
// reaches Classify.
func Classify(err error) Class {
	if err == nil {
		return 0
	}
	switch {
	case errors.Is(err, ErrForbiddenAddress), errors.Is(err, ErrTooLarge):
		return Policy
	case errors.Is(err, ErrInvalidURL), errors.Is(err, ErrUnsupportedScheme),
		errors.Is(err, ErrUnsupportedEncoding):
		return Permanent
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return Transient
	case isTLSPermanent(err):
		return Permanent
	}
	switch TLSKind(err) {
	case TLSProtocol:
		return Permanent // the server will not speak our TLS next time either
	case TLSHandshakeTimeout:
		return Transient
	}

	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return Permanent // NXDOMAIN: the name does not exist
	}
	// Everything else (timeouts, refused or reset connections, temporary
	// DNS failures, EOF in the middle of a message, errors we do not know)
	// is worth another try later.
	return Transient
}

// isTLSPermanent reports certificate failures and servers that do not speak
// TLS at all; neither fixes itself on a retry minutes later.
func isTLSPermanent(err error) bool {
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
		record   tls.RecordHeaderError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) ||
		errors.As(err, &invalid) || errors.As(err, &hostname) ||
		errors.As(err, &record)
}

// TLS failure kinds, as TLSKind returns them: the names used in the crawl's
// summary, the admin API and the metrics.
const (
	// TLSUnknownAuthority: the chain does not lead to a trusted root
	// (self-signed, a private CA, a missing intermediate).
	TLSUnknownAuthority = "unknown-authority"
	// TLSExpired: a certificate of the chain has expired or is not yet
	// valid.
	TLSExpired = "expired"
	// TLSNameMismatch: the certificate is not for the host name asked.
	TLSNameMismatch = "name-mismatch"
	// TLSInvalid: any other reason the chain does not verify (a leaf
	// used as a CA, a constraint violated, an unusable key usage).
	TLSInvalid = "invalid-certificate"
	// TLSHandshakeTimeout: the handshake did not finish within
	// Config.TLSHandshakeTimeout.
	TLSHandshakeTimeout = "handshake-timeout"
	// TLSProtocol: the peers did not agree on TLS: an alert from the
	// server (no common version or cipher suite, handshake failure), a
	// version or message we refuse, or a server that does not speak TLS.
	TLSProtocol = "protocol"
)

// TLSKinds lists the TLS failure kinds in the order summaries print them.
var TLSKinds = []string{TLSUnknownAuthority, TLSExpired, TLSNameMismatch, TLSInvalid, TLSHandshakeTimeout, TLSProtocol}

// errTLSHandshake marks an error from the TLS handshake of a connection
// dialTLS made, so that the failures the tls package reports only as
// text ("tls: server selected unsupported protocol version") are still
// known to be TLS failures.
var errTLSHandshake = errors.New("tls handshake")

// TLSKind says what kind of TLS failure err is (one of TLSKinds), or ""
// when it is not a TLS failure. A connection closed or reset during the
// handshake is not one: that is the network's (and Transient).
func TLSKind(err error) string {
	var (
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
		record   tls.RecordHeaderError
		alert    tls.AlertError
		op       *net.OpError
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &unknown):
		return TLSUnknownAuthority
	case errors.As(err, &hostname):
		return TLSNameMismatch
	case errors.As(err, &invalid):
		if invalid.Reason == x509.Expired {
			return TLSExpired
		}
		return TLSInvalid
	case errors.Is(err, errTLSHandshakeTimeout):
		return TLSHandshakeTimeout
	case strings.Contains(err.Error(), "net/http: TLS handshake timeout"):
		// The transport's own handshake, inside a proxy tunnel.
		return TLSHandshakeTimeout
	case errors.As(err, &record), errors.As(err, &alert):
		return TLSProtocol
	case errors.As(err, &op) && op.Op == "remote error":
		// An alert from the peer (tls.Conn reports them so).
		return TLSProtocol
	case errors.Is(err, errTLSHandshake):
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
			errors.Is(err, syscall.ECONNRESET) || errors.Is(err, context.Canceled) ||
			errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
			return ""
		}
		return TLSProtocol
	}
	return ""
}

// Kinds of failed requests other than TLS failures, as ErrorKind names
// them (a TLS failure is "tls-" and its TLSKind). They are the names of
// the archive's fetch-error records (docs/formats.md).
const (
	// FailDNSNotFound: the name does not exist (NXDOMAIN).
	FailDNSNotFound = "dns-not-found"
	// FailDNSFailure: any other failed lookup (no answer, a server failure).
	FailDNSFailure = "dns-failure"
	// FailConnectionRefused: nothing listens at the address.
	FailConnectionRefused = "connection-refused"
	// FailConnectionReset: the server reset the connection.
	FailConnectionReset = "connection-reset"
	// FailHostUnreachable: no route to the host or its network.
	FailHostUnreachable = "host-unreachable"
	// FailTimeout: the request (connecting, or waiting for the response)
	// ran out of time before any response arrived.
	FailTimeout = "timeout"
	// FailConnectionClosed: the server closed the connection before a
	// whole response header (or, with no WARC-Truncated response to keep,
	// body) arrived.
	FailConnectionClosed = "connection-closed"
	// FailOther: anything else (a malformed response, an error we do not
	// know); the detail says what.
	FailOther = "other"
)

// ErrorKind names what went wrong with a request that got no response:
// "tls-" and its TLSKind for a TLS failure ("tls-expired"), else one of
// the Fail* kinds above. It returns "" for nil and for the errors of
// requests that were never sent: the SSRF guard's refusals and URLs that
// cannot be fetched (ErrInvalidURL, ErrUnsupportedScheme).
func ErrorKind(err error) string {
	var dnsErr *net.DNSError
	switch {
	case err == nil, errors.Is(err, ErrForbiddenAddress), errors.Is(err, ErrInvalidURL),
		errors.Is(err, ErrUnsupportedScheme), errors.Is(err, ErrTooLarge), errors.Is(err, ErrUnsupportedEncoding):
		return ""
	case TLSKind(err) != "":
		return "tls-" + TLSKind(err)
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return FailDNSNotFound
	case errors.As(err, &dnsErr):
		return FailDNSFailure
	case errors.Is(err, syscall.ECONNREFUSED):
		return FailConnectionRefused
	case errors.Is(err, syscall.ECONNRESET):
		return FailConnectionReset
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return FailHostUnreachable
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, errTimeout), isTimeout(err):
		return FailTimeout
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return FailConnectionClosed
	}
	return FailOther
}

// addrError is an error of a request to a server at ip: a TLS handshake
// with it failed. Its text is err's.
type addrError struct {
	ip  string
	err error
}

func (e *addrError) Error() string { return e.err.Error() }
func (e *addrError) Unwrap() error { return e.err }

// ErrorIP is the address of the server a failed request connected or
// tried to connect to (the proxy's, through a proxy), when err tells:
// "" otherwise.
func ErrorIP(err error) string {
	var (
		ae *addrError
		op *net.OpError
	)
	switch {
	case errors.As(err, &ae):
		return ae.ip
	case errors.As(err, &op) && op.Addr != nil:
		if ta, ok := op.Addr.(*net.TCPAddr); ok {
			return ta.IP.String()
		}
	}
	return ""
}

// Reason says in a few words, for a person, why a request failed: "no such
// host", "connection refused", "timed out", "address refused by the SSRF
// guard (127.0.0.1 is not a public address)". Errors it does not know are
// described by their own text, less the package prefixes.
func Reason(err error) string {
	var dnsErr *net.DNSError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrForbiddenAddress):
		msg := err.Error()
		if i := strings.LastIndex(msg, "forbidden address"); i >= 0 {
			msg = strings.TrimLeft(msg[i+len("forbidden address"):], ": ")
		}
		return "address refused by the SSRF guard (" + msg + ")"
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return "no such host"
	case errors.As(err, &dnsErr):
		return "DNS lookup failed: " + dnsErr.Err
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable"
	case TLSKind(err) != "":
		return "TLS failed (" + TLSKind(err) + "): " + unwrapped(err)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, errTimeout), isTimeout(err):
		return "timed out"
	}
	return unwrapped(err)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// unwrapped is the text of the innermost error that says something: the
// "fetch: get URL: " prefixes add nothing to a reason.
func unwrapped(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil || next.Error() == "" {
			return err.Error()
		}
		err = next
	}
}

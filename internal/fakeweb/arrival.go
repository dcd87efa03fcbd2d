package fakeweb

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// arrivals is what one accepted connection knows of when its bytes reached
// the machine: the kernel's receive time (SO_TIMESTAMPNS) of the latest
// read on it. Only stampConn (Linux) fills it.
type arrivals struct {
	mu   sync.Mutex
	last time.Time // of the latest read; zero if it carried no timestamp
}

func (a *arrivals) set(t time.Time) {
	a.mu.Lock()
	a.last = t
	a.mu.Unlock()
}

// latest is the kernel's receive time of the latest read completed on
// the connection, zero if there was none or it carried no timestamp.
//
// Taken when a request's handler is entered, it is that request's
// arrival: a connection carries one request at a time (the crawler
// keeps one request in flight per host and Go's client neither
// pipelines nor shares a connection between hosts), and the client
// sends nothing on it between its request and the response, so the
// latest read before the handler is the one that brought the request's
// last bytes (HTTP/1.1: the end of the header block; over TLS the record
// holding it; HTTP/2: the HEADERS frame of a GET, which carries
// END_STREAM). TCP reports the receive time of the newest data a read
// consumed, and merges data queued unread into one buffer with the newer
// time, so the time is never before the request's last byte reached the
// socket. One exception, on HTTP/2 only: the client's acknowledgement of
// the server's SETTINGS, sent when the connection opens, can follow the
// first request's HEADERS and reach the server before that request's
// handler is entered; the first request of an h2 connection is then
// stamped with the acknowledgement's arrival, late by the client's
// reaction to the server's SETTINGS (measured in docs/decisions.md,
// 2026-11-27).
func (a *arrivals) latest() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

type arrivalsKey struct{}

// connContext is the http.Server's ConnContext: it puts the connection's
// arrivals, if it keeps them, in the context of every request on it.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if nc, ok := c.(interface{ NetConn() net.Conn }); ok { // *tls.Conn
		c = nc.NetConn()
	}
	if s, ok := c.(interface{ arrivals() *arrivals }); ok {
		return context.WithValue(ctx, arrivalsKey{}, s.arrivals())
	}
	return ctx
}

// arrived is the kernel's receive time of r (see arrivals.latest), zero
// where the connection keeps none (not Linux, or a listener not wrapped
// by stampListener).
func arrived(r *http.Request) time.Time {
	if a, ok := r.Context().Value(arrivalsKey{}).(*arrivals); ok {
		return a.latest()
	}
	return time.Time{}
}

package fakeweb

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/net/http2"
)

// arrivals is what one accepted connection knows of when its bytes reached
// the machine: the kernel's receive time (SO_TIMESTAMPNS) of the latest
// read on it, and on HTTP/2 that of the read that brought the end of the
// latest request header block. Only stampConn (Linux) fills it.
type arrivals struct {
	mu     sync.Mutex
	last   time.Time // of the latest read; zero if it carried no timestamp
	header time.Time // HTTP/2: last when the latest header block ended
}

func (a *arrivals) set(t time.Time) {
	a.mu.Lock()
	a.last = t
	a.mu.Unlock()
}

// headersRead notes that the latest read brought the end of an HTTP/2
// header block (h2Tap).
func (a *arrivals) headersRead() {
	a.mu.Lock()
	a.header = a.last
	a.mu.Unlock()
}

// request is the kernel's receive time of a request whose handler is
// being entered, zero if unknown; h2 says it came over HTTP/2.
//
// A connection carries one request at a time: the crawler keeps one
// request in flight per host, and Go's client neither pipelines nor
// shares a connection between hosts. TCP reports, for each read, the
// receive time of the newest data the read consumed (data queued unread
// is merged, with the newer time), so a request's time is that of the
// read that brought its last bytes, never earlier than they reached the
// socket:
//
//   - HTTP/1.1, plain or over TLS: the latest read before the handler is
//     entered. The client sends nothing on the connection between its
//     request and the response, so that read brought the end of the
//     request's header block (over TLS, the record holding it).
//   - HTTP/2: the read that brought the end of the latest header block
//     (HEADERS, with END_STREAM for a GET, or its last CONTINUATION), as
//     h2Tap sees the frames the server reads. Not simply the latest read:
//     on a new connection the client acknowledges the server's SETTINGS
//     when they reach it, often after it sent its first request's
//     HEADERS and before the server enters that request's handler; the
//     latest read then is the acknowledgement, late by the client's
//     reaction to the server's SETTINGS (measured up to 10 ms, and seen
//     to turn a 20 ms gap into 17 ms; docs/decisions.md, 2026-11-27). The
//     acknowledgement still counts if it was queued, unread, with the
//     HEADERS when the server read them: the kernel keeps one time for
//     both.
func (a *arrivals) request(h2 bool) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	if h2 {
		return a.header
	}
	return a.last
}

// h2Tap is an HTTP/2 server connection over TLS that watches the frames
// the server reads, to tell arrivals when a request header block ended.
// It embeds the *tls.Conn, so the HTTP/2 server sees its TLS state.
type h2Tap struct {
	*tls.Conn
	arr  *arrivals
	skip int     // bytes of the client preface or of a frame's payload still to pass
	hdr  [9]byte // the frame header being read
	have int     // bytes of hdr read so far
	end  bool    // the frame being read ends a header block
}

func newH2Tap(c *tls.Conn, arr *arrivals) *h2Tap {
	return &h2Tap{Conn: c, arr: arr, skip: len(http2.ClientPreface)}
}

func (t *h2Tap) Read(p []byte) (int, error) {
	n, err := t.Conn.Read(p)
	t.scan(p[:n])
	return n, err
}

// scan follows the frame boundaries through b, the next bytes read.
func (t *h2Tap) scan(b []byte) {
	for len(b) > 0 {
		if t.skip > 0 {
			k := min(t.skip, len(b))
			t.skip -= k
			b = b[k:]
			if t.skip == 0 && t.end {
				t.arr.headersRead()
				t.end = false
			}
			continue
		}
		k := copy(t.hdr[t.have:], b)
		t.have += k
		b = b[k:]
		if t.have < len(t.hdr) {
			return
		}
		t.have = 0
		t.skip = int(t.hdr[0])<<16 | int(t.hdr[1])<<8 | int(t.hdr[2])
		typ, flags := http2.FrameType(t.hdr[3]), http2.Flags(t.hdr[4])
		t.end = (typ == http2.FrameHeaders || typ == http2.FrameContinuation) && flags.Has(http2.FlagHeadersEndHeaders)
		if t.skip == 0 && t.end {
			t.arr.headersRead()
			t.end = false
		}
	}
}

// serveH2 is the http.Server's TLSNextProto for "h2": h2 serves the
// connection, through an h2Tap when the connection keeps arrivals. It
// does what net/http's own HTTP/2 server does (the request contexts
// derive from the connection's, which carries the arrivals).
//
// x/net/http2's Server and ServeConn are deprecated in favour of
// net/http's copy of the same server, but that one serves only the
// *tls.Conn itself, where no tap can see the frames it reads.
//
//lint:ignore SA1019 the only HTTP/2 server that serves a wrapped connection (above)
func serveH2(h2 *http2.Server) func(*http.Server, *tls.Conn, http.Handler) {
	return func(hs *http.Server, c *tls.Conn, h http.Handler) {
		var ctx context.Context
		if bc, ok := h.(interface{ BaseContext() context.Context }); ok {
			ctx = bc.BaseContext()
		}
		var conn net.Conn = c
		if s, ok := c.NetConn().(interface{ arrivals() *arrivals }); ok {
			conn = newH2Tap(c, s.arrivals())
		}
		//lint:ignore SA1019 see serveH2
		h2.ServeConn(conn, &http2.ServeConnOpts{Context: ctx, Handler: h, BaseConfig: hs})
	}
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

// arrived is the kernel's receive time of r (see arrivals.request), zero
// where the connection keeps none (not Linux, or a listener not wrapped
// by stampListener).
func arrived(r *http.Request) time.Time {
	if a, ok := r.Context().Value(arrivalsKey{}).(*arrivals); ok {
		return a.request(r.ProtoMajor == 2)
	}
	return time.Time{}
}

package fakeweb

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/http2"

	"github.com/godwit-crawler/godwit/internal/lifecycle"
)

// shutdownGrace bounds how long Serve waits for connections to go idle
// once ctx is done. Handlers end at once (their contexts derive from ctx);
// only a client that connected without sending a request can hold
// Shutdown this long, and it is then closed by force.
const shutdownGrace = 2 * time.Second

// Serve serves the web on ln until ctx is done, then shuts down: request
// contexts derive from ctx, so waiting handlers (a hanging robots.txt,
// Latency) drop their connections at once, idle connections are closed,
// and Serve returns when every handler has returned. It returns nil after
// a clean shutdown. Serve takes ownership of ln and closes it.
//
// Serve may be called more than once, on different listeners, at the same
// time or one after another.
//
// On Linux, a TCP listener's connections are read with the kernel's
// receive times (SO_TIMESTAMPNS), and each request that did not come
// through the proxy is logged with its arrival (Request.Arrived).
func (w *Web) Serve(ctx context.Context, ln net.Listener) error {
	return w.serve(ctx, ln, nil)
}

// ServeTLS is Serve over TLS with cfg (CA.ServerConfig), HTTP/2 included
// when the client offers it by ALPN. Its hosts are served as an origin
// server (the client connects to them directly, by a name override such
// as godwit's --resolve); it is not a proxy.
func (w *Web) ServeTLS(ctx context.Context, ln net.Listener, cfg *tls.Config) error {
	return w.serve(ctx, ln, cfg)
}

func (w *Web) serve(ctx context.Context, ln net.Listener, cfg *tls.Config) error {
	srv := &http.Server{
		Handler:           w.Handler(),
		ReadHeaderTimeout: 30 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ConnContext:       connContext,
	}
	if cfg != nil {
		// HTTP/2 through x/net/http2 rather than net/http's copy of it, to
		// serve it through an h2Tap (arrival.go). ConfigureServer also
		// has Shutdown end its connections.
		//lint:ignore SA1019 see serveH2
		h2 := &http2.Server{}
		//lint:ignore SA1019 see serveH2
		if err := http2.ConfigureServer(srv, h2); err != nil {
			return fmt.Errorf("fakeweb: serve: %w", err)
		}
		srv.TLSNextProto["h2"] = serveH2(h2)
	}
	if err := lifecycle.ServeHTTP(ctx, srv, stampListener(ctx, ln), cfg, shutdownGrace); err != nil {
		return fmt.Errorf("fakeweb: serve: %w", err)
	}
	return nil
}

package fakeweb

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
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
		TLSConfig:         cfg,
	}
	served := make(chan error, 1)
	go func() {
		if cfg != nil {
			served <- srv.ServeTLS(ln, "", "")
			return
		}
		served <- srv.Serve(ln)
	}()

	select {
	case err := <-served:
		return fmt.Errorf("fakeweb: serve: %w", err)
	case <-ctx.Done():
	}

	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		// Drop what is left; a handler still writing to a dropped
		// connection fails its next write and returns.
		err = errors.Join(err, srv.Close())
	}
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		return fmt.Errorf("fakeweb: shutdown: %w", err)
	}
	return nil
}

package lifecycle

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"time"
)

// ServeHTTP serves srv on ln until ctx ends, over TLS with tlsConfig
// (certificates in it; HTTP/2 offered) when it is not nil, and then shuts srv down: connections in use get grace to
// finish, and those still open after it are closed. It returns the
// server's error when serving stopped by itself (ln failed or was
// closed), else the shutdown's; nil after a clean stop. srv's BaseContext
// is left as the caller set it.
func ServeHTTP(ctx context.Context, srv *http.Server, ln net.Listener, tlsConfig *tls.Config, grace time.Duration) error {
	served := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			srv.TLSConfig = tlsConfig // ServeTLS offers HTTP/2 by ALPN
			served <- srv.ServeTLS(ln, "", "")
			return
		}
		served <- srv.Serve(ln)
	}()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
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
	return err
}

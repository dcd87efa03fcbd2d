package admin

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
)

// cookieName is the dashboard's session cookie (see the package
// documentation).
const cookieName = "godwit_admin"

// sessionValue is the cookie value for token: an HMAC, so the cookie
// does not hold the token itself.
func sessionValue(token string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("godwit admin session v1"))
	return hex.EncodeToString(m.Sum(nil))
}

// equal compares secrets in constant time, whatever their lengths.
func equal(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

// serve is the server's handler: the checks, in the order the package
// documentation gives, then the mux.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	start := s.o.Now()
	rec := &statusWriter{ResponseWriter: w}
	w = rec
	defer func() {
		s.o.Logger.Debug("admin request", "method", r.Method, "path", r.URL.Path,
			"status", rec.status, "duration", s.o.Now().Sub(start))
	}()
	// The dashboard loads only its own files (see ui.go) and nothing may
	// frame it; no address (which may hold ?token=) leaks as a referrer.
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")

	if !s.hostAllowed(r.Host) {
		writeError(w, http.StatusForbidden, fmt.Sprintf("host %q is not this server's address", r.Host))
		return
	}
	if origin, ok := r.Header["Origin"]; ok {
		o := origin[0]
		rest, isHTTP := strings.CutPrefix(strings.ToLower(o), "http://")
		if !isHTTP || len(origin) > 1 || !s.hostAllowed(rest) {
			writeError(w, http.StatusForbidden, fmt.Sprintf("cross-origin request from %q refused", o))
			return
		}
	}
	stateChanging := r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions
	if stateChanging {
		switch r.Header.Get("Sec-Fetch-Site") {
		case "", "same-origin", "none":
		default:
			writeError(w, http.StatusForbidden, "cross-site request refused")
			return
		}
	}
	if s.o.Token != "" {
		if t, ok := r.URL.Query()["token"]; ok && r.URL.Path == "/" && r.Method == http.MethodGet {
			s.login(w, r, t[0])
			return
		}
		if !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="godwit admin"`)
			writeError(w, http.StatusUnauthorized, "missing or wrong admin token: send \"Authorization: Bearer <token>\", or open /?token=<token> once in a browser")
			return
		}
	}
	if stateChanging && r.ContentLength != 0 && !isJSON(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusBadRequest, "a request body must be Content-Type: application/json")
		return
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	}

	// The mux's own 404 and 405 answers are plain text; answer them in
	// the API's envelope instead.
	if hh, pattern := s.mux.Handler(r); pattern == "" {
		probe := &probeWriter{header: http.Header{}}
		hh.ServeHTTP(probe, r)
		if allow := probe.header.Get("Allow"); allow != "" && probe.status == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", allow)
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s (allowed: %s)", r.Method, r.URL.Path, allow))
			return
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint: %s %s", r.Method, r.URL.Path))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// authorized reports whether r carries the token or the session cookie.
func (s *Server) authorized(r *http.Request) bool {
	if a := r.Header.Get("Authorization"); a != "" {
		t, ok := strings.CutPrefix(a, "Bearer ")
		return ok && equal(strings.TrimSpace(t), s.o.Token)
	}
	if c, err := r.Cookie(cookieName); err == nil {
		return equal(c.Value, s.session)
	}
	return false
}

// login trades a correct ?token= on / for the session cookie and sends the
// browser to / without the token in its address.
func (s *Server) login(w http.ResponseWriter, r *http.Request, token string) {
	if !equal(token, s.o.Token) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="godwit admin"`)
		writeError(w, http.StatusUnauthorized, "wrong admin token")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name:     cookieName,
		Value:    s.session,
		Path:     "/",
		MaxAge:   30 * 24 * 3600,
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
	})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func isJSON(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}

// statusWriter remembers the status written, for the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (pprof's
// profile and trace extend the write deadline).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// probeWriter records what the mux's fallback handler would answer.
type probeWriter struct {
	header http.Header
	status int
}

func (p *probeWriter) Header() http.Header { return p.header }
func (p *probeWriter) WriteHeader(code int) {
	if p.status == 0 {
		p.status = code
	}
}
func (p *probeWriter) Write(b []byte) (int, error) { return len(b), nil }

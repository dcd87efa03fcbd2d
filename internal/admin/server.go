package admin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/godwit-crawler/godwit/internal/lifecycle"
)

// Options configure a Server. The zero value serves the API on a
// loopback address without a token, without dashboard or metrics.
type Options struct {
	// Addr is the address the server is bound to ("127.0.0.1:7070"). It
	// decides whether a Token is required (any non-loopback address) and
	// which Host headers are accepted. Serve also accepts its listener's
	// own address, so a ":0" bind works.
	Addr string
	// Token, when set, is required on every request (see the package
	// documentation for the cookie a browser gets instead).
	Token string
	// Hosts are more Host header values to accept ("crawler.lan" or
	// "crawler.lan:7070"; without a port, Addr's port): the names an
	// operator uses to reach a server bound to a non-loopback address.
	Hosts []string
	// UI is the dashboard: index.html at its root is served at /, and
	// /static/NAME serves NAME. Nil: / says the dashboard is not built.
	UI fs.FS
	// Metrics serves /metrics; nil: /metrics is 404.
	Metrics http.Handler
	Logger  *slog.Logger
	Now     func() time.Time
}

// Server is the admin HTTP server. See the package documentation for the
// checks every request passes.
type Server struct {
	b        Backend
	o        Options
	loopback bool
	session  string // the cookie value the token maps to
	port     string
	routes   []route
	mux      *http.ServeMux
	handler  http.Handler

	mu    sync.RWMutex
	hosts map[string]bool // accepted Host header values, lowercase
}

// route is one pattern the server's mux serves; the OpenAPI document
// lists exactly these (a test checks it).
type route struct {
	method, path string
	h            http.HandlerFunc
}

// maxBody bounds request bodies.
const maxBody = 1 << 20

// New returns a server over b. It fails when Addr is not host:port, or
// when it is not a loopback address and no Token is set.
func New(b Backend, o Options) (*Server, error) {
	if b == nil {
		return nil, errors.New("admin: nil backend")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	host, port, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return nil, fmt.Errorf("admin: address %q: %w", o.Addr, err)
	}
	s := &Server{b: b, o: o, port: port, loopback: isLoopback(host), hosts: map[string]bool{}}
	if !s.loopback && o.Token == "" {
		return nil, fmt.Errorf("admin: %s is not a loopback address: an admin token is required", o.Addr)
	}
	if o.Token != "" {
		s.session = sessionValue(o.Token)
	}
	s.allow(host, port)
	for _, h := range o.Hosts {
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(strings.Trim(h, "[]"), port)
		}
		s.hosts[strings.ToLower(h)] = true
	}
	s.routes = []route{
		{"POST", "/api/seeds", s.addSeeds},
		{"GET", "/api/status", s.status},
		{"GET", "/api/cluster", s.cluster},
		{"GET", "/api/ip-groups", s.ipGroups},
		{"GET", "/api/hosts", s.listHosts},
		{"GET", "/api/hosts/{host}", s.host},
		{"PUT", "/api/hosts/{host}/policy", s.setPolicy},
		{"DELETE", "/api/hosts/{host}/policy", s.clearPolicy},
		{"POST", "/api/hosts/{host}/block", s.block},
		{"POST", "/api/hosts/{host}/unblock", s.unblock},
		{"GET", "/api/urls", s.url},
		{"GET", "/api/pages", s.listPages},
		{"GET", "/api/pages/{id}", s.page},
		{"GET", "/api/pages/{id}/content", s.pageContent},
		{"GET", "/api/pages/{id}/links", s.pageLinks},
		{"PUT", "/api/recrawl", s.setRecrawl},
		{"POST", "/api/pause", s.pause},
		{"POST", "/api/resume", s.resume},
		{"GET", "/api/openapi.json", s.openAPI},
		{"GET", "/metrics", s.metrics},
		{"GET", "/{$}", s.index},
		{"GET", "/static/{path...}", s.static},
		{"GET", "/debug/pprof/cmdline", pprof.Cmdline},
		{"GET", "/debug/pprof/profile", pprof.Profile},
		{"GET", "/debug/pprof/symbol", pprof.Symbol},
		{"GET", "/debug/pprof/trace", pprof.Trace},
		// One route for the index (an empty name) and the named
		// profiles: an OpenAPI path cannot end with a slash.
		{"GET", "/debug/pprof/{profile...}", func(w http.ResponseWriter, r *http.Request) {
			if name := r.PathValue("profile"); name != "" {
				pprof.Handler(name).ServeHTTP(w, r)
				return
			}
			pprof.Index(w, r)
		}},
	}
	s.mux = http.NewServeMux()
	for _, rt := range s.routes {
		s.mux.HandleFunc(rt.method+" "+rt.path, rt.h)
	}
	s.handler = http.HandlerFunc(s.serve)
	return s, nil
}

// Handler returns the server's handler, checks included.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve serves on ln until ctx ends, then shuts down gracefully. It
// closes ln. A listener on a non-loopback address without a token is
// refused, whatever Addr said.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	host, port, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		ln.Close()
		return fmt.Errorf("admin: listener address: %w", err)
	}
	if !isLoopback(host) && s.o.Token == "" {
		ln.Close()
		return fmt.Errorf("admin: listening on %s, not a loopback address: an admin token is required", ln.Addr())
	}
	s.mu.Lock()
	s.allow(host, port)
	s.mu.Unlock()
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.o.Logger.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	s.o.Logger.Debug("admin server listening", "addr", ln.Addr().String(), "token", s.o.Token != "")
	if err := lifecycle.ServeHTTP(ctx, srv, ln, nil, 5*time.Second); err != nil {
		return fmt.Errorf("admin: %w", err)
	}
	return nil
}

// allow adds the Host values that name host:port. Callers hold mu (or
// own s exclusively).
func (s *Server) allow(host, port string) {
	add := func(h string) { s.hosts[strings.ToLower(net.JoinHostPort(h, port))] = true }
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		add(h)
	}
	if host == "" || isUnspecified(host) {
		// Bound to every interface: the operator may use any of its
		// addresses, or the machine's name.
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if ipn, ok := a.(*net.IPNet); ok {
					add(ipn.IP.String())
				}
			}
		}
		if name, err := os.Hostname(); err == nil && name != "" {
			add(name)
		}
		return
	}
	add(host)
}

func (s *Server) hostAllowed(h string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.hosts[strings.ToLower(h)]
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func isUnspecified(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsUnspecified()
}

package jetstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ServerConfig describes an embedded nats-server with JetStream.
type ServerConfig struct {
	// Listen is the client address, host:port; default 127.0.0.1:4222.
	// Port 0 picks a free port (tests).
	Listen string
	// DataDir holds JetStream's file store. Required.
	DataDir string
	// Name is the server's name: required in a cluster, where it must be
	// unique and stable across restarts (JetStream's RAFT knows its peers
	// by it); default "godwit" for a lone server.
	Name string
	// ClusterName names the cluster; default "godwit". Used only with
	// ClusterListen.
	ClusterName string
	// ClusterListen, when set, is the host:port the server listens on
	// for routes from the other servers: JetStream then runs clustered
	// (RAFT), which needs Routes.
	ClusterListen string
	// Routes are the other servers' cluster addresses (nats://host:port);
	// listing the server itself is harmless, so every server of a
	// cluster can be given the same list.
	Routes []string
	// MaxStore caps JetStream's file storage (bytes): every stream
	// reserves its MaxBytes of it when created. Default the server's own:
	// 75% of the free space of DataDir's file system when it starts.
	MaxStore int64
	// Logger receives the server's log; nil discards it.
	Logger *slog.Logger
}

// Server is an embedded nats-server. Start it, then Shutdown.
type Server struct {
	cfg   ServerConfig
	ns    *server.Server
	fatal <-chan string // the server's first fatal error (a port in use)
}

// NewServer checks cfg and prepares a server; it starts nothing.
func NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:4222"
	}
	if cfg.DataDir == "" {
		return nil, errors.New("jetstream: server: a data directory is required")
	}
	if cfg.ClusterName == "" {
		cfg.ClusterName = "godwit"
	}
	host, port, err := splitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("jetstream: server: listen address: %w", err)
	}
	if cfg.Name == "" {
		if cfg.ClusterListen != "" {
			return nil, errors.New("jetstream: server: a clustered server needs a name, unique in the cluster")
		}
		cfg.Name = "godwit"
	}
	opts := &server.Options{
		ServerName: cfg.Name,
		Host:       host,
		Port:       port,
		JetStream:  true,
		StoreDir:   cfg.DataDir,
		NoSigs:     true,
		MaxPayload: 8 << 20,
	}
	if cfg.MaxStore > 0 {
		opts.JetStreamMaxStore = cfg.MaxStore
	}
	if port == 0 {
		opts.Port = server.RANDOM_PORT
	}
	if cfg.ClusterListen != "" {
		ch, cp, err := splitHostPort(cfg.ClusterListen)
		if err != nil {
			return nil, fmt.Errorf("jetstream: server: cluster address: %w", err)
		}
		opts.Cluster = server.ClusterOpts{Name: cfg.ClusterName, Host: ch, Port: cp}
		for _, r := range cfg.Routes {
			u, err := url.Parse(r)
			if err != nil || u.Host == "" {
				return nil, fmt.Errorf("jetstream: server: route %q: want nats://host:port", r)
			}
			opts.Routes = append(opts.Routes, u)
		}
		if len(opts.Routes) == 0 {
			return nil, errors.New("jetstream: server: a clustered server needs --routes to the other servers")
		}
	} else if len(cfg.Routes) > 0 {
		return nil, errors.New("jetstream: server: routes need a cluster address")
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("jetstream: server: %w", err)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	fatal := make(chan string, 1)
	ns.SetLoggerV2(slogAdapter{logger.With("server", cfg.Name), fatal}, false, false, false)
	return &Server{cfg: cfg, ns: ns, fatal: fatal}, nil
}

func splitHostPort(addr string) (string, int, error) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("bad port %q", p)
	}
	return h, port, nil
}

// Start starts the server and waits until it accepts clients (at most
// until ctx ends). A clustered server accepts clients before its
// JetStream has a meta leader: Open waits for that.
func (s *Server) Start(ctx context.Context) error {
	s.ns.Start() // does not block; the server's goroutines end in Shutdown
	for !s.ns.ReadyForConnections(100 * time.Millisecond) {
		select {
		case msg := <-s.fatal:
			s.Shutdown()
			return fmt.Errorf("jetstream: server %s did not start: %s", s.cfg.Name, msg)
		case <-ctx.Done():
			s.Shutdown()
			return fmt.Errorf("jetstream: server %s did not start: %w", s.cfg.Name, ctx.Err())
		default:
		}
	}
	return nil
}

// ClientURL is the address clients connect to (nats://host:port).
func (s *Server) ClientURL() string { return s.ns.ClientURL() }

// Addr is the client address the server listens on, host:port.
func (s *Server) Addr() string {
	if a := s.ns.Addr(); a != nil {
		return a.String()
	}
	return ""
}

// ClusterAddr is the address the server listens on for routes, or "".
func (s *Server) ClusterAddr() string {
	if a := s.ns.ClusterAddr(); a != nil {
		return a.String()
	}
	return ""
}

// Name is the server's name.
func (s *Server) Name() string { return s.cfg.Name }

// Shutdown stops the server and waits until it has stopped.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}

// slogAdapter is nats-server's Logger over slog. Notices are Info;
// debug and trace are Debug (the server emits them only when asked). A
// fatal error (the server's own logger would exit the process) is logged
// and handed to Start.
type slogAdapter struct {
	l     *slog.Logger
	fatal chan<- string
}

func (a slogAdapter) Noticef(format string, v ...any) { a.l.Info(fmt.Sprintf(format, v...)) }
func (a slogAdapter) Warnf(format string, v ...any)   { a.l.Warn(fmt.Sprintf(format, v...)) }
func (a slogAdapter) Fatalf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	a.l.Error(msg)
	select {
	case a.fatal <- msg:
	default:
	}
}
func (a slogAdapter) Errorf(format string, v ...any) { a.l.Error(fmt.Sprintf(format, v...)) }
func (a slogAdapter) Debugf(format string, v ...any) { a.l.Debug(fmt.Sprintf(format, v...)) }
func (a slogAdapter) Tracef(format string, v ...any) { a.l.Debug(fmt.Sprintf(format, v...)) }

package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/cluster/jetstream"
)

func newNATSCmd() *cobra.Command {
	var (
		cfg      jetstream.ServerConfig
		routes   string
		logLevel string
	)
	cmd := &cobra.Command{
		Use:   "nats",
		Short: "Run an embedded NATS server with JetStream, alone or as one of a cluster",
		Long: `Run the NATS server (nats-server v2.15.2, embedded) with JetStream on a file
store under --data, so a godwit cluster needs nothing but the godwit binary.

Alone:      godwit nats --data DIR
Clustered:  on each of three machines (or ports), with the same --routes:
            godwit nats --data DIR --name n1 --cluster-listen HOST:6222 \
              --routes nats://A:6222,nats://B:6222,nats://C:6222
JetStream's RAFT needs a quorum: with three servers, one may be down.
Every address defaults to loopback: listen on other interfaces on purpose
(and put the servers on a private network; this runs without auth or TLS).
Ctrl-C stops the server cleanly.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := parseLevel(logLevel)
			if err != nil {
				return err
			}
			if cfg.DataDir == "" {
				return fmt.Errorf("--data is required")
			}
			for r := range strings.SplitSeq(routes, ",") {
				if r = strings.TrimSpace(r); r != "" {
					cfg.Routes = append(cfg.Routes, r)
				}
			}
			if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
				return failure{err}
			}
			term := newTerminal(cmd.ErrOrStderr())
			log, err := newLogger(term, l.String())
			if err != nil {
				return err
			}
			cfg.Logger = log
			s, err := jetstream.NewServer(cfg)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := s.Start(ctx); err != nil {
				return failure{err}
			}
			printNATSBanner(cmd.OutOrStdout(), s, cfg)
			<-ctx.Done()
			log.Info("stopping the NATS server")
			s.Shutdown()
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&cfg.Listen, "listen", "127.0.0.1:4222", "client address (port 0 picks a free port)")
	fs.StringVar(&cfg.DataDir, "data", "", "directory of JetStream's file store (required)")
	fs.StringVar(&cfg.Name, "name", "", "server name: required with --cluster-listen, unique in the cluster and stable across restarts")
	fs.StringVar(&cfg.ClusterName, "cluster-name", "godwit", "cluster name, the same on every server")
	fs.StringVar(&cfg.ClusterListen, "cluster-listen", "", "address to listen on for the other servers' routes (enables clustering)")
	fs.StringVar(&routes, "routes", "", "comma-separated cluster addresses of the servers (nats://host:port); listing this server too is fine")
	fs.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	return cmd
}

func printNATSBanner(w io.Writer, s *jetstream.Server, cfg jetstream.ServerConfig) {
	fmt.Fprintf(w, "nats listening on %s\n", s.ClientURL())
	fmt.Fprintf(w, "  name %s, JetStream store %s\n", s.Name(), cfg.DataDir)
	if a := s.ClusterAddr(); a != "" {
		fmt.Fprintf(w, "  cluster %s: routes on %s, to %s\n", cfg.ClusterName, a, strings.Join(cfg.Routes, ", "))
	}
}

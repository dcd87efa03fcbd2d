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
	flagNATSListen.stringVar(fs, &cfg.Listen, "127.0.0.1:4222")
	flagNATSData.stringVar(fs, &cfg.DataDir, "")
	flagNATSName.stringVar(fs, &cfg.Name, "")
	flagNATSClusterName.stringVar(fs, &cfg.ClusterName, "godwit")
	flagNATSClusterListen.stringVar(fs, &cfg.ClusterListen, "")
	flagNATSRoutes.stringVar(fs, &routes, "")
	flagLogLevel.stringVar(fs, &logLevel, "info")
	return cmd
}

func printNATSBanner(w io.Writer, s *jetstream.Server, cfg jetstream.ServerConfig) {
	fmt.Fprintf(w, "nats listening on %s\n", s.ClientURL())
	fmt.Fprintf(w, "  name %s, JetStream store %s\n", s.Name(), cfg.DataDir)
	if a := s.ClusterAddr(); a != "" {
		fmt.Fprintf(w, "  cluster %s: routes on %s, to %s\n", cfg.ClusterName, a, strings.Join(cfg.Routes, ", "))
	}
}

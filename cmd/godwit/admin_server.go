package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/godwit-crawler/godwit/internal/admin"
)

// startAdmin serves the admin API, dashboard and metrics of a crawl on
// s.Admin until stop is called, and returns the address it listens on
// ("" for none). Metrics are registered on a registry of this crawl's
// own. When the default address is taken (another crawl on the machine:
// three cluster nodes on one machine) the server listens on a free
// loopback port instead, and says which; an address the operator asked
// for must work.
func startAdmin(ctx context.Context, s crawlSettings, b *backend, log *slog.Logger,
	register ...func(prometheus.Registerer) error) (stop func(), addr string, err error) {
	if s.Admin == "" || s.Admin == "off" {
		return func() {}, "", nil
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, r := range register {
		if err := r(reg); err != nil {
			return nil, "", failure{fmt.Errorf("metrics: %w", err)}
		}
	}
	srv, err := admin.New(b, admin.Options{
		Addr:    s.Admin,
		Token:   s.AdminToken,
		UI:      admin.UI(),
		Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}),
		Logger:  log,
	})
	if err != nil {
		return nil, "", fmt.Errorf("--admin: %w", err)
	}
	ln, err := net.Listen("tcp", s.Admin)
	if err != nil {
		if s.adminExplicit || s.Admin != defaultAdmin {
			return nil, "", fmt.Errorf("--admin %s: %w", s.Admin, err)
		}
		taken := err
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			log.Warn("admin API and dashboard not served: the default address is taken (another crawl?) and no other port is free; use --admin ADDR",
				"addr", s.Admin, "err", errors.Join(taken, err))
			return func() {}, "", nil
		}
		log.Info("the default admin address is taken (another crawl?): serving on a free port instead; --admin ADDR chooses one",
			"default", s.Admin, "addr", ln.Addr().String())
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(sctx, ln); err != nil {
			log.Error("admin server", "err", err)
		}
	}()
	log.Info("admin API and dashboard", "url", "http://"+ln.Addr().String()+"/")
	if s.adminListening != nil {
		s.adminListening(ln.Addr().String())
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}, ln.Addr().String(), nil
}

package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// directFlags are godwit fakeweb's flags for serving the web directly.
type directFlags struct {
	addrs     []string // --direct
	port      int      // --direct-port
	caOut     string   // --ca-out
	configOut string   // --config-out
}

// directPlan is what a crawler needs to reach a web served directly.
type directPlan struct {
	resolve []string // --resolve lines, host i on address i % len(addrs)
	caFile  string   // the CA's PEM file ("" over plain HTTP)
}

// resolveLines spreads the web's hosts over the listeners round-robin.
func resolveLines(web *fakeweb.Web, lns []net.Listener) []string {
	port := "80"
	if web.Config().HTTPS {
		port = "443"
	}
	var out []string
	for i, seed := range web.Seeds() {
		host := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(seed, "https://"), "http://"), "/")
		a := lns[i%len(lns)].Addr().(*net.TCPAddr)
		out = append(out, host+":"+port+":"+a.IP.String()+":"+strconv.Itoa(a.Port))
	}
	return out
}

// serveDirect serves web as an origin on every --direct address (over
// TLS with --https), and as a proxy with the control endpoints on
// listen, until interrupted. It prints (and with --config-out writes)
// the --resolve lines and CA file a crawl needs.
func serveDirect(cmd *cobra.Command, web *fakeweb.Web, listen, seedsOut string, d directFlags) error {
	var ca *fakeweb.CA
	plan := directPlan{}
	if web.Config().HTTPS {
		var err error
		if ca, err = fakeweb.NewCA(); err != nil {
			return failure{err}
		}
		plan.caFile = d.caOut
		if plan.caFile == "" {
			plan.caFile = filepath.Join(os.TempDir(), fmt.Sprintf("fakeweb-ca-%d.pem", os.Getpid()))
		}
		if err := os.WriteFile(plan.caFile, ca.CertPEM(), 0o644); err != nil {
			return failure{err}
		}
	}
	var lns []net.Listener
	closeAll := func() {
		for _, ln := range lns {
			ln.Close()
		}
	}
	for _, a := range d.addrs {
		ip := net.ParseIP(strings.TrimSpace(a))
		if ip == nil {
			closeAll()
			return fmt.Errorf("--direct: %q is not an IP address", a)
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(d.port)))
		if err != nil {
			closeAll()
			return failure{err}
		}
		lns = append(lns, ln)
	}
	ctl, err := net.Listen("tcp", listen)
	if err != nil {
		closeAll()
		return failure{err}
	}
	lns = append(lns, ctl)
	origins := lns[:len(lns)-1]
	plan.resolve = resolveLines(web, origins)
	if seedsOut != "" {
		if err := os.WriteFile(seedsOut, []byte(strings.Join(web.Seeds(), "\n")+"\n"), 0o644); err != nil {
			closeAll()
			return failure{err}
		}
	}
	if d.configOut != "" {
		if err := os.WriteFile(d.configOut, []byte(plan.config()), 0o644); err != nil {
			closeAll()
			return failure{err}
		}
	}

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	printDirectBanner(cmd.OutOrStdout(), web.Config(), origins, ctl.Addr().String(), plan, d.configOut)
	errs := make(chan error, len(lns))
	for _, ln := range origins {
		go func() {
			if ca != nil {
				errs <- web.ServeTLS(ctx, ln, web.TLSConfig(ca))
				return
			}
			errs <- web.Serve(ctx, ln)
		}()
	}
	go func() { errs <- web.Serve(ctx, ctl) }()
	var all []error
	for range lns {
		if err := <-errs; err != nil {
			all = append(all, err)
			stop() // one failed: stop the others
		}
	}
	if err := errors.Join(all...); err != nil {
		return failure{err}
	}
	return nil
}

// config is a godwit config file that reaches the web directly.
func (p directPlan) config() string {
	var b strings.Builder
	b.WriteString("# written by godwit fakeweb --direct: the names of the simulated web's hosts\n# go to fakeweb's loopback addresses, which the SSRF guard must let through.\n")
	b.WriteString("allow_private: true\nresolve:\n")
	for _, r := range p.resolve {
		b.WriteString("  - \"" + r + "\"\n")
	}
	if p.caFile != "" {
		b.WriteString("ca_cert: \"" + p.caFile + "\"\n")
	}
	return b.String()
}

func printDirectBanner(w io.Writer, cfg fakeweb.Config, origins []net.Listener, ctl string, plan directPlan, configOut string) {
	scheme, how := "http", "HTTP"
	if cfg.HTTPS {
		scheme, how = "https", "HTTPS (h2 and http/1.1)"
	}
	var addrs []string
	for _, ln := range origins {
		addrs = append(addrs, ln.Addr().String())
	}
	fmt.Fprintf(w, "fakeweb serving %d hosts × %d pages under %s directly over %s on %s\n",
		cfg.Hosts, cfg.PagesPerHost, cfg.Domain, how, strings.Join(addrs, ", "))
	if len(cfg.BadTLS) > 0 {
		var bad []string
		for i := range cfg.Hosts {
			if f, ok := cfg.BadTLS[i]; ok {
				bad = append(bad, fmt.Sprintf("h%d.%s %s", i, cfg.Domain, f))
			}
		}
		fmt.Fprintf(w, "  bad certificates: %s\n", strings.Join(bad, ", "))
	}
	if plan.caFile != "" {
		fmt.Fprintf(w, "  CA:        %s (godwit crawl --ca-cert %s)\n", plan.caFile, plan.caFile)
	}
	base := "http://" + ctl
	fmt.Fprintf(w, "  seeds:     %s/_fakeweb/seeds (%s:// URLs; or write them with --seeds-out FILE)\n", base, scheme)
	if configOut != "" {
		fmt.Fprintf(w, "  crawl it:  godwit crawl --config %s --seeds FILE\n", configOut)
	} else {
		fmt.Fprintf(w, "  crawl it:  godwit crawl --allow-private")
		if plan.caFile != "" {
			fmt.Fprintf(w, " --ca-cert %s", plan.caFile)
		}
		fmt.Fprintf(w, " --seeds FILE \\\n")
		for _, r := range plan.resolve {
			fmt.Fprintf(w, "    --resolve %s \\\n", r)
		}
		fmt.Fprintf(w, "    (or --config-out FILE writes these as a config file)\n")
	}
	fmt.Fprintf(w, "  report:    curl '%s/_fakeweb/report?delay=1s'\n", base)
}

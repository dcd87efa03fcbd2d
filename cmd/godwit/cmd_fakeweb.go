package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// fakewebFlags binds the simulated web's configuration to flags.
type fakewebFlags struct {
	cfg    fakeweb.Config
	robots string
	badTLS string
}

func (f *fakewebFlags) register(fs *pflag.FlagSet, d fakeweb.Config) {
	flagWebHosts.intVar(fs, &f.cfg.Hosts, d.Hosts)
	flagWebDomain.stringVar(fs, &f.cfg.Domain, d.Domain)
	flagWebPages.intVar(fs, &f.cfg.PagesPerHost, d.PagesPerHost)
	flagWebLinks.intVar(fs, &f.cfg.LinksPerPage, d.LinksPerPage)
	flagWebPageSize.intVar(fs, &f.cfg.PageSize, d.PageSize)
	flagWebCrossHost.float64Var(fs, &f.cfg.CrossHostShare, d.CrossHostShare)
	flagWebRedirects.float64Var(fs, &f.cfg.RedirectShare, d.RedirectShare)
	flagWebCrawlDelay.durationVar(fs, &f.cfg.CrawlDelay, d.CrawlDelay)
	flagWebLatency.durationVar(fs, &f.cfg.Latency, d.Latency)
	flagWebSeed.int64Var(fs, &f.cfg.Seed, d.Seed)
	flagWebSitemaps.boolVar(fs, &f.cfg.Sitemaps, d.Sitemaps)
	flagWebRequisites.boolVar(fs, &f.cfg.Requisites, d.Requisites)
	flagWebSPA.boolVar(fs, &f.cfg.SPA, d.SPA)
	flagWebSPAShare.float64Var(fs, &f.cfg.SPAShare, d.SPAShare)
	flagWebPageSignals.boolVar(fs, &f.cfg.PageSignals, d.PageSignals)
	flagWebHostile.boolVar(fs, &f.cfg.Hostile, d.Hostile)
	h := &f.cfg.HostileConfig
	flagWebHostileEvery.intVar(fs, &h.Every, d.HostileConfig.Every)
	flagWebHostileSlow.durationVar(fs, &h.SlowDelay, d.HostileConfig.SlowDelay)
	flagWebHostileRetryAfter.durationVar(fs, &h.RetryAfter, d.HostileConfig.RetryAfter)
	flagWebHostileStormHost.intVar(fs, &h.StormHost, d.HostileConfig.StormHost)
	flagWebHostileStorm.durationVar(fs, &h.StormFor, d.HostileConfig.StormFor)
	flagWebDuplicates.boolVar(fs, &f.cfg.Duplicates, d.Duplicates)
	flagWebConditionalRobots.boolVar(fs, &f.cfg.ConditionalRobots, d.ConditionalRobots)
	flagWebChanging.boolVar(fs, &f.cfg.Changing, d.Changing)
	c := &f.cfg.ChangingConfig
	flagWebChangingFast.intVar(fs, &c.Fast, d.ChangingConfig.Fast)
	flagWebChangingSlow.intVar(fs, &c.Slow, d.ChangingConfig.Slow)
	flagWebChangingStatic.intVar(fs, &c.Static, d.ChangingConfig.Static)
	flagWebChangingFastMean.durationVar(fs, &c.FastMean, d.ChangingConfig.FastMean)
	flagWebChangingPeriodic.boolVar(fs, &c.Periodic, d.ChangingConfig.Periodic)
	flagWebChangingSlowMean.durationVar(fs, &c.SlowMean, d.ChangingConfig.SlowMean)
	flagWebSkewedGraph.boolVar(fs, &f.cfg.SkewedGraph, d.SkewedGraph)
	flagWebSkewExponent.float64Var(fs, &f.cfg.SkewExponent, d.SkewExponent)
	flagWebTreeFanout.intVar(fs, &f.cfg.TreeFanout, d.TreeFanout)
	flagWebHTTPS.boolVar(fs, &f.cfg.HTTPS, d.HTTPS)
	flagWebBadTLS.stringVar(fs, &f.badTLS, "")
	flagWebRobots.listing(robotsNames(allRobotsKinds())).stringVar(fs, &f.robots, robotsNames(d.Robots))
}

// config returns the validated configuration.
func (f *fakewebFlags) config() (fakeweb.Config, error) {
	cfg := f.cfg
	kinds, err := parseRobotsKinds(f.robots)
	if err != nil {
		return cfg, err
	}
	cfg.Robots = kinds
	if cfg.BadTLS, err = parseBadTLS(f.badTLS); err != nil {
		return cfg, err
	}
	cfg.Default()
	return cfg, cfg.Validate()
}

// parseBadTLS reads --bad-tls: "1=expired,3=wrong-name".
func parseBadTLS(s string) (map[int]fakeweb.TLSFault, error) {
	if s == "" {
		return nil, nil
	}
	out := map[int]fakeweb.TLSFault{}
	for item := range strings.SplitSeq(s, ",") {
		host, kind, ok := strings.Cut(strings.TrimSpace(item), "=")
		i, err := strconv.Atoi(host)
		if !ok || err != nil {
			return nil, fmt.Errorf("--bad-tls: %q is not INDEX=KIND", item)
		}
		f, err := fakeweb.ParseTLSFault(kind)
		if err != nil {
			return nil, fmt.Errorf("--bad-tls: %w", err)
		}
		out[i] = f
	}
	return out, nil
}

func allRobotsKinds() []fakeweb.RobotsKind { return fakeweb.RobotsKinds() }

func robotsNames(kinds []fakeweb.RobotsKind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.String()
	}
	return strings.Join(names, ",")
}

func parseRobotsKinds(s string) ([]fakeweb.RobotsKind, error) {
	if s == "" {
		return nil, nil
	}
	var out []fakeweb.RobotsKind
next:
	for name := range strings.SplitSeq(s, ",") {
		name = strings.TrimSpace(name)
		for _, k := range allRobotsKinds() {
			if k.String() == name {
				out = append(out, k)
				continue next
			}
		}
		return nil, fmt.Errorf("--robots: unknown variant %q (want %s)", name, robotsNames(allRobotsKinds()))
	}
	return out, nil
}

func newFakewebCmd() *cobra.Command {
	var (
		flags    fakewebFlags
		listen   string
		seedsOut string
		shape    string
		preset   string
		direct   directFlags
	)
	d := fakeweb.Config{Hosts: 50, PagesPerHost: 100}
	d.Default()
	cmd := &cobra.Command{
		Use:   "fakeweb",
		Short: "Serve a deterministic simulated web on loopback (an HTTP proxy for any crawler)",
		Long: `Serve a deterministic simulated web: many virtual hosts (h0.fake.test …) behind
one listener that is both an HTTP forward proxy and an origin. Point any crawler
at it with its proxy setting. It records every request and judges the crawler
from the server side: GET /_fakeweb/report?delay=1s&max_depth=0 on the listener
returns the politeness, robots.txt, duplicate and coverage report as JSON;
GET /_fakeweb/seeds lists the seed URLs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if shape != "" {
				return serveShapes(cmd, shape, flags.cfg.Hosts, cmd.Flags().Changed(flagWebHosts.name), listen, seedsOut)
			}
			if preset != "" {
				if err := applyPreset(&flags, preset, cmd.Flags()); err != nil {
					return err
				}
			}
			cfg, err := flags.config()
			if err != nil {
				return err
			}
			web, err := fakeweb.New(cfg)
			if err != nil {
				return err
			}
			if len(direct.addrs) > 0 {
				return serveDirect(cmd, web, listen, seedsOut, direct)
			}
			if cfg.HTTPS {
				return errors.New("--https needs --direct: the proxy does not tunnel https")
			}
			return serveWeb(cmd, listen, seedsOut, web.Seeds(), web.Serve,
				func(addr string) { printFakewebBanner(cmd.OutOrStdout(), addr, web.Config()) })
		},
	}
	fs := cmd.Flags()
	flagWebListen.stringVar(fs, &listen, "127.0.0.1:8080")
	flagWebSeedsOut.stringVar(fs, &seedsOut, "")
	flagWebShape.stringVar(fs, &shape, "")
	flagWebPreset.listing(strings.Join(fakeweb.PresetNames(), ", ")).stringVar(fs, &preset, "")
	flagWebDirect.stringSliceVar(fs, &direct.addrs, nil)
	flagWebDirectPort.intVar(fs, &direct.port, 0)
	flagWebCAOut.stringVar(fs, &direct.caOut, "")
	flagWebConfigOut.stringVar(fs, &direct.configOut, "")
	flags.register(fs, d)
	return cmd
}

// serveShapes serves a fakeweb.Shapes web until interrupted.
func serveShapes(cmd *cobra.Command, shape string, hosts int, hostsSet bool, listen, seedsOut string) error {
	cfg := fakeweb.ShapesConfig{}
	switch shape {
	case "aliases":
		cfg.Aliases = true
	case "aliases-tokens":
		cfg.Aliases, cfg.Tokens = true, true
	case "aliases-www":
		cfg.Aliases, cfg.WWW = true, true
	case "traps":
		cfg.Traps, cfg.Articles, cfg.Pagination = true, 300, 500
	default:
		return fmt.Errorf("--shape %q: want aliases, aliases-tokens, aliases-www or traps", shape)
	}
	if hostsSet {
		cfg.Hosts = hosts
	}
	web, err := fakeweb.NewShapes(cfg)
	if err != nil {
		return err
	}
	return serveWeb(cmd, listen, seedsOut, web.Seeds(), web.Serve, func(addr string) {
		base := "http://" + addr
		c := web.Config()
		fmt.Fprintf(cmd.OutOrStdout(), "fakeweb (%s shape) listening on %s\n  %d hosts under %s\n  seeds:     %s/_fakeweb/seeds\n  crawl it:  godwit crawl --proxy %s --seeds FILE\n  report:    curl '%s/_fakeweb/report'\n",
			shape, base, c.Hosts, c.Domain, base, base, base)
	})
}

// serveWeb serves a simulated web on listen until interrupted: it writes
// the seeds to seedsOut (when set), prints the banner with the address
// it listens on, and serves.
func serveWeb(cmd *cobra.Command, listen, seedsOut string, seeds []string,
	serve func(context.Context, net.Listener) error, banner func(addr string)) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return failure{err}
	}
	if seedsOut != "" {
		if err := os.WriteFile(seedsOut, []byte(strings.Join(seeds, "\n")+"\n"), 0o644); err != nil {
			ln.Close()
			return failure{err}
		}
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	banner(ln.Addr().String())
	if err := serve(ctx, ln); err != nil {
		return failure{err}
	}
	return nil
}

// applyPreset makes the named preset the starting point of f: the web's
// flags the user gave (set in fs) are applied on top of it.
func applyPreset(f *fakewebFlags, name string, fs *pflag.FlagSet) error {
	base, err := fakeweb.Preset(name)
	if err != nil {
		return err
	}
	var p fakewebFlags
	pfs := pflag.NewFlagSet("preset", pflag.ContinueOnError)
	p.register(pfs, base)
	var errs []error
	fs.Visit(func(fl *pflag.Flag) {
		if pfs.Lookup(fl.Name) != nil {
			if err := pfs.Set(fl.Name, fl.Value.String()); err != nil {
				errs = append(errs, err)
			}
		}
	})
	*f = p
	return errors.Join(errs...)
}

func printFakewebBanner(w io.Writer, addr string, cfg fakeweb.Config) {
	base := "http://" + addr
	fmt.Fprintf(w, "fakeweb listening on %s\n", base)
	fmt.Fprintf(w, "  %d hosts × %d pages under %s; robots.txt variants %s\n",
		cfg.Hosts, cfg.PagesPerHost, cfg.Domain, robotsNames(cfg.Robots))
	if cfg.Hostile {
		h := cfg.HostileConfig
		storm := "none"
		if h.StormHost >= 0 {
			storm = fmt.Sprintf("h%d.%s for %v", h.StormHost, cfg.Domain, h.StormFor)
		}
		fmt.Fprintf(w, "  hostile:   hosts hK with K %% %d == 0 (resources under /x/); storm host %s\n", h.Every, storm)
	}
	if cfg.SPA {
		fmt.Fprintf(w, "  spa:       a share %v of the hosts, evenly from h0, are single-page applications (shells; /spa/app.js, /api/page/N.json, /api/more/N.json; /api/track disallowed)\n", cfg.SPAShare)
	}
	if cfg.Duplicates {
		fmt.Fprintf(w, "  duplicates: every host links to /d/exact/N, /d/near/C/M and /d/distinct/K\n")
	}
	if cfg.Changing {
		c := cfg.ChangingConfig
		kind := "Poisson"
		if c.Periodic {
			kind = "periodic, synchronized"
		}
		fmt.Fprintf(w, "  changing:  /c/N per host: %d fast (mean %v), %d slow (mean %v), %d never; %s since %s\n",
			max(c.Fast, 0), c.FastMean, max(c.Slow, 0), c.SlowMean, max(c.Static, 0), kind, c.Start.UTC().Format(time.RFC3339))
	}
	if cfg.SkewedGraph {
		fmt.Fprintf(w, "  skewed graph: Zipf exponent %v\n", cfg.SkewExponent)
	}
	if cfg.ConditionalRobots {
		fmt.Fprintf(w, "  robots.txt: ETag and Last-Modified; 304 to conditional requests\n")
	}
	fmt.Fprintf(w, "  seeds:     %s/_fakeweb/seeds (or write them with --seeds-out FILE)\n", base)
	fmt.Fprintf(w, "  crawl it:  godwit crawl --proxy %s --seeds FILE\n", base)
	fmt.Fprintf(w, "  report:    curl '%s/_fakeweb/report?delay=%s'\n", base, time.Second)
}

// serveFakeweb runs web on a fresh loopback listener until ctx ends and
// returns its address once it is accepting connections.
func serveFakeweb(ctx context.Context, web *fakeweb.Web) (addr string, done <-chan error, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	ch := make(chan error, 1)
	go func() { ch <- web.Serve(ctx, ln) }()
	return ln.Addr().String(), ch, nil
}

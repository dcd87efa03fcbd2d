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
	fs.IntVar(&f.cfg.Hosts, "hosts", d.Hosts, "number of virtual hosts (h0.<domain> …)")
	fs.StringVar(&f.cfg.Domain, "domain", d.Domain, "domain the virtual hosts live under")
	fs.IntVar(&f.cfg.PagesPerHost, "pages", d.PagesPerHost, "pages per host")
	fs.IntVar(&f.cfg.LinksPerPage, "links", d.LinksPerPage, "links per page")
	fs.IntVar(&f.cfg.PageSize, "page-size", d.PageSize, "approximate page size in bytes")
	fs.Float64Var(&f.cfg.CrossHostShare, "cross-host", d.CrossHostShare, "share of links to other hosts")
	fs.Float64Var(&f.cfg.RedirectShare, "redirects", d.RedirectShare, "share of links that go through a 301")
	fs.DurationVar(&f.cfg.CrawlDelay, "crawl-delay", d.CrawlDelay, "Crawl-delay advertised by crawl-delay hosts")
	fs.DurationVar(&f.cfg.Latency, "latency", d.Latency, "added latency per response")
	fs.Int64Var(&f.cfg.Seed, "seed", d.Seed, "PRNG seed: the same seed gives the same web")
	fs.BoolVar(&f.cfg.Sitemaps, "sitemaps", d.Sitemaps, "robots.txt lists a sitemap index (one gzip child) that also lists pages nothing links to")
	fs.BoolVar(&f.cfg.Requisites, "requisites", d.Requisites, "pages embed stylesheets (with @import and url()), images (also srcset), scripts, an icon and a font, some on the next host (its CDN)")
	fs.BoolVar(&f.cfg.SPA, "spa", d.SPA, "some hosts are single-page applications: empty shells whose script builds text and links from JSON (on even pages partly only when scrolled) and asks /api/track, which robots.txt disallows; not with --traps, --page-signals, --hostile, --duplicates, --changing or --requisites")
	fs.Float64Var(&f.cfg.SPAShare, "spa-share", d.SPAShare, "with --spa, the share of hosts that are SPAs, picked evenly from h0 (0: every host)")
	fs.BoolVar(&f.cfg.PageSignals, "page-signals", d.PageSignals, "some pages carry meta robots, X-Robots-Tag and rel=nofollow; some pages are reachable only through nofollow")
	fs.BoolVar(&f.cfg.Hostile, "hostile", d.Hostile, "hostile hosts link to slow, hanging, dripping, 20 MB, gzip/zstd-bomb, 429/503, redirect-loop, error, non-HTML, legacy-charset and malformed resources; one storm host answers 503 for a while")
	h := &f.cfg.HostileConfig
	fs.IntVar(&h.Every, "hostile-every", d.HostileConfig.Every, "with --hostile, host i is hostile when i % N == 0 (0: every host)")
	fs.DurationVar(&h.SlowDelay, "hostile-slow", d.HostileConfig.SlowDelay, "with --hostile, how long /x/slow takes (0: 1.5s)")
	fs.DurationVar(&h.RetryAfter, "hostile-retry-after", d.HostileConfig.RetryAfter, "with --hostile, the Retry-After of the retry pages, whole seconds (0: 2s)")
	fs.IntVar(&h.StormHost, "hostile-storm-host", d.HostileConfig.StormHost, "with --hostile, index of the storm host (0: the last host; negative: none)")
	fs.DurationVar(&h.StormFor, "hostile-storm", d.HostileConfig.StormFor, "with --hostile, how long the storm host answers 503 (0: 3s)")
	fs.BoolVar(&f.cfg.Duplicates, "duplicates", d.Duplicates, "every host links to exact duplicates (/d/exact/N, also across hosts; one gzip-encoded, one chunked), near-duplicate clusters (/d/near/C/M) and distinct articles (/d/distinct/K) in one template")
	fs.BoolVar(&f.cfg.ConditionalRobots, "conditional-robots", d.ConditionalRobots, "robots.txt answers carry ETag and Last-Modified and answer 304 to a matching If-None-Match or If-Modified-Since")
	fs.BoolVar(&f.cfg.Changing, "changing", d.Changing, "every host links to pages /c/N that change over time (Poisson, some every few seconds, some every few minutes, some never), answer conditional requests and carry sitemap lastmod; ordinary pages get validators too")
	c := &f.cfg.ChangingConfig
	fs.IntVar(&c.Fast, "changing-fast", d.ChangingConfig.Fast, "with --changing, fast-changing pages per host (0: 4; negative: none)")
	fs.IntVar(&c.Slow, "changing-slow", d.ChangingConfig.Slow, "with --changing, slow-changing pages per host (0: 4; negative: none)")
	fs.IntVar(&c.Static, "changing-static", d.ChangingConfig.Static, "with --changing, never-changing pages per host (0: 2; negative: none)")
	fs.DurationVar(&c.FastMean, "changing-fast-mean", d.ChangingConfig.FastMean, "with --changing, mean time between changes of a fast page (0: 3s)")
	fs.BoolVar(&c.Periodic, "changing-periodic", d.ChangingConfig.Periodic, "with --changing, pages change periodically and together (every fast page exactly every --changing-fast-mean from the start, every slow one every --changing-slow-mean) instead of as Poisson processes")
	fs.DurationVar(&c.SlowMean, "changing-slow-mean", d.ChangingConfig.SlowMean, "with --changing, mean time between changes of a slow page (0: 2m)")
	fs.BoolVar(&f.cfg.SkewedGraph, "skewed-graph", d.SkewedGraph, "random links pick their targets by a Zipf law over a random ranking of pages: a few pages have very many in-links, most one or two")
	fs.Float64Var(&f.cfg.SkewExponent, "skew-exponent", d.SkewExponent, "with --skewed-graph, the Zipf exponent (0: 1.2)")
	fs.IntVar(&f.cfg.TreeFanout, "tree-fanout", d.TreeFanout, "children of each page in the tree that keeps every page reachable, like navigation pages (0: 2)")
	fs.BoolVar(&f.cfg.HTTPS, "https", d.HTTPS, "the web's URLs are https:// and --direct serves TLS (h2 and http/1.1 by ALPN) with certificates from a CA made at start (--ca-out)")
	fs.StringVar(&f.badTLS, "bad-tls", "", "with --https, hosts with a bad certificate, as INDEX=KIND,… (KIND expired, wrong-name or unknown-ca; e.g. 1=expired,3=wrong-name)")
	fs.StringVar(&f.robots, "robots", robotsNames(d.Robots),
		"comma-separated robots.txt variants, cycled over the hosts: "+robotsNames(allRobotsKinds()))
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
				return serveShapes(cmd, shape, flags.cfg.Hosts, cmd.Flags().Changed("hosts"), listen, seedsOut)
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
	fs.StringVar(&listen, "listen", "127.0.0.1:8080", "address to listen on (port 0 picks a free port)")
	fs.StringVar(&seedsOut, "seeds-out", "", "write the seed URLs to this file")
	fs.StringVar(&shape, "shape", "", `serve a Shapes web instead (20 hosts unless --hosts): "aliases" (home and section pages also linked as index.html; on h1 every index.html differs), "aliases-tokens" (the same, every page carrying a token new on every request), "aliases-www" (every host also answering under its www. name, pages linking both names; on h2 the www name is another site, on h3 the bare name redirects to it) or "traps" (an endless trap on every host: session chains, calendars, ever-longer searches, repeating paths; 500 pages of pagination on h0); its report counts alias fetches per host, trap requests and coverage`)
	fs.StringVar(&preset, "preset", "", "start from a named shape of web ("+strings.Join(fakeweb.PresetNames(), ", ")+"); other flags given override it")
	fs.StringSliceVar(&direct.addrs, "direct", nil, "also serve the hosts directly (as an origin, not a proxy) on these loopback addresses, e.g. 127.0.0.2,127.0.0.3,127.0.0.4; prints the --resolve lines that spread the hosts over them")
	fs.IntVar(&direct.port, "direct-port", 0, "with --direct, the port on every address (0: a free one each)")
	fs.StringVar(&direct.caOut, "ca-out", "", "with --https, write the CA certificate (PEM) here for the crawler's --ca-cert (default: a file in the temporary directory)")
	fs.StringVar(&direct.configOut, "config-out", "", "with --direct, write a godwit config file (resolve, ca_cert, allow_private) for godwit crawl --config")
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

package main

import (
	"github.com/spf13/pflag"

	"github.com/godwit-crawler/godwit/internal/frontier"
)

// crawlFlags are the command-line forms of the settings.
type crawlFlags struct {
	config       string
	s            crawlSettings
	revisitShare float64
	requisites   bool
}

func (f *crawlFlags) register(fs *pflag.FlagSet) {
	d := defaultSettings()
	fs.StringVar(&f.config, "config", "", "YAML config file (flags override it)")
	fs.StringVar(&f.s.SeedsFile, "seeds", "", "file of seed URLs, one per line, # comments")
	fs.BoolVar(&f.s.SkipBadSeeds, "skip-bad-seeds", false, "report malformed seed lines and go on with the rest")
	fs.StringVar(&f.s.Data, "data", d.Data, "directory for state and outputs; a crawl there resumes with its stored settings (flags given override them)")
	fs.BoolVar(&f.s.Fresh, "fresh", false, "delete godwit's files in --data (state, WARC files) and start a new crawl; refused if anything else is there")
	fs.StringVar(&f.s.Scope, "scope", d.Scope, "what to follow: host, domain (registrable domain of the seeds) or any")
	fs.IntVar(&f.s.MaxDepth, "max-depth", 0, "link hops from a seed (0 = unlimited)")
	fs.Int64Var(&f.s.MaxPages, "max-pages", 0, "stop after this many page fetches (0 = unlimited)")
	fs.DurationVar(&f.s.Delay, "delay", d.Delay, "minimum gap between request starts to one host")
	fs.DurationVar(&f.s.CrawlDelayCap, "crawl-delay-cap", d.CrawlDelayCap, "largest robots.txt Crawl-delay honoured (larger values use the cap)")
	fs.IntVar(&f.s.IPConcurrency, "ip-concurrency", d.IPConcurrency, "most requests in flight to one IP address (IPv6: one /64), over all its hosts (0 = no bound)")
	fs.DurationVar(&f.s.IPDelay, "ip-delay", d.IPDelay, "minimum gap between request starts to one IP address (IPv6: one /64), over all its hosts (default: a quarter of --delay)")
	fs.IntVar(&f.s.Workers, "workers", d.Workers, "concurrent fetches (each to a different host)")
	fs.StringVar(&f.s.UserAgent, "user-agent", "", "User-Agent header (the contact is appended if missing)")
	fs.StringVar(&f.s.Contact, "contact", d.Contact, "contact URL or e-mail put in the User-Agent")
	fs.StringVar(&f.s.Proxy, "proxy", "", "HTTP proxy URL (default: $HTTP_PROXY/$http_proxy, $HTTPS_PROXY, $NO_PROXY); a proxy is trusted")
	fs.BoolVar(&f.s.AllowPrivate, "allow-private", false, "allow loopback, private, link-local and multicast target addresses")
	fs.DurationVar(&f.s.Timeout, "timeout", d.Timeout, "whole-request timeout, body included")
	fs.Int64Var(&f.s.MaxBodyBytes, "max-body", d.MaxBodyBytes, "body size cap in bytes (longer bodies are truncated and marked); config key max_body")
	fs.StringVar(&f.s.LogLevel, "log-level", d.LogLevel, "debug, info, warn or error")
	fs.StringVar(&f.s.Admin, "admin", d.Admin, `admin API and dashboard address, or "off"`)
	fs.StringVar(&f.s.AdminToken, "admin-token", "", "bearer token the admin API requires (required off loopback; default $GODWIT_ADMIN_TOKEN)")
	fs.StringVar(&f.s.MemoryLimit, "memory-limit", "", "soft memory limit of the process, e.g. 256MiB or 2GiB (default: $GOMEMLIMIT, else none)")
	fs.BoolVar(&f.s.Continuous, "continuous", false, "never finish: revisit fetched pages as their estimated change rate and importance say")
	fs.Float64Var(&f.revisitShare, "revisit-share", frontier.DefaultRevisitShare, "with --continuous, the share of fetch capacity reserved for revisits while discovery has work (0..1)")
	fs.StringVar(&f.s.Order, "order", d.Order, "how each host's queue is served: importance (OPIC) or breadth-first")
	fs.BoolVar(&f.requisites, "requisites", true, "also fetch what fetched pages need to render (images, stylesheets and what they import, scripts, fonts, media), one embed hop beyond --max-depth")
	fs.StringVar(&f.s.RequisitesScope, "requisites-scope", d.RequisitesScope, "where requisites may be: any (any host, e.g. a CDN; exclude rules apply) or pages (the pages' scope)")
	f.registerTransport(fs)
	f.registerStore(fs)
	f.registerCluster(fs)
	f.registerProcessors(fs)
	f.registerRender(fs)
}

// settings merges defaults, the config file and the flags that were set.
func (f *crawlFlags) settings(fs *pflag.FlagSet, args []string) (crawlSettings, error) {
	return f.settingsOver(defaultSettings(), fs, args)
}

// settingsOver merges the config file and the flags that were set over s:
// the defaults, or a resumed crawl's stored settings.
func (f *crawlFlags) settingsOver(s crawlSettings, fs *pflag.FlagSet, args []string) (crawlSettings, error) {
	if f.config != "" {
		if err := loadConfigFile(f.config, &s); err != nil {
			return s, err
		}
	}
	set := func(name string, apply func()) {
		if fs.Changed(name) {
			apply()
		}
	}
	set("seeds", func() { s.SeedsFile = f.s.SeedsFile })
	set("skip-bad-seeds", func() { s.SkipBadSeeds = f.s.SkipBadSeeds })
	set("data", func() { s.Data = f.s.Data })
	set("fresh", func() { s.Fresh = f.s.Fresh })
	set("scope", func() { s.Scope = f.s.Scope })
	set("max-depth", func() { s.MaxDepth = f.s.MaxDepth })
	set("max-pages", func() { s.MaxPages = f.s.MaxPages })
	set("delay", func() { s.Delay = f.s.Delay })
	set("crawl-delay-cap", func() { s.CrawlDelayCap = f.s.CrawlDelayCap })
	set("ip-concurrency", func() { s.IPConcurrency = f.s.IPConcurrency })
	set("ip-delay", func() { s.IPDelay = f.s.IPDelay })
	set("workers", func() { s.Workers = f.s.Workers })
	set("user-agent", func() { s.UserAgent = f.s.UserAgent })
	set("contact", func() { s.Contact = f.s.Contact })
	set("proxy", func() { s.Proxy = f.s.Proxy })
	set("allow-private", func() { s.AllowPrivate = f.s.AllowPrivate })
	set("timeout", func() { s.Timeout = f.s.Timeout })
	set("max-body", func() { s.MaxBodyBytes = f.s.MaxBodyBytes })
	set("log-level", func() { s.LogLevel = f.s.LogLevel })
	set("memory-limit", func() { s.MemoryLimit = f.s.MemoryLimit })
	set("admin", func() { s.Admin = f.s.Admin; s.adminExplicit = true })
	set("admin-token", func() { s.AdminToken = f.s.AdminToken })
	set("continuous", func() { s.Continuous = f.s.Continuous })
	set("revisit-share", func() { s.Recrawl.RevisitShare = &f.revisitShare })
	set("order", func() { s.Order = f.s.Order })
	set("requisites", func() { s.Requisites = &f.requisites })
	set("requisites-scope", func() { s.RequisitesScope = f.s.RequisitesScope })
	f.applyTransport(fs, &s)
	f.applyStore(fs, &s)
	f.applyCluster(fs, &s)
	f.applyProcessors(fs, &s)
	f.applyRender(fs, &s)
	s.Seeds = append(s.Seeds, args...)
	return s, s.validate()
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net/mail"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/freshness"
	"github.com/godwit-crawler/godwit/internal/frontier"
	"github.com/godwit-crawler/godwit/internal/process"
	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// crawlSettings is everything `godwit crawl` can be told, from a YAML file
// (--config) and flags; flags win. It is plain data: defaultSettings fills
// it, validate checks it, and wire turns it into the packages' configs.
type crawlSettings struct {
	Seeds         []string      `yaml:"seeds"`
	SeedsFile     string        `yaml:"seeds_file"`
	SkipBadSeeds  bool          `yaml:"skip_bad_seeds"`
	Data          string        `yaml:"data"`
	Fresh         bool          `yaml:"-"` // flag only: a config file should not wipe a crawl
	Scope         string        `yaml:"scope"`
	MaxDepth      int           `yaml:"max_depth"`
	MaxPages      int64         `yaml:"max_pages"`
	Delay         time.Duration `yaml:"delay"`
	CrawlDelayCap time.Duration `yaml:"crawl_delay_cap"`
	// IPConcurrency and IPDelay are the IP budget hosts on one address
	// share (IPv4; IPv6 by /64): requests in flight to it (0: no bound)
	// and the least gap between request starts to it (0: a quarter of
	// Delay, see ipDelay). Fetching directly only: through a proxy godwit
	// does not see the hosts' addresses.
	IPConcurrency int           `yaml:"ip_concurrency"`
	IPDelay       time.Duration `yaml:"ip_delay"`
	Workers       int           `yaml:"workers"`
	UserAgent     string        `yaml:"user_agent"`
	Contact       string        `yaml:"contact"`
	Proxy         string        `yaml:"proxy"`
	AllowPrivate  bool          `yaml:"allow_private"`
	Timeout       time.Duration `yaml:"timeout"`
	MaxBodyBytes  int64         `yaml:"max_body"` // formerly max_body_bytes, still read (configcheck.go)
	Grace         time.Duration `yaml:"grace"`
	LogLevel      string        `yaml:"log_level"`
	// MemoryLimit is the Go runtime's soft memory limit ("256MiB"); empty
	// leaves it to GOMEMLIMIT or the runtime's default (none).
	MemoryLimit string `yaml:"memory_limit"`
	// Resolve sends host names to fixed addresses (--resolve); CACert
	// names a PEM file of extra trusted roots (--ca-cert). transport.go.
	Resolve []string `yaml:"resolve"`
	CACert  string   `yaml:"ca_cert"`
	// HTTP2 is "off" (offer only http/1.1 by ALPN) or "auto" (offer h2
	// too, speak it where the server picks it); --http2.
	HTTP2 string `yaml:"http2"`
	// Admin is the admin API's address ("off": none); AdminToken its
	// bearer token, required when Admin is not a loopback address.
	Admin      string `yaml:"admin"`
	AdminToken string `yaml:"admin_token"`
	// Continuous keeps crawling: fetched URLs are revisited as Recrawl
	// says, and the crawl runs until stopped.
	Continuous bool            `yaml:"continuous"`
	Recrawl    recrawlSettings `yaml:"recrawl"`
	// Order is how each host's queue is served: "importance" (OPIC cash,
	// depth, sitemap priority) or "breadth-first" (depth).
	Order  string         `yaml:"order"`
	Robots robotsSettings `yaml:"robots"`
	Adapt  adaptSettings  `yaml:"adapt"`
	Dedup  dedupSettings  `yaml:"dedup"`
	WARC   warcSettings   `yaml:"warc"`
	// Store is the object store WARC files are uploaded to (store.go).
	Store storeSettings `yaml:"store"`
	// Cluster joins a crawl across several nodes (cluster.go).
	Cluster clusterSettings `yaml:"cluster"`
	// Process are the content processors and page events (processors.go).
	Process processorSettings `yaml:"processing"`

	// URL identity, scope rules and trap defences: see the "URLs, scope
	// and traps" block at the end of this file.
	URL     urlSettings   `yaml:"url"`
	Include scopeSettings `yaml:"include"`
	Exclude scopeSettings `yaml:"exclude"`
	Traps   trapSettings  `yaml:"traps"`

	// Sitemaps and page-level robots signals.
	Sitemaps sitemapSettings `yaml:"sitemaps"`
	Pages    pageSettings    `yaml:"pages"`
	// Requisites fetches the images, stylesheets, scripts, fonts and
	// media pages embed (nil: on); RequisitesScope is "any" (any host,
	// a CDN; the default) or "pages" (the pages' scope).
	Requisites      *bool  `yaml:"requisites"`
	RequisitesScope string `yaml:"requisites_scope"`
	// Render renders pages in a headless browser (render.go).
	Render renderSettings `yaml:"render"`

	// proxyEnv is the proxy environment (HTTP_PROXY, HTTPS_PROXY,
	// NO_PROXY), used when Proxy is empty. Only the crawl command fills it.
	proxyEnv fetch.ProxyEnv
	// resolver replaces the system resolver; tests set it.
	resolver fetch.Resolver
	// goProcessors run after those Process names; tests set them.
	goProcessors []process.Processor
	// adminExplicit: --admin was given, so failing to bind it is an error
	// (the default address may be taken by another crawl: a warning).
	adminExplicit bool
	// adminListening, if set, is told the admin server's address once it
	// listens; tests set it.
	adminListening func(addr string)
	// warnings are what reading the config file has to say (an old key
	// name); the crawl logs them.
	warnings []string
}

type robotsSettings struct {
	TTL        time.Duration `yaml:"ttl"`
	Retries    int           `yaml:"retries"`
	Backoff    time.Duration `yaml:"backoff"`
	BackoffMax time.Duration `yaml:"backoff_max"`
	// AllowAfter: unreachable this long, robots.txt counts as absent (RFC 9309 §2.3.1.4).
	AllowAfter time.Duration `yaml:"allow_after"`
}

// adaptSettings are the adaptive politeness and retry settings
// (politeness.Policy, crawl.Config.MaxRetries). Zero values mean the
// packages' defaults.
type adaptSettings struct {
	// Retries: extra attempts per URL after a transient failure.
	Retries int `yaml:"retries"`
	// LatencyFactor: the gap is at least this × the server's time to
	// first byte, up to MaxLatencyDelay; negative turns it off.
	LatencyFactor   float64       `yaml:"latency_factor"`
	MaxLatencyDelay time.Duration `yaml:"max_latency_delay"`
	RetryAfterCap   time.Duration `yaml:"retry_after_cap"`
	Backoff         time.Duration `yaml:"backoff"`
	BackoffMax      time.Duration `yaml:"backoff_max"`
	// Breaker: consecutive failures that park a host, for how long at
	// first, and at most.
	BreakerThreshold int           `yaml:"breaker_threshold"`
	BreakerOpen      time.Duration `yaml:"breaker_open"`
	BreakerOpenMax   time.Duration `yaml:"breaker_open_max"`
}

// recrawlSettings are the revisit policy of a continuous crawl
// (frontier.Options, freshness.Policy).
type recrawlSettings struct {
	// Policy: "optimal" (freshness-optimal intervals from each URL's
	// change estimate and importance) or "uniform" (one interval for
	// all: a baseline).
	Policy string `yaml:"policy"`
	// MinInterval and MaxInterval bound every revisit interval.
	MinInterval time.Duration `yaml:"min_interval"`
	MaxInterval time.Duration `yaml:"max_interval"`
	// RevisitShare is the share of fetch capacity reserved for revisits
	// while discovery has work, 0..1 (nil: 0.3).
	RevisitShare *float64 `yaml:"revisit_share"`
}

// dedupSettings are the archive's deduplication policy (archive.Options).
type dedupSettings struct {
	// RevisitMin: identical payloads at least this long become revisit
	// records; default 1024, negative: never.
	RevisitMin int64 `yaml:"revisit_min"`
	// NearDuplicates: record (default), skip or off.
	NearDuplicates string `yaml:"near_duplicates"`
	// NearDistance: SimHash Hamming distance, 0..3 (default 3).
	NearDistance int `yaml:"near_distance"`
	// NearWindow: how many of the last texts indexed a page is compared
	// with, at most (at least half as many); default 1,000,000, negative:
	// all (memory grows with the crawl). archive.Options.NearWindow.
	NearWindow int `yaml:"near_window"`
}

type warcSettings struct {
	Prefix  string `yaml:"prefix"`
	MaxSize int64  `yaml:"max_size"`
	Node    string `yaml:"node"`
	Digest  string `yaml:"digest"`
}

// defaultContact identifies godwit itself when the operator gives no
// contact of their own. Broad crawls should set --contact.
const defaultContact = "https://github.com/godwit-crawler/godwit"

// defaultAdmin is where a crawl serves its admin API and dashboard.
const defaultAdmin = "127.0.0.1:7070"

// The IP budget's defaults (docs/decisions.md, 2026-11-27): four
// requests in flight to one address, and starts to it at least a quarter
// of the host delay apart (ipDelay), so an address serving many hosts gets
// at most four times the request rate of one host.
const defaultIPConcurrency = 4

// ipDelay is the IP budget's gap: IPDelay when given, else a quarter
// of the host delay (250ms at the default 1s), so that the budget never
// slows a lone host below the --delay its operator chose.
func (s crawlSettings) ipDelay() time.Duration {
	if s.IPDelay > 0 {
		return s.IPDelay
	}
	return s.Delay / 4
}

func defaultSettings() crawlSettings {
	return crawlSettings{
		Data:          "./godwit-data",
		Admin:         defaultAdmin,
		Scope:         "domain",
		HTTP2:         "off",
		Delay:         time.Second,
		CrawlDelayCap: 60 * time.Second,
		IPConcurrency: defaultIPConcurrency,
		Workers:       16,
		Contact:       defaultContact,
		Timeout:       30 * time.Second,
		MaxBodyBytes:  10 << 20,
		Grace:         5 * time.Second,
		LogLevel:      "info",
		Robots: robotsSettings{
			TTL:        24 * time.Hour,
			Retries:    3,
			Backoff:    time.Minute,
			BackoffMax: time.Hour,
		},
		WARC: warcSettings{Prefix: "godwit", MaxSize: 1 << 30, Digest: "sha1"},
		Process: processorSettings{
			Budget:        defaultProcessorBudget,
			InFlight:      8,
			Errors:        "skip",
			EventsMaxSize: 64 << 20,
		},
		Order:           "importance",
		RequisitesScope: "any",
		Recrawl: recrawlSettings{
			Policy:      "optimal",
			MinInterval: freshness.DefaultMinInterval,
			MaxInterval: freshness.DefaultMaxInterval,
		},
	}
}

// loadConfigFile decodes a YAML config file over s. Unknown keys are
// errors; errors name the key and the value in words (checkConfig).
func loadConfigFile(path string, s *crawlSettings) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("config %s: %s", path, yamlSyntaxError(err))
	}
	warnings, err := checkConfig(&doc)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	if len(warnings) > 0 { // keys were renamed in doc
		if b, err = yaml.Marshal(&doc); err != nil {
			return fmt.Errorf("config %s: %w", path, err)
		}
	}
	s.warnings = append(s.warnings, warnings...)
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(s); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("config %s: %s", path, oneLine(strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:")))
	}
	return nil
}

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

// validate checks what the packages' own Validate cannot: the shape of
// user-facing values.
func (s crawlSettings) validate() error {
	switch {
	case s.Data == "":
		return errors.New("--data must not be empty")
	case s.Delay < 0:
		return fmt.Errorf("--delay %v is negative", s.Delay)
	case s.IPConcurrency < 0:
		return fmt.Errorf("--ip-concurrency %d is negative", s.IPConcurrency)
	case s.IPDelay < 0:
		return fmt.Errorf("--ip-delay %v is negative", s.IPDelay)
	case s.Workers < 1:
		return fmt.Errorf("--workers %d must be at least 1", s.Workers)
	case s.MaxDepth < 0:
		return fmt.Errorf("--max-depth %d is negative", s.MaxDepth)
	case s.MaxPages < 0:
		return fmt.Errorf("--max-pages %d is negative", s.MaxPages)
	case s.MaxBodyBytes <= 0:
		return fmt.Errorf("--max-body %d must be positive", s.MaxBodyBytes)
	case s.Timeout <= 0:
		return fmt.Errorf("--timeout %v must be positive", s.Timeout)
	}
	switch s.Scope {
	case "host", "domain", "any":
	default:
		return fmt.Errorf("--scope %q: want host, domain or any", s.Scope)
	}
	switch s.Order {
	case "importance", "breadth-first":
	default:
		return fmt.Errorf("--order %q: want importance or breadth-first", s.Order)
	}
	switch s.RequisitesScope {
	case "any", "pages":
	default:
		return fmt.Errorf("--requisites-scope %q: want any or pages", s.RequisitesScope)
	}
	if err := s.Recrawl.validate(); err != nil {
		return err
	}
	if err := s.Store.validate(); err != nil {
		return err
	}
	if err := s.Cluster.validate(); err != nil {
		return err
	}
	if err := s.Process.validate(); err != nil {
		return err
	}
	if err := s.Render.validate(); err != nil {
		return err
	}
	if _, err := parseLevel(s.LogLevel); err != nil {
		return err
	}
	if s.MemoryLimit != "" {
		if _, err := parseBytes(s.MemoryLimit); err != nil {
			return fmt.Errorf("--memory-limit: %w", err)
		}
	}
	if err := checkContact(s.Contact); err != nil {
		return err
	}
	if _, _, err := s.transport(); err != nil {
		return err
	}
	if s.HTTP2 != "auto" && s.HTTP2 != "off" && s.HTTP2 != "" { // "" (a config from before the key): off
		return fmt.Errorf("--http2 %q: want auto or off", s.HTTP2)
	}
	if s.Proxy != "" {
		u, err := url.Parse(s.Proxy)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--proxy %q: want http://host:port", s.Proxy)
		}
	}
	return nil
}

func (r recrawlSettings) validate() error {
	switch r.Policy {
	case "optimal", "uniform":
	default:
		return fmt.Errorf("recrawl.policy %q: want optimal or uniform", r.Policy)
	}
	if r.RevisitShare != nil && !(*r.RevisitShare >= 0 && *r.RevisitShare <= 1) {
		return fmt.Errorf("--revisit-share %v: want a share between 0 and 1", *r.RevisitShare)
	}
	return r.freshness().Validate()
}

// freshness is the revisit interval policy.
func (r recrawlSettings) freshness() freshness.Policy {
	p := freshness.Policy{MinInterval: r.MinInterval, MaxInterval: r.MaxInterval}
	p.Default()
	return p
}

// share is frontier.Options.RevisitShare: negative for an explicit 0.
func (r recrawlSettings) share() float64 {
	switch {
	case r.RevisitShare == nil:
		return 0
	case *r.RevisitShare == 0:
		return -1
	}
	return *r.RevisitShare
}

// checkContact accepts an http(s) URL or an e-mail address.
func checkContact(c string) error {
	if u, err := url.Parse(c); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	if a, err := mail.ParseAddress(strings.TrimPrefix(c, "mailto:")); err == nil && a.Name == "" {
		return nil
	}
	return fmt.Errorf("--contact %q: want an http(s) URL or an e-mail address", c)
}

// userAgent composes the User-Agent header: it always carries the contact.
func (s crawlSettings) userAgent() string {
	ua := s.UserAgent
	if ua == "" {
		ua = "godwit/" + godwitVersion()
	}
	if !strings.Contains(ua, strings.TrimPrefix(s.Contact, "mailto:")) {
		ua += " (+" + s.Contact + ")"
	}
	return ua
}

// parseBytes reads a size such as "1048576", "512KiB", "256MiB", "2GiB"
// (binary units, as GOMEMLIMIT spells them; "B" optional).
func parseBytes(v string) (int64, error) {
	num := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"B", 1}} {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is not a positive size such as 512MiB or 2GiB", v)
	}
	return n * mult, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// --- URLs, scope and traps -------------------------------------------------
//
// These settings have no flags: they are lists and limits that belong in
// a config file. Zero values mean the packages' defaults (urlnorm.Options,
// crawl.Traps); a negative trap limit turns that defence off.

// urlSettings is how godwit identifies a page (urlnorm.Options).
type urlSettings struct {
	// StripParams and SessionParams replace the default lists when
	// present; an empty list ([]) strips nothing.
	StripParams    []string `yaml:"strip_params"`
	SessionParams  []string `yaml:"session_params"`
	KeepQueryOrder bool     `yaml:"keep_query_order"`
	// LearnAliases learns URL aliases per host (crawl.Aliases); default
	// true.
	LearnAliases *bool `yaml:"learn_aliases"`
}

// scopeSettings are URL prefixes and regular expressions (crawl.ScopeRules).
type scopeSettings struct {
	Prefixes []string `yaml:"prefixes"`
	Patterns []string `yaml:"patterns"`
}

// trapSettings are the spider-trap defences (crawl.Traps).
type trapSettings struct {
	MaxURLLength     int   `yaml:"max_url_length"`
	MaxPathDepth     int   `yaml:"max_path_depth"`
	MaxPathRepeats   int   `yaml:"max_path_repeats"`
	MaxQueryParams   int   `yaml:"max_query_params"`
	MaxCalendarSteps int   `yaml:"max_calendar_steps"`
	HostPages        int64 `yaml:"host_pages"`
	TemplatePages    int   `yaml:"template_pages"`
	TemplateHops     int   `yaml:"template_hops"`
	Anomaly          struct {
		MinURLs int64   `yaml:"min_urls"`
		Ratio   float64 `yaml:"ratio"`
		Pages   int64   `yaml:"pages"`
	} `yaml:"anomaly"`
}

func (u urlSettings) options() urlnorm.Options {
	return urlnorm.Options{StripParams: u.StripParams, SessionParams: u.SessionParams, KeepQueryOrder: u.KeepQueryOrder}
}

// applyURLSettings copies the URL, scope and trap settings into the core's
// configuration, which checks them (crawl.Config.Validate).
func (s crawlSettings) applyURLSettings(c *crawl.Config) {
	c.Sitemaps = crawl.Sitemaps{Off: s.Sitemaps.Off, Guess: s.Sitemaps.Guess, MaxNesting: s.Sitemaps.MaxNesting}
	c.Pages = crawl.PageSignals{FollowNofollowLinks: s.Pages.FollowNofollowLinks,
		ArchiveNoArchive: s.Pages.ArchiveNoArchive, OmitNoIndex: s.Pages.OmitNoIndex}
	c.Requisites = crawl.Requisites{Off: s.Requisites != nil && !*s.Requisites, PageScope: s.RequisitesScope == "pages"}
	c.URL = s.URL.options()
	c.Aliases.Off = s.URL.LearnAliases != nil && !*s.URL.LearnAliases
	c.Include = crawl.ScopeRules{Prefixes: s.Include.Prefixes, Patterns: s.Include.Patterns}
	c.Exclude = crawl.ScopeRules{Prefixes: s.Exclude.Prefixes, Patterns: s.Exclude.Patterns}
	t := s.Traps
	c.Traps = crawl.Traps{
		MaxURLLength:     t.MaxURLLength,
		MaxPathDepth:     t.MaxPathDepth,
		MaxPathRepeats:   t.MaxPathRepeats,
		MaxQueryParams:   t.MaxQueryParams,
		MaxCalendarSteps: t.MaxCalendarSteps,
		HostPages:        t.HostPages,
		TemplatePages:    t.TemplatePages,
		TemplateHops:     t.TemplateHops,
		Anomaly:          crawl.AnomalyThrottle{MinURLs: t.Anomaly.MinURLs, Ratio: t.Anomaly.Ratio, Pages: t.Anomaly.Pages},
	}
}

// sitemapSettings is how sitemaps are used (crawl.Sitemaps).
type sitemapSettings struct {
	Off        bool `yaml:"off"`         // ignore robots.txt Sitemap: lines
	Guess      bool `yaml:"guess"`       // also try /sitemap.xml where robots.txt lists none
	MaxNesting int  `yaml:"max_nesting"` // sitemap index levels; default 3
}

// pageSettings are the page-level robots signal options (crawl.PageSignals).
type pageSettings struct {
	FollowNofollowLinks bool `yaml:"follow_nofollow_links"` // follow rel=nofollow links
	ArchiveNoArchive    bool `yaml:"archive_noarchive"`     // keep the body of noarchive pages
	OmitNoIndex         bool `yaml:"omit_noindex"`          // also leave out the body of noindex pages
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/freshness"
	"github.com/godwit-crawler/godwit/internal/process"
)

// crawlSettings is everything `godwit crawl` can be told, from a YAML file
// (--config) and flags (config_flags.go); flags win. It is plain data:
// defaultSettings fills it, validate checks it (config_validate.go), and
// runLocked turns it into the packages' configs (assembly.go).
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

	// URL identity, scope rules and trap defences (config_url.go).
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

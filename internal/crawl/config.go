package crawl

import (
	"errors"
	"fmt"
	"time"

	"github.com/godwit-crawler/godwit/internal/politeness"
	"github.com/godwit-crawler/godwit/internal/render"
	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// Config is the core's configuration: plain data, the zero value plus
// Default works, Validate checks it. Only cmd/godwit reads flags and files.
type Config struct {
	Workers      int       // concurrent workers; default 16
	MaxDepth     int       // link hops from a seed; 0 = unlimited
	MaxPages     int64     // page fetches (robots.txt not counted); 0 = unlimited
	MaxRedirects int       // consecutive redirects followed; default 5
	MaxRetries   int       // extra attempts after a transient failure; default 2
	Scope        ScopeMode // default ScopeDomain
	// Agent is the product token matched against robots.txt user-agent
	// lines; default "godwit".
	Agent string
	// Grace is how long in-flight fetches may continue after the crawl is
	// told to stop; default 5s.
	Grace time.Duration
	// ParseMemory bounds the memory of large pages being decoded and
	// parsed at once, across workers; default 64 MiB. A page over 256 KiB
	// (64 KiB compressed) takes twice its size from it, a compressed one a
	// quarter of it (its decoded size is unknown until decoded: a bomb
	// decodes to the fetcher's cap), so at most four compressed giants
	// are expanded at a time, whatever the number of workers.
	ParseMemory int64
	// KeepTrying: when every seed fails at the first contact and no host
	// has answered anything, wait for robots.txt retries (minutes apart)
	// instead of giving up at once (SeedReport). A continuous crawl sets
	// it: it is a service, and waits out an outage.
	KeepTrying bool
	Politeness politeness.Policy
	URL        urlnorm.Options

	// Include admits URLs outside the seeds' hosts or domains; Exclude
	// refuses URLs whatever else says (it wins over Include and Scope).
	// Redirects to URLs out of scope are archived, not followed.
	Include ScopeRules
	Exclude ScopeRules
	// Traps are the spider-trap defences.
	Traps Traps
	// Aliases is URL alias learning (aliases.go).
	Aliases Aliases
	// Sitemaps says how sitemaps are used.
	Sitemaps Sitemaps
	// Pages says how page-level robots signals are honoured beyond the
	// defaults: <meta name=robots> and X-Robots-Tag nofollow are always
	// obeyed.
	Pages PageSignals
	// Requisites says how the resources pages need to render are fetched.
	Requisites Requisites
	// Render says which pages are rendered in a browser (render.go).
	Render Render
}

// Requisites configures page requisites: the images, stylesheets,
// scripts, fonts and media a fetched page embeds, and the resources its
// stylesheets import, are queued as embeds (Link.Embed) and fetched like
// any URL of their host (robots.txt, politeness, the seen-set, the body
// cap), one embed hop that does not count toward MaxDepth.
type Requisites struct {
	// Off fetches no requisites.
	Off bool
	// PageScope holds requisites to the pages' scope (Scope, Include);
	// by default they may be on any host (a CDN). Exclude rules apply
	// either way.
	PageScope bool
	// MaxHops bounds embed hops (page → stylesheet → imported
	// stylesheet → font is 3), a backstop: a stylesheet chain is bounded
	// by its budget (requisite_chains.go); default 32.
	MaxHops int
	// ChainBudget is how many references the stylesheets of one chain
	// (a stylesheet a page embeds and all it imports, to any depth) may
	// have followed; default 200.
	ChainBudget int
}

// Default fills zero fields.
func (r *Requisites) Default() {
	if r.MaxHops == 0 {
		r.MaxHops = 32
	}
	if r.ChainBudget == 0 {
		r.ChainBudget = 200
	}
}

// Default fills zero fields.
func (c *Config) Default() {
	if c.Render.Mode == "" {
		c.Render.Mode = render.Never
	}
	if c.Render.MaxShare == 0 {
		c.Render.MaxShare = 0.2
	}
	if c.Render.Learn == 0 {
		c.Render.Learn = 3
	}
	if c.Workers == 0 {
		c.Workers = 16
	}
	if c.MaxRedirects == 0 {
		c.MaxRedirects = 5
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = 2
	}
	if c.Scope == "" {
		c.Scope = ScopeDomain
	}
	if c.Agent == "" {
		c.Agent = "godwit"
	}
	if c.Grace == 0 {
		c.Grace = 5 * time.Second
	}
	if c.ParseMemory == 0 {
		c.ParseMemory = 64 << 20
	}
	c.Politeness.Default()
	c.URL.Default()
	c.Traps.Default()
	c.Aliases.Default()
	c.Sitemaps.Default()
	c.Requisites.Default()
}

// Validate reports every setting that cannot work.
func (c Config) Validate() error {
	var errs []error
	if c.Workers < 1 {
		errs = append(errs, fmt.Errorf("crawl: workers %d must be at least 1", c.Workers))
	}
	if c.MaxDepth < 0 {
		errs = append(errs, fmt.Errorf("crawl: max depth %d is negative", c.MaxDepth))
	}
	if c.MaxPages < 0 {
		errs = append(errs, fmt.Errorf("crawl: max pages %d is negative", c.MaxPages))
	}
	if c.MaxRedirects < 0 {
		errs = append(errs, fmt.Errorf("crawl: max redirects %d is negative", c.MaxRedirects))
	}
	if c.MaxRetries < 0 {
		errs = append(errs, fmt.Errorf("crawl: max retries %d is negative", c.MaxRetries))
	}
	if _, err := ParseScope(string(c.Scope)); err != nil {
		errs = append(errs, err)
	}
	if c.ParseMemory < 1<<20 {
		errs = append(errs, fmt.Errorf("crawl: parse memory %d must be at least 1 MiB", c.ParseMemory))
	}
	if c.Requisites.MaxHops < 1 {
		errs = append(errs, fmt.Errorf("crawl: requisite hops %d must be at least 1", c.Requisites.MaxHops))
	}
	if c.Grace < 0 {
		errs = append(errs, fmt.Errorf("crawl: grace %v is negative", c.Grace))
	}
	errs = append(errs, c.Politeness.Validate(), c.URL.Validate(),
		c.Include.validate("include"), c.Exclude.validate("exclude"), c.Traps.Validate(), c.Sitemaps.Validate(), c.Aliases.Validate())
	return errors.Join(errs...)
}

// PageSignals are the settings for page-level robots signals.
type PageSignals struct {
	// FollowNofollowLinks follows links marked rel=nofollow (default: not).
	FollowNofollowLinks bool
	// ArchiveNoArchive keeps the body of noarchive pages in the WARC
	// (default: the response record holds only the HTTP header).
	ArchiveNoArchive bool
	// OmitNoIndex also keeps the body of noindex pages out of the WARC.
	// Default off: noindex asks search engines not to index a page, which
	// an archive is not; the signal is recorded either way.
	OmitNoIndex bool
}

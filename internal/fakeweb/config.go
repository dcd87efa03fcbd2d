package fakeweb

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// RobotsKind selects what a host answers for /robots.txt.
type RobotsKind int

const (
	// RobotsAllow answers 200 with a file that allows everything.
	RobotsAllow RobotsKind = iota
	// RobotsDisallow answers 200; every agent is kept out of /private/ and a
	// group for "otherbot" disallows everything (a crawler must not apply
	// another agent's group to itself).
	RobotsDisallow
	// RobotsCrawlDelay is RobotsDisallow plus "Crawl-delay: <Config.CrawlDelay>"
	// in the "*" group.
	RobotsCrawlDelay
	// RobotsNotFound answers 404: by RFC 9309 everything is allowed.
	RobotsNotFound
	// RobotsServerError answers 500: by RFC 9309 the host is unavailable.
	RobotsServerError
	// RobotsHang never answers; the request waits until the client gives
	// up or the web stops, and the connection is then dropped.
	RobotsHang
	// RobotsWildcard answers 200 with Allow and Disallow patterns using
	// "*" and "$" (RFC 9309 section 2.2.3), and the host has pages under
	// /w/ on both sides of each pattern, linked from its home page: see
	// WildcardPaths.
	RobotsWildcard
	// RobotsAgentGroup answers 200 with a "*" group that disallows /p/ and
	// two groups naming godwit (spelled "GodWit" and "godwit", one shared
	// with another agent) that RFC 9309 merges: godwit may fetch /p/ but
	// not /private/, which the "*" group allows.
	RobotsAgentGroup
	// RobotsRedirect answers 301 to /robots-real.txt on the same host,
	// which answers 200 with the rules of RobotsDisallow.
	RobotsRedirect
	// RobotsFlaky answers 503 to the first Config.FlakyRobotsFailures
	// requests for /robots.txt (counted per host since New or Reset), then
	// 200 with the rules of RobotsDisallow. Once it has answered 200 the
	// host is crawlable: its pages are in the ground truth.
	RobotsFlaky
)

// robotsKindNames is indexed by RobotsKind; the names are what String,
// MarshalText and ParseRobotsKind speak.
var robotsKindNames = [...]string{
	RobotsAllow:       "allow",
	RobotsDisallow:    "disallow",
	RobotsCrawlDelay:  "crawl-delay",
	RobotsNotFound:    "not-found",
	RobotsServerError: "server-error",
	RobotsHang:        "hang",
	RobotsWildcard:    "wildcard",
	RobotsAgentGroup:  "agent-group",
	RobotsRedirect:    "redirect",
	RobotsFlaky:       "flaky",
}

const numRobotsKinds = len(robotsKindNames)

// RobotsKinds returns every robots.txt kind, in the order of their values.
func RobotsKinds() []RobotsKind {
	kinds := make([]RobotsKind, len(robotsKindNames))
	for i := range kinds {
		kinds[i] = RobotsKind(i)
	}
	return kinds
}

func (k RobotsKind) String() string {
	if k.valid() {
		return robotsKindNames[k]
	}
	return "RobotsKind(" + strconv.Itoa(int(k)) + ")"
}

// ParseRobotsKind returns the kind named s ("allow", "disallow",
// "crawl-delay", "not-found", "server-error", "hang", "wildcard",
// "agent-group", "redirect", "flaky"), ignoring case.
func ParseRobotsKind(s string) (RobotsKind, error) {
	for k, name := range robotsKindNames {
		if strings.EqualFold(s, name) {
			return RobotsKind(k), nil
		}
	}
	return 0, fmt.Errorf("fakeweb: unknown robots kind %q (want one of %s)", s, strings.Join(robotsKindNames[:], ", "))
}

// MarshalText lets a RobotsKind appear by name in JSON or TOML.
func (k RobotsKind) MarshalText() ([]byte, error) {
	if !k.valid() {
		return nil, fmt.Errorf("fakeweb: invalid robots kind %d", int(k))
	}
	return []byte(robotsKindNames[k]), nil
}

// UnmarshalText is the inverse of MarshalText.
func (k *RobotsKind) UnmarshalText(b []byte) error {
	v, err := ParseRobotsKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

func (k RobotsKind) valid() bool { return k >= 0 && int(k) < len(robotsKindNames) }

// available reports whether a crawler may fetch anything but robots.txt
// from a host of this kind: RFC 9309 treats an unreachable robots.txt as
// "disallow all".
func (k RobotsKind) available() bool { return k != RobotsServerError && k != RobotsHang }

// hasPrivate reports whether the host's robots.txt disallows /private/
// for godwit, which is also when /private/N pages exist and are linked to.
func (k RobotsKind) hasPrivate() bool {
	switch k {
	case RobotsDisallow, RobotsCrawlDelay, RobotsWildcard, RobotsAgentGroup, RobotsRedirect, RobotsFlaky:
		return true
	}
	return false
}

// hasRules reports whether a host of this kind eventually answers a
// robots.txt (or its redirect target) with 200 and a file of rules, the
// hosts whose robots.txt can name sitemaps.
func (k RobotsKind) hasRules() bool { return k == RobotsAllow || k.hasPrivate() }

// Limits. The product bound keeps the ground-truth arrays of Report (a few
// bytes per page) and the PRNG stream numbering (see streamID) in range.
const (
	maxHosts        = 1 << 20
	maxPagesPerHost = 1 << 26
	maxPages        = 1 << 26
	maxLinksPerPage = 1000
	maxPageSize     = 16 << 20
	maxOrphanPages  = 10000
	maxFlaky        = 1000
)

// Config describes a simulated web. It is plain data: the zero value is a
// valid small web once Default has run, and New calls Default itself.
type Config struct {
	// Hosts is the number of virtual hosts, named h0..h{Hosts-1}.<Domain>.
	Hosts int
	// Domain is the parent domain of every host. Lower case, no port.
	Domain string
	// PagesPerHost counts the home page (page 0, "/") and /p/1../p/{N-1}.
	PagesPerHost int
	// LinksPerPage is the number of crawlable links on each public page
	// (at least 2: every page i links to pages 2i+1 and 2i+2 so that the
	// whole host hangs off its home page). The home page of a host with
	// /private/ pages carries one more link, to /private/0, and every page
	// has a few non-crawlable links (mailto:, javascript:, tel:) on top.
	LinksPerPage int
	// PageSize is the approximate size of a page's HTML in bytes; padding
	// text makes up what the markup does not.
	PageSize int
	// CrossHostShare is the share of random links that point to another
	// host. Zero means the default; a negative value means none.
	CrossHostShare float64
	// RedirectShare is the share of random links that point at /r/N, which
	// answers 301 with Location http://<same host>/p/N. Zero means the
	// default; a negative value means none.
	RedirectShare float64
	// Robots assigns robots.txt behaviour: host i gets Robots[i%len(Robots)].
	// Empty means every host is RobotsAllow.
	Robots []RobotsKind
	// CrawlDelay is what RobotsCrawlDelay hosts advertise, in whole
	// milliseconds, written in seconds with decimals ("Crawl-delay: 0.2").
	CrawlDelay time.Duration
	// Latency is added to every response, robots.txt included. Zero means none.
	Latency time.Duration
	// HTTPS makes every absolute URL the web writes (seeds, links,
	// redirects, sitemaps, requisites) https:// instead of http://, for a
	// crawl of the web served by ServeTLS. The pages are the same either
	// way; URLs of the other scheme are not the web's pages (the truth
	// and the report do not know them).
	HTTPS bool
	// Seed seeds every pseudo-random choice: the same Config, Seed included,
	// gives a byte-identical web.
	Seed int64
	// Traps enables spider traps; all are off by default (see Traps).
	Traps Traps
	// FlakyRobotsFailures is how many requests for /robots.txt a
	// RobotsFlaky host answers 503 before it answers 200. Zero means 2.
	FlakyRobotsFailures int
	// Sitemaps makes every host whose robots.txt answers 200 name a
	// sitemap index in it (see the package documentation, "Sitemaps").
	Sitemaps bool
	// OrphanPages is the number of pages /orphan/0.. per host that only
	// the host's sitemaps list: no page links to them. It matters only
	// with Sitemaps. Zero means 5; a negative value means none.
	OrphanPages int
	// PageSignals adds page-level robots signals: robots meta tags,
	// X-Robots-Tag headers and rel="nofollow" links, pages /nofollow/N
	// linked only through nofollow, and pages /follow/N linked only from
	// pages whose signals do not apply to godwit (see the package
	// documentation).
	PageSignals bool
	// Hostile gives hostile hosts (see HostileConfig.Every) slow, hanging,
	// dripping, huge and compressed-bomb resources, retry pages, redirect
	// chains and loops, error pages, non-HTML files, pages in legacy
	// charsets and tag soup, all linked from their home pages, validators
	// and 304 answers on their pages, and a storm host (see the package
	// documentation, "Hostile web").
	Hostile bool
	// HostileConfig tunes Hostile; it is ignored, and left alone by
	// Default, while Hostile is off.
	HostileConfig HostileConfig
	// Duplicates gives every host pages whose content is duplicated
	// exactly (also across hosts, one copy gzip-encoded and one chunked)
	// or nearly, and distinct articles in the same template, linked from
	// its home page and labelled by ContentLabels (see the package
	// documentation, "Duplicate content").
	Duplicates bool
	// ConditionalRobots gives every robots.txt answered 200 an ETag and
	// a Last-Modified, and answers 304 to a request for it that they
	// match, as the pages of a hostile host do (see the package
	// documentation, "robots.txt").
	ConditionalRobots bool
	// Changing gives every host pages /c/N, linked from its home page and
	// listed in its sitemaps, that change over time at known rates, and
	// validators and 304 answers on its ordinary pages and these (see the
	// package documentation, "Changing pages").
	Changing bool
	// ChangingConfig tunes Changing; it is ignored, and left alone by
	// Default, while Changing is off.
	ChangingConfig ChangingConfig
	// SkewedGraph makes the random links of ordinary pages pick their
	// targets by a Zipf law over a random ranking of each host's pages,
	// so that in-degrees are skewed (see the package documentation, "The
	// skewed graph", and InDegree).
	SkewedGraph bool
	// TreeFanout is the number of children of each page in the tree that
	// keeps every page reachable (page n links to pages fanout·n+1 …
	// fanout·n+fanout). Zero means 2. A wide tree is a site whose
	// navigation (category and archive pages) lists many pages: its
	// first levels hold many pages nobody else links to, which is where
	// breadth-first order loses to importance order. Pages keep
	// LinksPerPage−2 other links (LinksPerPage on leaves) whatever the
	// fanout.
	TreeFanout int
	// SkewExponent is the exponent of that Zipf law. Zero means 1.2. It is
	// ignored while SkewedGraph is off.
	SkewExponent float64
	// Requisites gives every ordinary page the resources a browser needs
	// to render it: a stylesheet that imports another and names a
	// background, an image and a font (on the CDN host) in url(), scripts
	// (one on the CDN host), an icon, and an image with a srcset; the
	// next host, h(i+1 mod Hosts), is host i's CDN. Report counts the
	// requisites of the pages fetched, and those fetched (see the package
	// documentation, "Page requisites").
	Requisites bool
	// SPA makes some hosts single-page applications: their ordinary
	// pages are empty shells whose script builds text and links from a
	// JSON endpoint of the host, on even pages partly only when scrolled,
	// and asks /api/track, which their robots.txt disallows (see the
	// package documentation, "Single-page applications"). It cannot be
	// combined with Traps, PageSignals, Hostile, Duplicates, Changing or
	// Requisites, whose additions the shells do not carry.
	SPA bool
	// SPAShare is the share of hosts that are SPAs with SPA, picked
	// evenly from host 0. Zero means 1: every host.
	SPAShare float64
	// Now is the web's clock: it stamps the request log and drives the
	// changing pages. Nil means time.Now. It is not configuration one
	// writes in a file, hence the tags.
	Now func() time.Time `json:"-" toml:"-"`
}

// Default fills zero fields with the defaults documented on each field.
func (c *Config) Default() {
	if c.Hosts == 0 {
		c.Hosts = 10
	}
	if c.Domain == "" {
		c.Domain = "fake.test"
	}
	if c.PagesPerHost == 0 {
		c.PagesPerHost = 50
	}
	if c.LinksPerPage == 0 {
		c.LinksPerPage = 8
	}
	if c.PageSize == 0 {
		c.PageSize = 2048
	}
	if c.CrossHostShare == 0 {
		c.CrossHostShare = 0.1
	}
	if c.RedirectShare == 0 {
		c.RedirectShare = 0.05
	}
	if c.CrawlDelay == 0 {
		c.CrawlDelay = time.Second
	}
	if c.FlakyRobotsFailures == 0 {
		c.FlakyRobotsFailures = 2
	}
	if c.OrphanPages == 0 {
		c.OrphanPages = 5
	}
	if c.Hostile {
		c.HostileConfig.defaults(c.Hosts)
	}
	if c.Changing {
		c.ChangingConfig.defaults()
	}
	if c.SkewedGraph && c.SkewExponent == 0 {
		c.SkewExponent = 1.2
	}
	if c.TreeFanout == 0 {
		c.TreeFanout = 2
	}
	if c.SPA && c.SPAShare == 0 {
		c.SPAShare = 1
	}
}

// Validate reports every setting that cannot work. It expects Default to
// have run: zero counts are errors here.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("fakeweb: "+format, args...))
	}
	if c.Hosts < 1 || c.Hosts > maxHosts {
		bad("hosts %d is outside 1..%d", c.Hosts, maxHosts)
	}
	if err := checkDomain(c.Domain); err != nil {
		errs = append(errs, err)
	}
	if c.OrphanPages > maxOrphanPages {
		bad("orphan pages %d exceeds %d", c.OrphanPages, maxOrphanPages)
	}
	if c.PagesPerHost < 1 || c.PagesPerHost > maxPagesPerHost {
		bad("pages per host %d is outside 1..%d", c.PagesPerHost, maxPagesPerHost)
	} else if c.Hosts >= 1 && c.Hosts <= maxHosts && c.Hosts*c.PagesPerHost > maxPages {
		bad("%d hosts × %d pages exceeds %d pages in all", c.Hosts, c.PagesPerHost, maxPages)
	} else if c.Hosts >= 1 && c.Hosts <= maxHosts && c.OrphanPages <= maxOrphanPages && c.Hosts*(c.PagesPerHost+c.extraPages()) > maxPages {
		bad("%d hosts × (%d pages + %d orphan, signal and wildcard pages, hostile and duplicate ones included) exceeds %d pages in all",
			c.Hosts, c.PagesPerHost, c.extraPages(), maxPages)
	}
	if c.LinksPerPage < 2 || c.LinksPerPage > maxLinksPerPage {
		bad("links per page %d is outside 2..%d", c.LinksPerPage, maxLinksPerPage)
	}
	if c.PageSize < 1 || c.PageSize > maxPageSize {
		bad("page size %d is outside 1..%d", c.PageSize, maxPageSize)
	}
	for _, s := range []struct {
		name string
		v    float64
	}{{"cross-host share", c.CrossHostShare}, {"redirect share", c.RedirectShare}} {
		if math.IsNaN(s.v) || s.v > 1 {
			bad("%s %v is not at most 1", s.name, s.v)
		}
	}
	if share(c.CrossHostShare)+share(c.RedirectShare) > 1 {
		bad("cross-host share %v plus redirect share %v exceeds 1", c.CrossHostShare, c.RedirectShare)
	}
	for i, k := range c.Robots {
		if !k.valid() {
			bad("robots[%d] is invalid kind %d", i, int(k))
		}
	}
	if c.CrawlDelay <= 0 || c.CrawlDelay%time.Millisecond != 0 {
		bad("crawl delay %v is not a positive whole number of milliseconds", c.CrawlDelay)
	}
	if c.Latency < 0 {
		bad("latency %v is negative", c.Latency)
	}
	if c.FlakyRobotsFailures < 1 || c.FlakyRobotsFailures > maxFlaky {
		bad("flaky robots failures %d is outside 1..%d", c.FlakyRobotsFailures, maxFlaky)
	}
	if c.Hostile {
		if err := c.HostileConfig.validate(c.Hosts); err != nil {
			errs = append(errs, err)
		}
	}
	if c.Changing {
		if err := c.ChangingConfig.validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if c.SPA {
		if math.IsNaN(c.SPAShare) || c.SPAShare <= 0 || c.SPAShare > 1 {
			bad("spa share %v is outside (0, 1]", c.SPAShare)
		}
		for _, f := range []struct {
			name string
			on   bool
		}{{"traps", len(c.Traps.Kinds()) > 0}, {"page signals", c.PageSignals}, {"hostile", c.Hostile},
			{"duplicates", c.Duplicates}, {"changing", c.Changing}, {"requisites", c.Requisites}} {
			if f.on {
				bad("spa cannot be combined with %s", f.name)
			}
		}
	} else if c.SPAShare != 0 {
		bad("spa share %v is set without spa", c.SPAShare)
	}
	if c.TreeFanout < 1 || c.TreeFanout > maxLinksPerPage {
		bad("tree fanout %d is outside 1..%d", c.TreeFanout, maxLinksPerPage)
	}
	if c.SkewedGraph {
		if math.IsNaN(c.SkewExponent) || c.SkewExponent <= 0 || c.SkewExponent > 5 {
			bad("skew exponent %v is outside (0, 5]", c.SkewExponent)
		}
		if c.Hosts >= 1 && c.Hosts <= maxHosts && c.PagesPerHost >= 1 && c.Hosts*c.PagesPerHost > maxSkewPages {
			bad("a skewed graph of %d hosts × %d pages exceeds %d pages", c.Hosts, c.PagesPerHost, maxSkewPages)
		}
	}
	return errors.Join(errs...)
}

// orphans is the number of orphan pages per host: none without Sitemaps.
func (c Config) orphans() int {
	if !c.Sitemaps {
		return 0
	}
	return max(c.OrphanPages, 0)
}

// signalPages is the number of /nofollow/N and /follow/N pages per host.
func (c Config) signalPages() int {
	if !c.PageSignals {
		return 0
	}
	return numNofollowPages + numFollowPages
}

// wildPages is the number of /w/ pages per host: WildcardPaths on every
// host if any host is RobotsWildcard (the ground truth indexes hosts
// alike), none otherwise.
func (c Config) wildPages() int {
	if slices.Contains(c.Robots, RobotsWildcard) {
		return len(wildPaths)
	}
	return 0
}

// extraPages is the number of pages per host beyond PagesPerHost that
// the ground truth can hold.
func (c Config) extraPages() int {
	return c.orphans() + c.signalPages() + c.wildPages() + c.hostilePages() + c.dupPages() + c.changePages()
}

// share maps the "negative means none" convention onto a probability.
func share(v float64) float64 { return max(v, 0) }

// checkDomain accepts lower-case DNS names of letters, digits and hyphens.
// Upper case is refused rather than folded so that the names in pages, in
// Seeds and in the request log are the one canonical spelling.
func checkDomain(d string) error {
	if d == "" || len(d) > 200 {
		return fmt.Errorf("fakeweb: domain %q must have 1..200 characters", d)
	}
	labels := strings.Split(d, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return fmt.Errorf("fakeweb: domain %q has an invalid label %q", d, l)
		}
		for i := 0; i < len(l); i++ {
			b := l[i]
			if (b < 'a' || b > 'z') && (b < '0' || b > '9') && b != '-' {
				return fmt.Errorf("fakeweb: domain %q must be lower-case letters, digits, hyphens and dots", d)
			}
		}
	}
	if _, err := strconv.Atoi(labels[len(labels)-1]); err == nil {
		return fmt.Errorf("fakeweb: domain %q looks like an IP address", d)
	}
	return nil
}

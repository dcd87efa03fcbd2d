package fakeweb

import (
	"errors"
	"fmt"
	"math"
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
}

func (k RobotsKind) String() string {
	if k.valid() {
		return robotsKindNames[k]
	}
	return "RobotsKind(" + strconv.Itoa(int(k)) + ")"
}

// ParseRobotsKind returns the kind named s ("allow", "disallow",
// "crawl-delay", "not-found", "server-error", "hang"), ignoring case.
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

// hasPrivate reports whether the host's robots.txt disallows /private/,
// which is also when /private/N pages exist and are linked to.
func (k RobotsKind) hasPrivate() bool { return k == RobotsDisallow || k == RobotsCrawlDelay }

// Limits. The product bound keeps the ground-truth arrays of Report (a few
// bytes per page) and the PRNG stream numbering (see streamID) in range.
const (
	maxHosts        = 1 << 20
	maxPagesPerHost = 1 << 26
	maxPages        = 1 << 26
	maxLinksPerPage = 1000
	maxPageSize     = 16 << 20
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
	// Seed seeds every pseudo-random choice: the same Config, Seed included,
	// gives a byte-identical web.
	Seed int64
	// Traps enables spider traps; all are off by default (see Traps).
	Traps Traps
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
	if c.PagesPerHost < 1 || c.PagesPerHost > maxPagesPerHost {
		bad("pages per host %d is outside 1..%d", c.PagesPerHost, maxPagesPerHost)
	} else if c.Hosts >= 1 && c.Hosts <= maxHosts && c.Hosts*c.PagesPerHost > maxPages {
		bad("%d hosts × %d pages exceeds %d pages in all", c.Hosts, c.PagesPerHost, maxPages)
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
	return errors.Join(errs...)
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

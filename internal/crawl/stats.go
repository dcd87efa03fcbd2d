package crawl

import (
	"sync/atomic"
	"time"

	"github.com/godwit-crawler/godwit/internal/fetch"
)

// Stats is a snapshot of a crawl's counters. Counts are of events seen by
// this process since Run started.
type Stats struct {
	Started time.Time
	Elapsed time.Duration

	// Pages counts page responses received (any status but a redirect's,
	// 304 included); robots.txt, sitemaps and redirects are counted on
	// their own (RobotsFetches, SitemapFetches, Redirects), so that
	// Pages + Redirects + SitemapFetches + RobotsFetches is every answer.
	Pages int64
	// Requisites counts requisite responses received (any status): the
	// images, stylesheets, scripts, fonts … pages embed (Link.Embed);
	// they are not in Pages.
	Requisites     int64
	Bytes          int64 // raw body bytes received, robots.txt and sitemaps included
	RobotsFetches  int64 // robots.txt requests sent
	Redirects      int64 // 3xx responses to page requests (not 304)
	SitemapFetches int64 // responses to sitemap requests (any status)
	Retries        int64 // tasks put back for another attempt
	NotModified    int64 // 304 answers to conditional requests
	Throttled      int64 // 429 and 503 answers (Retry-After honoured when given)
	Truncated      int64 // bodies cut at the size cap or the timeout (kept, marked)

	Transient int64 // failures that may succeed later (incl. 5xx answers given up on)
	Permanent int64 // failures that will not succeed (4xx, invalid, NXDOMAIN)
	Policy    int64 // URLs not fetched on purpose (robots.txt, SSRF guard)
	// TLS counts failed requests (robots.txt, sitemaps and pages, each
	// attempt) whose TLS failed, by kind (fetch.TLSKind). They are also
	// among the failures above: a certificate error is permanent, a
	// handshake timeout transient.
	TLS TLSStats

	RobotsDisallowed  int64 // URLs skipped because robots.txt disallows them
	RobotsUnavailable int64 // URLs dropped because their host's robots.txt stayed unreachable

	Discovered int64 // outlinks and redirect targets considered
	// RequisitesFound counts the requisites considered (embeds of pages
	// and stylesheets), RequisiteHops those not followed past
	// Requisites.MaxHops or past a stylesheet chain's budget
	// (requisite_chains.go). Queued counts the new ones too.
	RequisitesFound int64
	RequisiteHops   int64
	Queued          int64 // of those, new URLs queued
	// OutOfScope counts URLs refused by scope: outside the seeds' hosts
	// or domains, or matched by an exclude rule (ScopeExcluded of them).
	// ScopeIncluded counts URLs admitted by an include rule although
	// outside the seeds' scope. RedirectsOutOfScope counts redirects whose
	// target is out of scope: archived, not followed (also in OutOfScope).
	OutOfScope          int64
	ScopeExcluded       int64
	ScopeIncluded       int64
	RedirectsOutOfScope int64
	TooDeep             int64 // past --max-depth
	NotHTTP             int64 // mailto:, javascript:, ftp: …: recorded, not queued
	Invalid             int64
	TooManyRedirects    int64

	Sitemaps    int64 // sitemap files fetched and read (2xx)
	SitemapURLs int64 // URLs and child sitemaps they listed

	NofollowPages int64 // pages whose meta robots or X-Robots-Tag said nofollow
	NofollowLinks int64 // rel=nofollow links not followed
	// Traps counts URLs refused by the spider-trap defences, by reason.
	Traps TrapStats
	// Aliases counts what URL alias learning did (aliases.go).
	Aliases AliasStats

	Frontier FrontierStats
}

// PagesPerSecond over the whole run.
func (s Stats) PagesPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Pages) / s.Elapsed.Seconds()
}

// Errors is the number of URLs given up on because their fetch failed.
// URLs skipped by policy (robots.txt, the SSRF guard) are not errors.
func (s Stats) Errors() int64 { return s.Transient + s.Permanent }

// counters are the live, concurrently updated form of Stats.
type counters struct {
	pages, bytes, robotsFetches, redirects, retries  atomic.Int64
	sitemapFetches                                   atomic.Int64
	notModified, throttled, truncated                atomic.Int64
	transient, permanent, policy                     atomic.Int64
	robotsDisallowed, robotsUnavailable              atomic.Int64
	discovered, queued, outOfScope, tooDeep, notHTTP atomic.Int64
	invalid, tooManyRedirects                        atomic.Int64
	sitemaps, sitemapURLs                            atomic.Int64
	nofollowPages, nofollowLinks                     atomic.Int64
	requisites, requisitesFound, requisiteHops       atomic.Int64

	scopeExcluded, scopeIncluded, redirectsOutOfScope atomic.Int64
	trapURLLength, trapPathDepth, trapRepeats         atomic.Int64
	trapParams, trapCalendar, trapHostPages           atomic.Int64
	trapAnomaly, demotedHosts, trapTemplate           atomic.Int64

	aliasRewritten, aliasSkipped, aliasVerified atomic.Int64
	aliasAdopted, aliasRetracted                atomic.Int64

	tlsUnknownAuthority, tlsExpired, tlsNameMismatch atomic.Int64
	tlsInvalid, tlsHandshakeTimeout, tlsProtocol     atomic.Int64
}

// TLSStats counts failed requests by the kind of their TLS failure.
type TLSStats struct {
	UnknownAuthority int64 // the chain leads to no trusted root
	Expired          int64 // a certificate expired or not yet valid
	NameMismatch     int64 // the certificate is for another name
	Invalid          int64 // any other certificate problem
	HandshakeTimeout int64 // the handshake did not finish in time
	Protocol         int64 // alerts, no common version or suite, not TLS at all
}

// Total is the number of failed requests counted.
func (s TLSStats) Total() int64 {
	return s.UnknownAuthority + s.Expired + s.NameMismatch + s.Invalid + s.HandshakeTimeout + s.Protocol
}

// ByKind returns the non-zero counts keyed by fetch's kind names.
func (s TLSStats) ByKind() map[string]int64 {
	m := map[string]int64{}
	for k, v := range map[string]int64{
		fetch.TLSUnknownAuthority: s.UnknownAuthority, fetch.TLSExpired: s.Expired,
		fetch.TLSNameMismatch: s.NameMismatch, fetch.TLSInvalid: s.Invalid,
		fetch.TLSHandshakeTimeout: s.HandshakeTimeout, fetch.TLSProtocol: s.Protocol,
	} {
		if v > 0 {
			m[k] = v
		}
	}
	return m
}

// countTLS counts err under its TLS failure kind, if it is one.
func (c *counters) countTLS(err error) {
	switch fetch.TLSKind(err) {
	case fetch.TLSUnknownAuthority:
		c.tlsUnknownAuthority.Add(1)
	case fetch.TLSExpired:
		c.tlsExpired.Add(1)
	case fetch.TLSNameMismatch:
		c.tlsNameMismatch.Add(1)
	case fetch.TLSInvalid:
		c.tlsInvalid.Add(1)
	case fetch.TLSHandshakeTimeout:
		c.tlsHandshakeTimeout.Add(1)
	case fetch.TLSProtocol:
		c.tlsProtocol.Add(1)
	}
}

// countRefusal counts a refusal by the discovery chain under its reason.
func (c *counters) countRefusal(v verdict) {
	switch v {
	case refuseNotHTTP:
		c.notHTTP.Add(1)
	case refuseInvalid:
		c.invalid.Add(1)
	case refuseRedirects:
		c.tooManyRedirects.Add(1)
	case refuseTooDeep:
		c.tooDeep.Add(1)
	case refuseOutOfScope:
		c.outOfScope.Add(1)
	case refuseEmbedHops:
		c.requisiteHops.Add(1)
	case refuseInPageRepeat:
	default:
		c.countTrap(string(v))
	}
}

// countTrap counts a refusal by the trap defences under its reason.
func (c *counters) countTrap(reason string) {
	switch reason {
	case trapURLLength:
		c.trapURLLength.Add(1)
	case trapPathDepth:
		c.trapPathDepth.Add(1)
	case trapRepeats:
		c.trapRepeats.Add(1)
	case trapParams:
		c.trapParams.Add(1)
	case trapCalendar:
		c.trapCalendar.Add(1)
	case trapHostPages:
		c.trapHostPages.Add(1)
	case trapAnomaly:
		c.trapAnomaly.Add(1)
	case trapTemplate:
		c.trapTemplate.Add(1)
	}
}

func (c *counters) countClass(cl Class) {
	switch cl {
	case ClassTransient:
		c.transient.Add(1)
	case ClassPermanent:
		c.permanent.Add(1)
	case ClassPolicy:
		c.policy.Add(1)
	}
}

func (c *counters) snapshot() Stats {
	return Stats{
		Pages:             c.pages.Load(),
		Requisites:        c.requisites.Load(),
		RequisitesFound:   c.requisitesFound.Load(),
		RequisiteHops:     c.requisiteHops.Load(),
		Bytes:             c.bytes.Load(),
		RobotsFetches:     c.robotsFetches.Load(),
		Redirects:         c.redirects.Load(),
		SitemapFetches:    c.sitemapFetches.Load(),
		Retries:           c.retries.Load(),
		NotModified:       c.notModified.Load(),
		Throttled:         c.throttled.Load(),
		Truncated:         c.truncated.Load(),
		Transient:         c.transient.Load(),
		Permanent:         c.permanent.Load(),
		Policy:            c.policy.Load(),
		RobotsDisallowed:  c.robotsDisallowed.Load(),
		RobotsUnavailable: c.robotsUnavailable.Load(),
		Discovered:        c.discovered.Load(),
		Queued:            c.queued.Load(),
		OutOfScope:        c.outOfScope.Load(),
		TooDeep:           c.tooDeep.Load(),
		NotHTTP:           c.notHTTP.Load(),
		Invalid:           c.invalid.Load(),
		TooManyRedirects:  c.tooManyRedirects.Load(),
		Sitemaps:          c.sitemaps.Load(),
		SitemapURLs:       c.sitemapURLs.Load(),
		NofollowPages:     c.nofollowPages.Load(),
		NofollowLinks:     c.nofollowLinks.Load(),

		ScopeExcluded:       c.scopeExcluded.Load(),
		ScopeIncluded:       c.scopeIncluded.Load(),
		RedirectsOutOfScope: c.redirectsOutOfScope.Load(),
		Traps: TrapStats{
			URLTooLong:    c.trapURLLength.Load(),
			PathTooDeep:   c.trapPathDepth.Load(),
			PathRepeats:   c.trapRepeats.Load(),
			TooManyParams: c.trapParams.Load(),
			Calendar:      c.trapCalendar.Load(),
			HostBudget:    c.trapHostPages.Load(),
			Anomaly:       c.trapAnomaly.Load(),
			DemotedHosts:  c.demotedHosts.Load(),
			Template:      c.trapTemplate.Load(),
		},
		TLS: TLSStats{
			UnknownAuthority: c.tlsUnknownAuthority.Load(),
			Expired:          c.tlsExpired.Load(),
			NameMismatch:     c.tlsNameMismatch.Load(),
			Invalid:          c.tlsInvalid.Load(),
			HandshakeTimeout: c.tlsHandshakeTimeout.Load(),
			Protocol:         c.tlsProtocol.Load(),
		},
		Aliases: AliasStats{
			Rewritten: c.aliasRewritten.Load(),
			Skipped:   c.aliasSkipped.Load(),
			Verified:  c.aliasVerified.Load(),
			Adopted:   c.aliasAdopted.Load(),
			Retracted: c.aliasRetracted.Load(),
		},
	}
}

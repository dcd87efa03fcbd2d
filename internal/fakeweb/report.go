package fakeweb

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// ViolationKind names a rule a crawler broke.
type ViolationKind string

const (
	ViolationConcurrency     ViolationKind = "concurrency"      // two requests in flight to one host
	ViolationGap             ViolationKind = "gap"              // requests to one host started too close together
	ViolationDisallowed      ViolationKind = "disallowed"       // a path robots.txt disallows
	ViolationBeforeRobots    ViolationKind = "before_robots"    // a request before robots.txt had been answered
	ViolationUnavailableHost ViolationKind = "unavailable_host" // a request to a host whose robots.txt fails
	ViolationUnknownHost     ViolationKind = "unknown_host"     // a request for a host the web does not have
	ViolationDuplicate       ViolationKind = "duplicate"        // a URL fetched again after an answer
	ViolationOutOfTruth      ViolationKind = "out_of_truth"     // a URL no correct crawl reaches
	ViolationHiddenLink      ViolationKind = "hidden_link"      // a link only a comment or script carries
	ViolationNofollowOnly    ViolationKind = "nofollow_only"    // a page only nofollow leads to
	ViolationRetryAfter      ViolationKind = "retry_after"      // a request sooner than a Retry-After allowed
	ViolationIPConcurrency   ViolationKind = "ip_concurrency"   // more requests in flight to one address than the IP budget
	ViolationIPGap           ViolationKind = "ip_gap"           // requests to one address started too close together
)

// Violation is one broken rule.
type Violation struct {
	Kind   ViolationKind `json:"kind"`
	Host   string        `json:"host"`
	Path   string        `json:"path"`
	At     time.Time     `json:"at"` // when the offending request started: its Request.At
	Detail string        `json:"detail"`
}

// maxViolations bounds Report.Violations; the counters are always complete.
const maxViolations = 100

// Report is the server-side judgment of a crawl: what the web actually
// saw, compared with what a polite and correct crawler would have done.
// A request can break several rules and is then counted under each.
type Report struct {
	Requests       int `json:"requests"`        // every logged request
	PageRequests   int `json:"page_requests"`   // requests to virtual hosts but robots.txt and sitemaps
	RobotsRequests int `json:"robots_requests"` // requests for /robots.txt (and /robots-real.txt)
	// SitemapRequests counts requests for the sitemap files of
	// Config.Sitemaps (and /sitemap.xml, which answers 404). They are
	// held to every rule of politeness and robots.txt, but they are not
	// pages: never duplicates, out of the ground truth or covered.
	SitemapRequests int `json:"sitemap_requests"`

	// ConcurrencyViolations counts requests that started while another
	// request to the same host was in flight (handler entered, response
	// not yet ready).
	ConcurrencyViolations int `json:"concurrency_violations"`
	// GapViolations counts requests that started sooner after the previous
	// request to the host than the required gap (see Judge.Delay);
	// robots.txt counts like any other request.
	GapViolations int `json:"gap_violations"`
	// MinGap is the smallest start-to-start gap seen on each host with at
	// least two requests, in nanoseconds in JSON.
	MinGap map[string]time.Duration `json:"min_gap_ns"`
	// IPConcurrencyViolations counts direct requests that started while
	// Judge.IPConcurrency others to the same local address were in
	// flight; IPGapViolations those that started sooner than
	// Judge.IPDelay after the previous one to the address. IPPeak is the
	// most requests seen in flight at once on each address, and IPMinGap
	// the smallest start-to-start gap on it (nanoseconds in JSON).
	IPConcurrencyViolations int                      `json:"ip_concurrency_violations"`
	IPGapViolations         int                      `json:"ip_gap_violations"`
	IPPeak                  map[string]int           `json:"ip_peak,omitempty"`
	IPMinGap                map[string]time.Duration `json:"ip_min_gap_ns,omitempty"`
	// DisallowedRequests counts requests for paths the host's robots.txt
	// disallows for "godwit" (the /private/ pages, and /w/ paths on
	// RobotsWildcard hosts). The judge matches the cleaned path and the
	// query of the request against the rules by RFC 9309: the groups
	// naming godwit merged, else "*"; "*" and "$" in patterns; the longest
	// matching pattern wins and Allow wins a tie.
	DisallowedRequests int `json:"disallowed_requests"`
	// BeforeRobots counts requests other than robots.txt that started
	// before any robots.txt response of their host was ready. A redirect
	// is not a response here: a RobotsRedirect host is ready once
	// /robots-real.txt has answered.
	BeforeRobots int `json:"before_robots"`
	// UnavailableHostRequests counts requests other than robots.txt to
	// hosts whose robots.txt answers 5xx or never answers, and to
	// RobotsFlaky hosts after a 5xx answer and before the first 200.
	UnavailableHostRequests int `json:"unavailable_host_requests"`
	// UnknownHostRequests counts requests for hosts the web does not have
	// (including CONNECT).
	UnknownHostRequests int `json:"unknown_host_requests"`
	// Duplicates counts requests, robots.txt aside, for a URL already
	// answered once. URLs are compared after canonicalization (host case,
	// ":80", query, fragment and dot segments folded), so "/p/7?utm_source=x"
	// repeats "/p/7". A request that got no answer, or was answered 429
	// or 5xx, or was for the hostile web's endless /x/drip, does not make
	// later ones duplicates: retrying after a timeout or a transient
	// failure is fine.
	Duplicates int `json:"duplicates"`
	// NofollowOnlyFetched counts requests for pages (and redirects) that
	// only nofollow leads to, with Config.PageSignals: in the ground truth
	// computed following every link, not in the real one, or a /nofollow/
	// page. The real ground truth follows a page's links only if the page
	// is not nofollow for godwit (robots or godwit meta tag, X-Robots-Tag
	// without an agent or for godwit) and each link only if it is not
	// rel="nofollow". These requests are not counted in OutOfTruth.
	NofollowOnlyFetched int `json:"nofollow_only_fetched"`

	// Reachable counts the pages of the ground truth: those reachable from
	// the seeds within Judge.MaxDepth, following only the links of pages
	// the crawler may fetch. Covered counts those answered 200 at least
	// once, and Coverage is Covered/Reachable (1 when nothing is reachable).
	Reachable int     `json:"reachable"`
	Covered   int     `json:"covered"`
	Coverage  float64 `json:"coverage"`
	// Missing names up to 20 reachable pages never answered 200 (host
	// and path), to say what a crawl with Coverage below 1 missed.
	Missing []string `json:"missing,omitempty"`
	// OutOfTruth counts distinct URLs requested (robots.txt aside) that
	// are neither a reachable page nor a reachable redirect: too deep,
	// disallowed, on an unavailable host, or not on the web at all.
	OutOfTruth int `json:"out_of_truth"`
	// SitemapOnly counts the pages of the ground truth that only sitemaps
	// make reachable (within MaxDepth): the orphan pages, and listed pages
	// links reach too deep or not at all. SitemapOnlyCovered counts those
	// answered 200; they are also in Reachable and Covered.
	SitemapOnly        int `json:"sitemap_only"`
	SitemapOnlyCovered int `json:"sitemap_only_covered"`

	// TrapRequests counts requests that only a crawler caught in one of
	// the enabled traps (Config.Traps) makes: pages of a calendar, a
	// repeating path or a search, links read out of comments or scripts,
	// relative links resolved without their <base>, undecoded "&amp;" in
	// a query, markup taken for a URL, and pages fetched again under
	// another session ID. Traps breaks them down by trap (every enabled
	// trap is present). These requests are not counted in OutOfTruth.
	TrapRequests int              `json:"trap_requests"`
	Traps        map[TrapKind]int `json:"traps"`

	// The hostile web (Config.Hostile); all zero or nil without it.
	//
	// RetryAfterSent counts answers that carried Retry-After, and
	// RetryAfterViolations requests to a host (robots.txt included) that
	// started after such an answer was ready and before the time it named
	// (End plus the delay in seconds, or the HTTP-date, which the web
	// rounds up to the second), less Judge.Tolerance.
	RetryAfterSent       int `json:"retry_after_sent,omitempty"`
	RetryAfterViolations int `json:"retry_after_violations,omitempty"`
	// ConditionalRequests counts requests that carried If-None-Match or
	// If-Modified-Since, and NotModified the 304 answers, robots.txt
	// included (logged with Config.Hostile, Config.ConditionalRobots or
	// Config.Changing).
	// A 304 for a page of the ground truth covers it as a 200 does.
	ConditionalRequests int `json:"conditional_requests,omitempty"`
	NotModified         int `json:"not_modified,omitempty"`
	// RobotsConditional and RobotsNotModified are the part of
	// ConditionalRequests and NotModified that asked for robots.txt (or
	// /robots-real.txt). A 304 for robots.txt is an answer like a 200:
	// the host's rules are known from then on.
	RobotsConditional int `json:"robots_conditional,omitempty"`
	RobotsNotModified int `json:"robots_not_modified,omitempty"`
	// CharsetLinks counts the charset targets in the ground truth (the
	// pages the links of the legacy-charset pages name, at the URLs the
	// WHATWG URL standard resolves them to), and CharsetLinksFetched those
	// covered. They are also in Reachable and Covered.
	CharsetLinks        int `json:"charset_links,omitempty"`
	CharsetLinksFetched int `json:"charset_links_fetched,omitempty"`
	// Hostile counts requests per hostile resource, by the names the
	// package documentation lists ("slow", "hang", "gzip-bomb", ...), and
	// under "storm" the storm host's 503 answers. Every name is present
	// when Config.Hostile is on.
	Hostile map[string]int `json:"hostile,omitempty"`

	// ContentDuplicates counts requests for the pages of
	// Config.Duplicates by kind: ContentExact, ContentNear and
	// ContentDistinct, all present when it is on, nil otherwise.
	ContentDuplicates map[string]int `json:"content_duplicates,omitempty"`

	// Single-page applications (Config.SPA); all zero without it.
	//
	// SPAHosts is the number of SPA hosts. SPARequests counts the
	// requests for their script and JSON (/spa/app.js, /api/page/N.json,
	// /api/more/N.json, /api/track), which are not PageRequests but are
	// held to every rule of politeness and robots.txt like any request;
	// SPATrackRequests those for /api/track, which robots.txt disallows
	// (they are DisallowedRequests too). RenderedOnly counts the pages of
	// the ground truth that only the links an SPA's script builds reach
	// (a crawl that sees only the shells misses them), ScrollOnly those
	// that only the links a page builds when scrolled reach; the Covered
	// fields count those covered. Unmade counts the requests no page of
	// the web could have made: for a URL the web does not have (404,
	// /favicon.ico included: no page names an icon) or on a host it does
	// not have, or for a shell's JSON, its scrolled JSON or the script
	// before any request for the shell (the JSON) or for a shell of the
	// host; UnmadeSample names up to 20.
	SPAHosts            int      `json:"spa_hosts,omitempty"`
	SPARequests         int      `json:"spa_requests,omitempty"`
	SPATrackRequests    int      `json:"spa_track_requests,omitempty"`
	RenderedOnly        int      `json:"rendered_only,omitempty"`
	RenderedOnlyCovered int      `json:"rendered_only_covered,omitempty"`
	ScrollOnly          int      `json:"scroll_only,omitempty"`
	ScrollOnlyCovered   int      `json:"scroll_only_covered,omitempty"`
	Unmade              int      `json:"unmade,omitempty"`
	UnmadeSample        []string `json:"unmade_sample,omitempty"`

	// Changing pages (Config.Changing); all zero or nil without it.
	//
	// Freshness is the mean over the changing pages measured
	// (FreshnessPages; see Judge.FreshnessFrom) of the share of the
	// window during which the version the crawler fetched last was the
	// current one. The crawler holds a version from the End of a request
	// answered 200 with it, or 304 while it was current. FreshnessByClass
	// is the same mean per rate class (ChangeFast, ChangeSlow,
	// ChangeStatic), for the classes with pages measured.
	Freshness        float64            `json:"freshness,omitempty"`
	FreshnessPages   int                `json:"freshness_pages,omitempty"`
	FreshnessByClass map[string]float64 `json:"freshness_by_class,omitempty"`
	// Current counts the changing pages measured that change at all
	// (classes ChangeFast and ChangeSlow; CurrentOf of them) whose
	// version the crawler held at the end of the window was the current
	// one then.
	Current   int `json:"current,omitempty"`
	CurrentOf int `json:"current_of,omitempty"`
	// CollectionCurrent is the share of the ground truth's pages
	// (Reachable) whose copy was current at the end of the window: the
	// pages that never change once fetched, the changing ones as Current
	// counts them. It is what a crawler's own estimate of the freshness
	// of its collection is to be compared with.
	CollectionCurrent float64 `json:"collection_current,omitempty"`
	// ChangingFetches counts the requests for /c/N pages, of which
	// ChangingConditional were conditional and ChangingNotModified were
	// answered 304.
	ChangingFetches     int `json:"changing_fetches,omitempty"`
	ChangingConditional int `json:"changing_conditional,omitempty"`
	ChangingNotModified int `json:"changing_not_modified,omitempty"`
	// Revisits counts requests answered 200 or 304 for ordinary or /c/
	// pages the crawler had already fetched successfully. Of those,
	// UnchangedRevisits found the page unchanged since (a 304, or a 200
	// with the version held), UnchangedRevisitsConditional asked
	// conditionally, and UnchangedRevisits304 were answered 304.
	Revisits                     int `json:"revisits,omitempty"`
	UnchangedRevisits            int `json:"unchanged_revisits,omitempty"`
	UnchangedRevisitsConditional int `json:"unchanged_revisits_conditional,omitempty"`
	UnchangedRevisits304         int `json:"unchanged_revisits_304,omitempty"`

	// Importance order (Config.SkewedGraph); zero or nil without it.
	//
	// FetchOrderInDegree is the in-degree (see InDegree) of each ordinary
	// page the crawl fetched, in the order of their first answer 200 or
	// 304. MeanInDegreeFirst10Pct is the mean of its first tenth (k =
	// ceil(len/10) pages), and BFSMeanInDegreeFirst10Pct the mean of the
	// first k ordinary pages of the ground truth walked breadth first by
	// links alone (sitemaps aside), from the same seeds.
	FetchOrderInDegree        []int   `json:"fetch_order_in_degree,omitempty"`
	MeanInDegreeFirst10Pct    float64 `json:"mean_in_degree_first_10pct,omitempty"`
	BFSMeanInDegreeFirst10Pct float64 `json:"bfs_mean_in_degree_first_10pct,omitempty"`

	// Page requisites (Config.Requisites); zero or nil without it.
	//
	// RequisiteRequests counts requests for requisites (the /a/ assets
	// of any host, and the /private/ image that robots.txt keeps out);
	// they are not PageRequests, and are held to every rule of
	// politeness and robots.txt. RequisiteViolations counts those that
	// broke one (concurrency, gap, disallowed, before robots.txt,
	// unavailable host, Retry-After; each also counted under its rule),
	// and RequisiteDuplicates those for a requisite already answered
	// (also in Duplicates).
	RequisiteRequests   int `json:"requisite_requests,omitempty"`
	RequisiteViolations int `json:"requisite_violations,omitempty"`
	RequisiteDuplicates int `json:"requisite_duplicates,omitempty"`
	// Requisites counts the distinct requisites the pages answered 200
	// or 304 need (their stylesheets' own included) that robots.txt
	// allows on an available host; RequisitesFetched those answered 200;
	// RequisitesMissing names up to 20 never answered. RequisitesUnneeded
	// counts distinct requisites answered 200 that no page answered
	// needs.
	Requisites         int      `json:"requisites,omitempty"`
	RequisitesFetched  int      `json:"requisites_fetched,omitempty"`
	RequisitesMissing  []string `json:"requisites_missing,omitempty"`
	RequisitesUnneeded int      `json:"requisites_unneeded,omitempty"`

	// Violations details the first 100 violations in the order the
	// requests arrived.
	Violations []Violation `json:"violations"`
}

// OK reports whether the crawl broke no rule. Coverage is not a rule, and
// nor are a few requests inside traps, except that a link found only in a
// comment or a script must never be followed.
func (r Report) OK() bool {
	return r.ConcurrencyViolations == 0 && r.GapViolations == 0 && r.DisallowedRequests == 0 &&
		r.BeforeRobots == 0 && r.UnavailableHostRequests == 0 && r.UnknownHostRequests == 0 &&
		r.Duplicates == 0 && r.OutOfTruth == 0 && r.Traps[TrapHiddenLinks] == 0 && r.NofollowOnlyFetched == 0 &&
		r.RetryAfterViolations == 0 && r.IPConcurrencyViolations == 0 && r.IPGapViolations == 0
}

// TrapShare is TrapRequests as a share of all requests (0 when none).
func (r Report) TrapShare() float64 {
	if r.Requests == 0 {
		return 0
	}
	return float64(r.TrapRequests) / float64(r.Requests)
}

// String summarizes the report on a few lines, for logs and test failures.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "requests %d (pages %d, robots.txt %d, sitemaps %d); coverage %d/%d = %.3f",
		r.Requests, r.PageRequests, r.RobotsRequests, r.SitemapRequests, r.Covered, r.Reachable, r.Coverage)
	if r.SitemapOnly > 0 {
		fmt.Fprintf(&b, "; sitemap-only pages %d/%d covered", r.SitemapOnlyCovered, r.SitemapOnly)
	}
	fmt.Fprintf(&b, "\nviolations: concurrency %d, gap %d, disallowed %d, before robots %d, unavailable host %d, unknown host %d, duplicates %d, out of truth %d, nofollow only %d",
		r.ConcurrencyViolations, r.GapViolations, r.DisallowedRequests, r.BeforeRobots,
		r.UnavailableHostRequests, r.UnknownHostRequests, r.Duplicates, r.OutOfTruth, r.NofollowOnlyFetched)
	if len(r.IPPeak) > 0 {
		fmt.Fprintf(&b, ", ip concurrency %d, ip gap %d (peaks %v)", r.IPConcurrencyViolations, r.IPGapViolations, r.IPPeak)
	}
	if r.Hostile != nil {
		fmt.Fprintf(&b, ", retry-after %d\nhostile: retry-after sent %d, conditional %d, not modified %d, charset links %d/%d;",
			r.RetryAfterViolations, r.RetryAfterSent, r.ConditionalRequests, r.NotModified, r.CharsetLinksFetched, r.CharsetLinks)
		for _, k := range slices.Sorted(maps.Keys(r.Hostile)) {
			fmt.Fprintf(&b, " %s %d", k, r.Hostile[k])
		}
	}
	if r.RobotsConditional > 0 || r.RobotsNotModified > 0 {
		fmt.Fprintf(&b, "\nrobots.txt: conditional %d, not modified %d", r.RobotsConditional, r.RobotsNotModified)
	}
	if r.ChangingFetches > 0 || r.FreshnessPages > 0 {
		fmt.Fprintf(&b, "\nchanging pages: freshness %.3f over %d pages %v, %d of %d current at the end (of the whole collection %.3f); fetches %d (conditional %d, 304 %d); revisits %d, unchanged %d (conditional %d, 304 %d)",
			r.Freshness, r.FreshnessPages, r.FreshnessByClass, r.Current, r.CurrentOf, r.CollectionCurrent, r.ChangingFetches, r.ChangingConditional, r.ChangingNotModified,
			r.Revisits, r.UnchangedRevisits, r.UnchangedRevisitsConditional, r.UnchangedRevisits304)
	}
	if r.FetchOrderInDegree != nil {
		fmt.Fprintf(&b, "\nimportance: mean in-degree of the first 10%% fetched %.2f, breadth first %.2f",
			r.MeanInDegreeFirst10Pct, r.BFSMeanInDegreeFirst10Pct)
	}
	if r.RequisiteRequests > 0 || r.Requisites > 0 {
		fmt.Fprintf(&b, "\nrequisites: %d requests, %d/%d needed fetched, %d unneeded, %d duplicates, %d violations; missing %v",
			r.RequisiteRequests, r.RequisitesFetched, r.Requisites, r.RequisitesUnneeded, r.RequisiteDuplicates, r.RequisiteViolations, r.RequisitesMissing)
	}
	if r.SPAHosts > 0 {
		fmt.Fprintf(&b, "\nspa: %d hosts, %d script/JSON requests (track %d); rendered-only pages %d/%d covered, scroll-only %d/%d; unmade requests %d %v",
			r.SPAHosts, r.SPARequests, r.SPATrackRequests, r.RenderedOnlyCovered, r.RenderedOnly, r.ScrollOnlyCovered, r.ScrollOnly, r.Unmade, r.UnmadeSample)
	}
	if r.ContentDuplicates != nil {
		fmt.Fprintf(&b, "\nduplicate content requests: exact %d, near %d, distinct %d",
			r.ContentDuplicates[ContentExact], r.ContentDuplicates[ContentNear], r.ContentDuplicates[ContentDistinct])
	}
	if len(r.Traps) > 0 {
		fmt.Fprintf(&b, "\ntrap requests %d (%.2f%% of all):", r.TrapRequests, 100*r.TrapShare())
		for _, k := range slices.Sorted(maps.Keys(r.Traps)) {
			fmt.Fprintf(&b, " %s %d", k, r.Traps[k])
		}
	}
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "\n  %s %s%s: %s", v.Kind, v.Host, v.Path, v.Detail)
	}
	return b.String()
}

func (r *Report) flag(kind ViolationKind, q *Request, format string, args ...any) {
	if len(r.Violations) < maxViolations {
		r.Violations = append(r.Violations, Violation{
			Kind: kind, Host: q.Host, Path: q.Path, At: q.At(), Detail: fmt.Sprintf(format, args...),
		})
	}
}

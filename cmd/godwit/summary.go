package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/fetch"
)

// printSummary prints the summary of a finished crawl: what it fetched,
// what it left, and why anything failed.
func printSummary(w io.Writer, r crawlResult) {
	s := r.Stats
	verb := "finished"
	if r.Interrupted {
		verb = "stopped"
	}
	if r.Resumed {
		verb = "resumed and " + verb
	}
	switch {
	case r.BudgetSpent && !r.Interrupted:
		left := ""
		if q := s.Frontier.Queued; q > 0 {
			left = fmt.Sprintf("; %d URLs left queued: run it again for up to %d more", q, r.MaxPages)
		}
		verb = "stopped at its page budget"
		if r.Resumed {
			verb = "resumed and " + verb
		}
		fmt.Fprintf(w, "godwit: crawl %s (--max-pages %d) in %s%s\n", verb, r.MaxPages, s.Elapsed.Round(time.Millisecond), left)
	default:
		fmt.Fprintf(w, "godwit: crawl %s in %s\n", verb, s.Elapsed.Round(time.Millisecond))
	}
	if r.Resumed && !r.Interrupted && s.Frontier.Queued == 0 && s.Pages+s.Redirects+s.RobotsFetches+s.SitemapFetches+s.Requisites == 0 {
		// Run again on a finished crawl: say so before the zeros.
		fmt.Fprintf(w, "  nothing to do: the crawl in %s had finished, no URL left queued; --fresh starts it over, new seeds add to it\n", r.Data)
	}
	fmt.Fprintf(w, "  pages       %d fetched (%.1f/s), %d not modified, %d truncated; %s received in all\n",
		s.Pages, s.PagesPerSecond(), s.NotModified, s.Truncated, humanBytes(s.Bytes))
	fmt.Fprintf(w, "  redirects   %d fetched\n", s.Redirects)
	if s.Requisites > 0 || s.RequisitesFound > 0 {
		fmt.Fprintf(w, "  requisites  %d fetched (images, stylesheets, scripts, fonts …), %d found, %d past the embed limits\n",
			s.Requisites, s.RequisitesFound, s.RequisiteHops)
	}
	fmt.Fprintf(w, "  robots.txt  %d fetched; %d URLs disallowed; %d dropped (robots.txt unreachable)\n",
		s.RobotsFetches, s.RobotsDisallowed, s.RobotsUnavailable)
	fmt.Fprintf(w, "  sitemaps    %d fetched, %d read, listing %d URLs\n", s.SitemapFetches, s.Sitemaps, s.SitemapURLs)
	fmt.Fprintf(w, "  errors      %d transient, %d permanent, %d refused by policy; %d retries; %d throttled (429/503)\n",
		s.Transient, s.Permanent, s.Policy, s.Retries, s.Throttled)
	if s.TLS.Total() > 0 {
		fmt.Fprintf(w, "  tls         %d requests failed: %s\n", s.TLS.Total(), tlsKindsLine(s.TLS.ByKind()))
	}
	fmt.Fprintf(w, "  links       %d found, %d queued, %d out of scope, %d too deep, %d not http(s)\n",
		s.Discovered, s.Queued, s.OutOfScope, s.TooDeep, s.NotHTTP)
	fmt.Fprintf(w, "  traps       %d URLs refused: %d calendar, %d repeated path, %d too long, %d too deep a path, %d too many parameters, %d host budget, %d discovery anomaly (%d hosts demoted), %d template exhausted\n",
		s.Traps.Total(), s.Traps.Calendar, s.Traps.PathRepeats, s.Traps.URLTooLong, s.Traps.PathTooDeep,
		s.Traps.TooManyParams, s.Traps.HostBudget, s.Traps.Anomaly, s.Traps.DemotedHosts, s.Traps.Template)
	if r.RenderMode != "" {
		rs := r.Render
		fmt.Fprintf(w, "  rendered    %d pages (--render %s) in %s, %d found more than the plain fetch, %d failed (plain fetch kept); %d browser requests fetched, %d answered from requisites fetched already, %d disallowed by robots.txt, %d refused; %d queued requisites a render fetched not fetched again\n",
			rs.Pages, r.RenderMode, time.Duration(rs.Nanos).Round(time.Millisecond), rs.Found, rs.Failed, rs.SubRequests, rs.Cached, rs.Disallowed, rs.Refused+rs.NotOwned, rs.Reused)
	}
	if a := s.Aliases; a.Adopted > 0 || a.Retracted > 0 {
		fmt.Fprintf(w, "  aliases     %d URL alias rules adopted, %d retracted; %d links rewritten, %d queued aliases not fetched, %d kept to verify\n",
			a.Adopted, a.Retracted, a.Rewritten, a.Skipped, a.Verified)
	}
	fmt.Fprintf(w, "  frontier    %d URLs seen on %d hosts, %d left queued; seen-set filter false positives %.2f%%\n",
		s.Frontier.Seen, s.Frontier.Hosts, s.Frontier.Queued, 100*s.Frontier.BloomFPRate)
	if rs := s.Frontier.Recrawl; rs.Enabled {
		fmt.Fprintf(w, "  recrawl     %d revisits (%d unchanged, %d answered 304), %d scheduled, %d due; revisit share %.0f%% (reserved %.0f%%), estimated freshness %.2f\n",
			rs.Revisits, rs.Unchanged, rs.NotModified, rs.Scheduled, rs.DueBacklog, 100*rs.RevisitShare, 100*rs.Share, rs.Freshness)
		if rs.ChangingPages > 0 {
			fmt.Fprintf(w, "              estimated freshness of the pages seen to change %.2f (%d sampled)\n", rs.FreshnessChanging, rs.ChangingPages)
		}
	}
	for _, b := range r.Broken {
		fmt.Fprintf(w, "  processors  %s\n", b)
	}
	fmt.Fprintf(w, "  dedup       %d revisits of identical payloads (%s not stored again), %d near-duplicate pages (%d stored header-only)\n",
		r.Dedup.Revisits, humanBytes(r.Dedup.RevisitBytes), r.Dedup.NearDuplicates, r.Dedup.NearDupsOmitted)
	written := ""
	if r.Resumed {
		written = fmt.Sprintf(" (%d written in this run)", r.WARCNew)
	}
	fmt.Fprintf(w, "  warc        %d file(s)%s, %s in %s, each with a CDXJ index\n", len(r.WARCFiles), written, humanBytes(r.WARCBytes), r.WARCDir)
	printStoreSummary(w, r.Store)
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// seedFailures says in one line why no seed could be fetched, the seeds
// grouped by reason: "nothing fetched: every seed failed:
// http://a.invalid/: no such host; http://b.example/: connection refused".
func seedFailures(r crawl.SeedReport) string {
	byReason := map[string][]string{}
	for _, f := range r.Failed {
		byReason[f.Reason] = append(byReason[f.Reason], f.URL)
	}
	reasons := slices.Sorted(maps.Keys(byReason))
	parts := make([]string, 0, len(reasons))
	private, answered := false, false
	for _, why := range reasons {
		urls := byReason[why]
		slices.Sort(urls)
		list := strings.Join(urls[:min(len(urls), 3)], ", ")
		if len(urls) > 3 {
			list += fmt.Sprintf(" and %d more", len(urls)-3)
		}
		parts = append(parts, list+": "+why)
		private = private || strings.HasPrefix(why, "address refused by the SSRF guard")
		answered = answered || strings.Contains(why, "HTTP status") || strings.Contains(why, "disallows")
	}
	msg := "nothing fetched: every seed failed: " + strings.Join(parts, "; ")
	if r.Unwatched > 0 {
		msg = fmt.Sprintf("nothing fetched: no host answered; of the first %d seeds: %s", r.Seeds, strings.Join(parts, "; "))
	}
	switch {
	case private:
		msg += "; use --allow-private to crawl private or loopback addresses"
	case !answered:
		// No server answered at all: perhaps no network (a first run on
		// a laptop offline, in a container).
		msg += `; no network? "godwit demo" crawls a simulated web on this machine (README: "Try it offline")`
	}
	return msg
}

// tlsKindsLine is TLS failure counts in fetch.TLSKinds order, as
// "2 expired, 1 name-mismatch".
func tlsKindsLine(m map[string]int64) string {
	var parts []string
	for _, k := range fetch.TLSKinds {
		if n := m[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return strings.Join(parts, ", ")
}

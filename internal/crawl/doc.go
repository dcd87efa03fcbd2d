// Package crawl is godwit's core: the domain types (Link, Task, Lease,
// Outcome), the small interfaces the core consumes (Frontier, Fetcher,
// Archive), and the worker loop that ties them together.
//
// Each worker is a plain sequence of calls:
//
//	lease := frontier.Next()            // blocks until some host may be touched
//	robots gate                          // robots.txt first, then obey it
//	resp := fetcher.Fetch()              // one request, captured for the archive
//	processors.Run(page)                 // annotations, extra links (processors.go)
//	archive.Record(resp)                 // WARC request + response
//	events.Page(event)                   // downstream systems, at least once
//	links := discover(extract(resp))     // the chain of link filters (discover.go)
//	settle(links)                        // alias learning, the seen-set (frontier.Add)
//	frontier.Complete(lease, outcome)
//
// Discovery is a chain of link filters (discover.go): normalize, limits,
// URL aliases (aliases.go; www. and bare host names, aliases_www.go),
// scope, in-page duplicates, trap patterns, host open, calendar,
// template (traps_template.go) and anomaly, then the
// frontier's seen-set. Each filter is a small type with one method that
// admits a candidate, possibly rewritten, or refuses it with a reason,
// counted in Stats. Their per-host state is safe for concurrent use.
// A page's requisites (Link.Embed: its images, stylesheets, scripts,
// fonts, and what its stylesheets import) go through the same chain with
// their own rules: one embed hop that keeps the page's depth, a scope of
// their own (Requisites), and only the URL pattern trap defences.
//
// Workers never sleep for politeness: the frontier does not hand out a host
// before its ready time and never hands out a host that has a lease in
// flight. Every request to a host, robots.txt included, goes through one
// lease, so the host's delay applies to all of them. A page rendered in a
// browser (render.go; Config.Render, Deps.Renderer) is the one exception
// to "one lease, one request": each request the browser makes takes its
// host's slot from the frontier (Visitor.Visit), which serializes it with
// the host's leases and keeps the gap, or shares the page's lease when it
// is to the page's own host.
//
// The package imports only leaf packages (urlnorm, robots, extract,
// politeness, process, render) and fetch's value types. Adapters (frontier, archive) import
// crawl, never the reverse; cmd/godwit wires them. A Crawler is used by one
// Run at a time; Stats and Seeds may be read concurrently.
//
// Stats counts each answer once, under what it was: Pages (page
// responses, any status), Redirects, SitemapFetches, RobotsFetches. Seeds
// says what became of the seeds of this run; when every seed has failed
// and no host has answered anything, Run gives up at once rather than
// wait minutes for robots.txt retries (Config.KeepTrying waits).
package crawl

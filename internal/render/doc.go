// Package render renders pages in a headless Chromium driven over the
// DevTools protocol (chromedp), for pages whose content and links are
// built by script.
//
// A Pool is a self-contained component with Start and Close: one browser
// process and at most Config.Tabs pages rendering at once, each in a fresh
// tab that is closed after its page. Signals and a Selector decide, in
// auto mode, which pages are worth a render and learn per host whether
// rendering pays (see docs/decisions.md for the rules). The crawl reads a
// page's Signals in its one tokenizer pass over the page
// (extract.Options.Signals); Read does the same for a page on its own.
//
// The crawl (internal/crawl, render.go) supplies the Fetcher: every
// request goes through its fetcher under the request's host's politeness
// slot (the frontier's Visit), its robots.txt and its archive.
//
// # Invariants
//
//   - The browser opens no connection of its own. Every request a tab makes
//     is paused with the Fetch domain (pattern "*", request stage) and
//     answered by the caller: the page's own document from the plain fetch
//     the caller already made (Page), every other request through the
//     caller's Fetcher, which is where the crawler's SSRF guard, robots.txt,
//     politeness and archive sit. A Fetcher error fails the request in the
//     browser (ErrDisallowed as BlockedByClient, counted in
//     Result.Disallowed); nothing is ever continued to the network. The
//     browser's own request for a page's /favicon.ico, which it makes
//     whatever the page says, is failed without reaching the Fetcher
//     (Result.Own) unless the page's document names favicon.ico. As a
//     second line, the browser is started with a proxy that refuses
//     everything (also for loopback) and a resolver that resolves nothing,
//     and with background networking, component updates, sync, domain
//     reliability, DNS prefetch and QUIC off.
//   - After load, Render waits for the network to be idle (no paused
//     request unanswered for Config.IdleTime, at most Config.IdleMax),
//     scrolls to the bottom in steps (at most Config.ScrollMax), waiting for
//     idle after each step, and only then reads the rendered DOM, its
//     a[href] and area[href] links, and the requisites it loaded.
//   - The browser is restarted after Config.RestartAfter pages and when the
//     memory of its process group (the sum of PSS, so that shared pages
//     count once) passes Config.MaxRSS; a browser
//     being retired finishes the pages it has before it is closed. A page
//     whose browser crashed or hung (Config.PageTimeout) is retried on a
//     fresh browser up to Config.Retries times; only then Render returns an
//     error, and the caller keeps the page's plain fetch.
//   - The browser runs in its own process group with a fresh user data
//     directory (removed on Close). Close kills the group; if godwit itself
//     is killed, the kernel kills the browser (Pdeathsig), and its helper
//     processes exit when their parent goes.
//   - A Selector in auto mode grants at most share × pages + k renders on
//     hosts not known to pay, and stops rendering a host after k renders
//     that found nothing new (no new link, less than NewText more visible
//     text); after k that found something it renders every page of the
//     host, beyond the share.
package render

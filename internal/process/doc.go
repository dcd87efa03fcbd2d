// Package process runs content processors over fetched pages: code an
// operator attaches to a crawl to annotate pages (structured data,
// language, embeddings, …), queue extra links, or keep a page's links from
// being followed, without forking the crawler.
//
// A Processor sees one Page and returns a Verdict. A Runner runs a list of
// processors over each page, one after the other, each under its own time
// budget: a processor that fails, panics or overruns is logged, counted
// (RegisterMetrics) and skipped for that page; the page is crawled and
// archived all the same. A Go processor that overruns cannot be stopped:
// its context is cancelled and its call abandoned, and the goroutine ends
// when the call returns; a processor with too many abandoned calls still
// running is skipped until some return, which bounds what it can hold.
//
// Exec runs an external processor, in any language, as a long-lived child
// process speaking JSON Lines over stdin and stdout (docs/processors.md):
// bounded pages in flight, a timeout per page, restart with backoff when
// the child dies or stops answering, and a circuit breaker: a child whose
// lines break the protocol (BreakAfter in a row) is taken as broken, and
// pages go on without it (ErrBroken, at once) until a probe page is
// answered. Its Run owns the child; Process may be called concurrently
// while Run runs.
//
// Structured is a built-in processor: JSON-LD and OpenGraph metadata.
//
// Runner, Exec and Structured are safe for concurrent use. The package is
// a leaf: it imports nothing of godwit's.
package process

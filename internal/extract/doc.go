// Package extract implements link extraction from HTML pages: the outlinks
// a crawler follows and the page title.
//
// [HTML] runs the streaming tokenizer of golang.org/x/net/html over the
// page (no DOM is built) and collects a[href], area[href], link[href],
// frame[src] and iframe[src], in document order, duplicates included. It
// resolves them against the document base URL: the first <base href>,
// itself resolved against the page URL, applies to every link of the
// page, including links before it, as in browsers. Resolution follows
// net/url ResolveReference after the clean-up browsers apply to attribute
// values (surrounding whitespace trimmed, tabs and newlines removed,
// backslashes as slashes, a stray '%' encoded); the results are not
// normalized, which is the caller's job (package urlnorm).
//
// Only http and https links are returned: empty values, fragment-only
// references ("#top") and other schemes (javascript:, mailto:, tel:,
// data:, ftp:, ...) are dropped, as are values that do not parse. Comments,
// scripts, styles and other raw-text elements are not scanned, but the
// content of <noscript> and <noframes> is, as a browser without scripts
// or frames would show it. The title is the text of the first <title>
// outside SVG and MathML.
//
// The body must be UTF-8 (transcode it first, e.g. with
// golang.org/x/net/html/charset) and already capped in size by the
// caller; extraction keeps at most [Options.MaxLinks] links.
//
// The package has no state; all functions are safe for concurrent use.
package extract

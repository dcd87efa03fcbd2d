// Package extract implements link extraction from HTML pages: the outlinks
// a crawler follows, the page title and the page's robots <meta> tags.
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
// Robots signals: every <meta name="robots"> tag, and every <meta> tag
// named after one of [Options.Agents] ("godwit"), names compared ASCII
// case-insensitively, is read with robots.ParseMeta and merged into
// [Document.Robots]. They count wherever they are in the markup, not only
// in <head> (where they belong): browsers keep a <meta> found in the body
// in the document, a site that wrote one meant it, and when in doubt the
// crawler errs on the side of obeying. By the rule above, a <meta> inside
// <noscript> counts too, while one in a comment, a script or a <title>
// does not. [Link.HasRel] reads rel="nofollow" in any case and in a list
// separated by spaces or commas ("ugc nofollow", "ugc,nofollow"); what to
// do with a nofollow link, or with a page whose Robots say NoFollow, is
// the caller's decision: extraction returns every link.
//
// The body must be UTF-8 (transcode it first, e.g. with
// golang.org/x/net/html/charset) and already capped in size by the
// caller; extraction keeps at most [Options.MaxLinks] links.
//
// The package has no state; all functions are safe for concurrent use.
package extract

// Package extract implements link extraction from HTML pages: the outlinks
// a crawler follows, the page title and the page's robots <meta> tags.
//
// [HTML] runs internal/htmltok's tokenizer over the page (no DOM is
// built; its tokens are golang.org/x/net/html's, byte for byte, read from
// the page in memory) and collects a[href], area[href], link[href],
// frame[src] and iframe[src], in document order, duplicates included. It
// resolves them against the document base URL: the first <base href>,
// itself resolved against the page URL, applies to every link of the
// page, including links before it, as in browsers. Resolution follows
// net/url ResolveReference after the clean-up browsers apply to attribute
// values (surrounding whitespace trimmed, tabs and newlines removed,
// backslashes as slashes, a stray '%' encoded) and the encoding of the
// query in the page's encoding (see Character encodings); the results are
// not normalized, which is the caller's job (package urlnorm). References
// of the common plain shapes ("/p/15", "../p/10", "?page=2",
// "http://host/p") are resolved by a fast path that writes the same
// string into one buffer (fastresolve.go), which tests and fuzz targets
// hold to the full path. TestPythonDocsAsBefore holds everything HTML
// finds on the 530 pages of Debian's python3.11-doc (links, embeds,
// title, robots, signals, SimHash) to what it found with x/net/html's
// tokenizer.
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
// The body must already be capped in size by the caller; extraction keeps
// at most [Options.MaxLinks] links.
//
// # Page requisites
//
// With [Options.Embeds], the same tokenizer pass also collects the page's
// requisites into [Document.Embeds], resolved like links: img[src],
// img[srcset] and source[srcset] (every candidate URL, as the HTML
// standard splits a srcset), source, video, audio, track, embed and
// script[src], video[poster], object[data], input[type=image][src], a
// <link> whose rel has one of stylesheet, icon, apple-touch-icon(-
// precomposed), mask-icon, preload, modulepreload or manifest (such a
// <link> is then an embed, not a link; [Link.Requisite] tells them apart
// without Embeds), and the url(...) and @import targets of inline
// <style> elements. [CSS] reads a stylesheet for its url(...) and
// @import targets: a bounded, linear scanner (comments, strings and
// escapes as CSS Syntax tokenizes them), not a parser. <iframe> and
// <frame> stay links: they are pages of their own.
//
// # Render signals
//
// With [Options.Signals], the same pass also reads what internal/render's
// Selector weighs to decide whether a page needs a browser
// ([Document.Signals]: visible text, inline script, <script> elements,
// a[href] and area[href], an empty application root such as div#root, a
// <noscript> asking for JavaScript). They are read as a tokenizer that
// leaves <noscript> and <noframes> raw would see the page (the second
// pass they replace did so): the content of those elements counts as one
// run of text, its tags as no tags. Text is measured in UTF-8, after
// decoding the page's encoding, with white space collapsed per run.
//
// # Character encodings
//
// The body is the response's raw bytes, in whatever encoding the page is
// in. [HTML] determines the encoding as the HTML standard's "determining
// the character encoding" does, first match wins:
//
//  1. a byte order mark (UTF-8, UTF-16LE, UTF-16BE), which is skipped
//     ([SourceBOM]);
//  2. the charset parameter of [Options.ContentType], when it names an
//     encoding ([SourceHeader]); read leniently, as the MIME Sniffing
//     standard does, not with mime.ParseMediaType, which rejects a whole
//     header for a stray ';' or a repeated parameter;
//  3. the prescan of the first 1024 bytes for <meta charset> or <meta
//     http-equiv=content-type content="...; charset=..."> ([SourceMeta]),
//     the standard's byte-level algorithm: a <meta> inside a <script> or
//     <style> counts, as in browsers; UTF-16 in a <meta> means UTF-8 and
//     x-user-defined means windows-1252;
//  4. sniffing: a body with non-ASCII bytes that is valid UTF-8 (a rune
//     cut at the end forgiven) is UTF-8 ([SourceSniffed]); all of the body
//     is read, not only its first kilobyte;
//  5. windows-1252, the standard's default for an unknown locale
//     ([SourceDefault]).
//
// The last three are tentative: as in browsers, the first <meta> the
// tokenizer meets (outside SVG and MathML) that declares an encoding
// settles it, and if it names another one, the page is decoded and
// scanned again from the start, at most once. This finds the <meta>
// that a long <head> pushes past the first kilobyte.
//
// Labels are resolved by the Encoding Standard ("latin1", "iso-8859-1",
// "ascii" are windows-1252; "sjis" is shift_jis; "iso-2022-kr" is the
// replacement encoding, whose page decodes to a single U+FFFD and has
// no links). [Document.Encoding] is the lower-case WHATWG name and
// [Document.EncodingSource] says which step chose it. The page is decoded
// to UTF-8 before it is tokenized, invalid sequences replaced by U+FFFD,
// so the title and links are valid UTF-8. A valid UTF-8 page is not
// copied, nor is an ASCII page in any encoding that reads ASCII as itself
// (all but UTF-16 and replacement; most pages that declare nothing are
// read as windows-1252); others are decoded whole, once, into a buffer
// that grows by doubling to their size in UTF-8 (up to three times the
// body), which the tokenizer then reads in place. The worst page, one
// long text of bytes that each decode to three, allocates about 8 times
// its size in all (see TestDecodeMemory); a page scanned twice allocates
// twice.
//
// Why not golang.org/x/net/html/charset.DetermineEncoding: its prescan
// runs the tokenizer, which misses a <meta> in raw text (a <script>,
// <style> or <title>); it parses the Content-Type with
// mime.ParseMediaType; it sniffs UTF-8 in the first kilobyte only; it
// leaves x-user-defined from a <meta> alone; and a <meta> past the first
// kilobyte is lost. On the html5lib encoding tests (82 cases; see
// TestConformanceHTML5libEncoding) it agrees on 72, the prescan alone on
// 75 and [HTML] on all 82. test_big5.txt, html5lib's test of a
// statistical detector, is not counted: undeclared Big5, GBK or Shift_JIS
// is read as windows-1252, as the standard's algorithm does.
//
// Links: a link's query is percent-encoded as the URL standard's parser
// does with the document's encoding (which is why links are resolved
// here and not later): non-ASCII characters become the percent-encoded
// bytes of the page's encoding, so "?q=caf&eacute;" in a windows-1252
// page is "?q=caf%E9", and in a Shift_JIS page Japanese text becomes
// Shift_JIS bytes; a character the encoding lacks becomes the escaped
// "&#NNNN;" ("%26%23NNNN%3B"). The path, the fragment and the host are
// always UTF-8, and so is the query of a UTF-8, UTF-16 or replacement
// page. The query's spaces, quotes, apostrophes, '<' and '>' are
// percent-encoded too, as the URL standard's special-query set says.
//
// Not done: a Content-Type that combines several header values
// ("text/html, text/html;charset=gbk") is read as one value; the default
// encoding does not depend on the page's top-level domain or language.
//
// The package has no state; all functions are safe for concurrent use.
package extract

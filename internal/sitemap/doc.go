// Package sitemap implements a streaming reader of sitemap files
// (https://www.sitemaps.org/protocol.html): XML <urlset> and
// <sitemapindex> files, RSS and Atom feeds, and plain text lists of URLs,
// gzip-compressed or not.
//
// This is our own reader, for three reasons. Streaming: the library whose
// fixtures we test against, aafeher/go-sitemap-parser, fetches by itself
// and unmarshals each whole file into a slice of structs. Caps:
// oxffaa/gopher-parse-sitemap streams (a Decoder.DecodeElement per <url>)
// but bounds neither entries nor bytes, reads no gzip, and, like any user
// of encoding/xml that does not guard its input, lets the decoder buffer
// an endless token whole (a gzip bomb of white space becomes gigabytes of
// RAM). Classified errors: it returns the decoder's error as is, and its
// strict decoder stops at the first bare '&' in a URL. [Parse] reads token
// by token with the encoding/xml Decoder, hands each entry to a callback
// as soon as it is complete, stops at the caps, and returns ErrEmpty or
// ErrMalformed after delivering what it could read.
//
// What is accepted (details in docs/formats.md, "Sitemaps"):
//
//   - gzip, recognized by its magic bytes (not the file name or
//     Content-Type), one or two layers deep;
//   - a UTF-8 byte order mark and white space before the first byte;
//   - XML whose root is urlset, sitemapindex, rss, rdf:RDF or feed, in any
//     namespace or none, with any prefix, in any letter case; entries are
//     the root's url or sitemap children, RSS items (link, else a
//     permalink guid; pubDate or dc:date) and Atom entries (the alternate
//     link's href; updated or published). Extensions (image, news, video,
//     xhtml:link) are skipped over. The XML is read leniently: a bare '&'
//     and HTML entities are kept as text, a missing end tag is implied,
//     and the encoding an XML declaration names is converted to UTF-8;
//   - anything else that is not binary is read as a text sitemap: lines
//     starting with http:// or https:// are entries, other non-blank
//     lines are counted as skipped (a robots.txt is therefore not a
//     sitemap: its "Sitemap:" lines do not start with a scheme).
//
// Invariants:
//
//   - Memory does not depend on the size of the file: buffers are a few
//     tens of KiB, plus at most one XML token (maxTokenBytes, 1 MiB; a
//     longer token is ErrMalformed), and nesting is capped at 256.
//   - At most Options.MaxEntries entries are passed to fn, and at most
//     Options.MaxBytes uncompressed bytes are read (plus one, to tell
//     whether there was more), and about as many compressed bytes (so
//     that an endless run of empty gzip members ends too); reaching any
//     of these sets Result.Truncated and is not an error.
//   - Every Entry has a non-empty, trimmed URL of at most 8 KiB, a
//     ChangeFreq that is "" or one of the seven protocol values, and a
//     Priority in [0, 1] or -1.
//   - Entries passed to fn stay valid whatever Parse returns afterwards.
//     Errors are ErrEmpty, ErrMalformed, the reader's own error wrapped as
//     "sitemap: read: ...", or fn's error unchanged.
//   - Parse never panics on any input, is safe to call concurrently (it
//     shares no state), calls fn synchronously on the caller's goroutine,
//     and does not close the reader.
//
// An index's entries are child sitemaps: how deep to follow them is the
// caller's decision.
package sitemap

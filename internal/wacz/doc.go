// Package wacz packages a crawl's WARC files for replay: the list of the
// archived pages (Pages, one PageLine per response or revisit record,
// which `godwit export pages` prints as JSON lines), a WACZ 1.1.1 package
// of WARC files with its CDXJ index and its page list (Write, WriteFile),
// and the HTTP handler that serves a WACZ file in a page embedding
// ReplayWeb.page (ReplayHandler).
//
// It reads and writes files it is given; the data directory, flags and
// printing are cmd/godwit's.
package wacz

package sitemap

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// Kind is the format of a sitemap file.
type Kind int

// The kinds of file Parse recognizes. Unknown comes with an error (the
// file was empty or not a sitemap), or with Truncated when MaxBytes ran
// out before the first element or line.
const (
	Unknown Kind = iota
	URLSet       // <urlset>: a sitemap listing pages
	Index        // <sitemapindex>: a sitemap listing sitemaps
	Text         // plain text, one URL per line
	RSS          // RSS 2.0 (or RSS 1.0/RDF) feed: <item><link>
	Atom         // Atom 1.0 feed: <entry><link href>
)

var kindNames = [...]string{"unknown", "urlset", "sitemapindex", "text", "rss", "atom"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// Entry is one URL listed by a sitemap: a page, or for an [Index] a child
// sitemap.
type Entry struct {
	// URL is the location as written, whitespace-trimmed and with XML
	// entities and CDATA decoded; never empty and at most 8 KiB. It is not
	// normalized or even checked to be absolute (except in text sitemaps,
	// where only http:// and https:// lines count): that is the crawler's
	// job.
	URL string
	// LastMod is zero when absent or not a W3C Datetime (RFC 822 dates
	// too for RSS). A date without a time, or a time without a zone, is
	// taken as UTC; an explicit offset is kept as a fixed zone.
	LastMod time.Time
	// ChangeFreq is one of always, hourly, daily, weekly, monthly, yearly,
	// never (lower-cased), or "" when absent or anything else.
	ChangeFreq string
	// Priority is in [0, 1], or -1 when absent or invalid.
	Priority float64
}

// Defaults of [Options]: the limits of the sitemaps.org protocol, 50,000
// URLs and 50 MiB (52,428,800 bytes, which is what sitemaps.org means by
// "50MB") of uncompressed content per file.
const (
	DefaultMaxEntries       = 50_000
	DefaultMaxBytes   int64 = 50 << 20
)

// Options caps what Parse reads from one file. The zero value means the
// defaults.
type Options struct {
	// MaxEntries is the number of entries after which the rest of the file
	// is ignored (Result.Truncated). Default 50,000.
	MaxEntries int
	// MaxBytes is the number of uncompressed bytes after which the rest of
	// the file is ignored (Result.Truncated); an entry cut by the limit is
	// dropped. Default 50 MiB.
	MaxBytes int64
}

// Default fills zero fields with the defaults.
func (o *Options) Default() {
	if o.MaxEntries == 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
}

// Validate reports options that cannot work (negative limits).
func (o Options) Validate() error {
	if o.MaxEntries < 0 || o.MaxBytes < 0 {
		return fmt.Errorf("sitemap: limits must not be negative (entries %d, bytes %d)", o.MaxEntries, o.MaxBytes)
	}
	return nil
}

// Result describes what Parse read. It is meaningful with or without an
// error: entries passed to fn before an error stay valid.
type Result struct {
	Kind Kind
	// Entries is the number of entries passed to fn.
	Entries int
	// Skipped counts entries left out: <url>, <sitemap>, <item> or <entry>
	// elements without a usable location (missing, empty or longer than
	// 8 KiB), and non-blank lines of a text sitemap that are not an
	// http(s) URL of at most 8 KiB.
	Skipped int
	// Truncated reports that a cap (MaxEntries or MaxBytes) was reached
	// and the rest of the file was ignored. It is not an error.
	Truncated bool
}

// Errors of Parse, classified by what the caller should do: neither is
// worth retrying, as the same bytes give the same answer. Errors from the
// reader itself are returned wrapped ("sitemap: read: ...") and are not
// either of these; errors returned by fn are returned as they are.
var (
	// ErrEmpty reports a file with no content: zero bytes, or only white
	// space and a byte order mark, after decompression.
	ErrEmpty = errors.New("sitemap: empty")
	// ErrMalformed reports a file that is not a sitemap (an unknown root
	// element, a text file without a URL line, binary data), a corrupted
	// or truncated gzip stream, or XML that breaks off (a syntax error, an
	// unexpected end of file, nesting deeper than 256 elements, a token
	// longer than 1 MiB). Entries before the fault were passed to fn.
	ErrMalformed = errors.New("sitemap: malformed")
)

// Internal caps, documented in doc.go and docs/formats.md.
const (
	maxURLBytes   = 8 << 10 // longer locations and text lines are skipped
	maxTokenBytes = 1 << 20 // XML tokens (text, comment, tag) longer than this are malformed
	maxDepth      = 256     // XML nesting deeper than this is malformed
)

// Parse reads one sitemap file from r and calls fn for each entry, in
// file order, until the end of the file or a cap in o. The file may be
// gzip-compressed (detected by its magic bytes, whatever the file name or
// Content-Type; at most two nested layers), and then be an XML <urlset> or
// <sitemapindex>, an RSS or Atom feed, or plain text with one URL per
// line (see the package documentation for details).
//
// Parse streams: memory does not grow with the size of the file. Hitting a
// cap is not an error: Parse returns nil with Result.Truncated set. If fn
// returns an error, Parse stops and returns that error unchanged. A nil fn
// only counts. Parse does not close r.
func Parse(r io.Reader, o Options, fn func(Entry) error) (Result, error) {
	o.Default()
	if err := o.Validate(); err != nil {
		return Result{}, err
	}
	if fn == nil {
		fn = func(Entry) error { return nil }
	}
	in := newInput(r, o.MaxBytes)
	p := &parser{o: o, fn: fn, in: in}
	err := p.run()
	return p.res, p.classify(err)
}

func (p *parser) run() error {
	isXML, err := p.in.sniff()
	if err != nil {
		return err
	}
	if isXML {
		return p.runXML()
	}
	return p.runText()
}

// emit passes an entry to fn, enforcing MaxEntries. It returns errStop
// after setting Truncated when the entry is one too many.
func (p *parser) emit(e Entry) error {
	if p.res.Entries >= p.o.MaxEntries {
		p.res.Truncated = true
		return errStop
	}
	p.res.Entries++
	if err := p.fn(e); err != nil {
		return callbackError{err}
	}
	return nil
}

// parser holds the state of one Parse call.
type parser struct {
	o   Options
	fn  func(Entry) error
	in  *input
	res Result
	x   xmlState
}

// errStop ends parsing early without an error (a cap was reached).
var errStop = errors.New("sitemap: stop")

// callbackError marks an error returned by fn, so that classify returns
// it untouched.
type callbackError struct{ err error }

func (e callbackError) Error() string { return e.err.Error() }

// classify turns the error that ended parsing into what Parse returns:
// nil for a clean end or a cap, fn's error unchanged, the reader's error
// wrapped, and everything else as ErrMalformed.
func (p *parser) classify(err error) error {
	if cb, ok := err.(callbackError); ok {
		return cb.err
	}
	if p.in.truncated() {
		// The byte cap cut the file; whatever broke after it (an
		// unexpected EOF in the middle of an element) is the cut.
		p.res.Truncated = true
		return nil
	}
	if err == nil || err == errStop || err == io.EOF {
		return nil
	}
	if src := p.in.src.err; src != nil && src != io.EOF {
		return fmt.Errorf("sitemap: read: %w", src)
	}
	if errors.Is(err, ErrEmpty) || errors.Is(err, ErrMalformed) {
		return err
	}
	var gz gzipError
	if errors.As(err, &gz) {
		return fmt.Errorf("%w: corrupted gzip: %w", ErrMalformed, gz.err)
	}
	return fmt.Errorf("%w: %w", ErrMalformed, err)
}

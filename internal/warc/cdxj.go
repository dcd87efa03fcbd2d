package warc

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/godwit-crawler/godwit/internal/atomicfile"
	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// cdxjKeys computes the SURT lookup key. It strips no query parameters:
// pywb computes the key of a URL it is asked for with the surt library,
// which keeps tracking parameters, so a key without them would never be
// found.
var cdxjKeys = urlnorm.NewCanonicalizer(urlnorm.Options{StripParams: []string{}, SessionParams: []string{}})

// IndexCDXJ reads the WARC stream r and returns its CDXJ lines in file
// order, each ending in "\n", one per response, revisit and resource
// record (the records pywb's cdx-indexer indexes; request, metadata,
// warcinfo and conversion records are skipped). filename is the value of
// the "filename" field, usually the file's base name. On a read error it
// returns the lines of the records before it with the error. The format is
// described byte by byte in docs/warc-tool.md.
func IndexCDXJ(r io.Reader, filename string) ([]string, error) {
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	var lines []string
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return lines, err
		}
		if line, ok := CDXJLine(rec, Location{File: filename, Offset: rd.Offset(), Length: rd.Length()}); ok {
			lines = append(lines, line)
		}
	}
}

// CDXJLine returns the index line, ending in "\n", of rec stored at loc
// (loc.File is the "filename" value), or false for a record type that is
// not indexed. A record just written by Writer.Write, with the Location it
// returned, gives the line IndexCDXJ gives when reading the file, so an
// index can be kept while writing. A record written with More must hold
// its whole HTTP header in Block (as the archive's records do): the line
// is made from the header and the WARC fields, not from the body.
func CDXJLine(rec *Record, loc Location) (string, bool) {
	if !isAny(rec.Type, TypeResponse, TypeRevisit, TypeResource) {
		return "", false
	}
	return cdxjLine(rec, loc.File, loc.Offset, loc.Length), true
}

// WriteCDXJ indexes the WARC files at paths (see IndexCDXJ; "filename" is
// each file's base name) and writes all their lines to w sorted by their
// bytes, i.e. by SURT key, then timestamp, as pywb and OutbackCDX expect.
// It writes nothing if any file fails to read.
func WriteCDXJ(w io.Writer, paths ...string) error {
	var all []string
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("warc: cdxj: %w", err)
		}
		lines, err := IndexCDXJ(f, filepath.Base(p))
		_ = f.Close() // read only
		if err != nil {
			return fmt.Errorf("warc: cdxj: %s: %w", p, err)
		}
		all = append(all, lines...)
	}
	slices.Sort(all)
	bw := bufio.NewWriter(w)
	for _, l := range all {
		_, _ = bw.WriteString(l)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("warc: cdxj: write: %w", err)
	}
	return nil
}

// CDXJExt ends the name of the index beside a WARC file: NAME.warc.gz is
// indexed in NAME.cdxj.
const CDXJExt = ".cdxj"

// CDXJName is the name of the index of the WARC file name.
func CDXJName(name string) string { return strings.TrimSuffix(name, Ext) + CDXJExt }

// WriteCDXJFile writes the index of the WARC file at warcPath beside it
// (CDXJName), whole or not at all (atomicfile): through a temporary file
// ".cdxj-N" of its own, so that two writers racing on one index each
// rename a whole one (both write the same content); with a WARC file's
// mode (0644 less the umask).
func WriteCDXJFile(warcPath string) error {
	var werr error
	err := atomicfile.WriteWith(CDXJName(warcPath), indexTemp, func(w io.Writer) error {
		werr = WriteCDXJ(w, warcPath)
		return werr
	})
	if err != nil && err != werr {
		err = fmt.Errorf("warc: cdxj: %w", err)
	}
	return err
}

// indexTemp is how an index is written: through a temporary file named as
// os.CreateTemp(dir, ".cdxj-*") names it (datadir knows a leftover one,
// from a crash between create and rename, as godwit's own), with a WARC
// file's mode.
var indexTemp = atomicfile.Options{Perm: 0o644, Temp: ".cdxj-*"}

// cdxjLine formats one index line: SURT key, 14-digit timestamp, JSON.
func cdxjLine(rec *Record, filename string, offset, length int64) string {
	uri := TargetURI(rec)
	key := SURTKey(uri)
	var b strings.Builder
	// The line's size, give or take a field or an escape: one allocation.
	b.Grow(len(key) + len(uri) + len(filename) + 192)
	b.WriteString(key)
	b.WriteByte(' ')
	b.WriteString(timestamp14(rec.Header.Get(FieldDate)))
	b.WriteString(" {")
	first := true
	field := func(name, value string) {
		if value == "" {
			return // pywb leaves out empty and "-" values
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		writeJSONString(&b, name)
		b.WriteString(": ")
		writeJSONString(&b, value)
	}
	var (
		mime   string
		status string
	)
	if IsHTTP(rec) {
		code, ct := statusAndType(rec.Block)
		mime = mediaType(ct)
		if code > 0 {
			status = strconv.Itoa(code)
		}
	} else {
		mime = mediaType(rec.Header.Get(FieldContentType))
	}
	if mime == "" {
		mime = "unk"
	}
	if rec.Type == TypeRevisit {
		mime = "warc/revisit"
	}
	if rec.Type == TypeResource {
		status = ""
	}
	digest := rec.Header.Get(FieldPayloadDigest)
	if digest == "" && rec.Type != TypeRevisit && !rec.Header.Has(FieldTruncated) {
		// pywb computes the digest a record lacks (a resource written
		// with a block digest only); a truncated record's would be wrong.
		if p, err := Payload(rec); err == nil {
			digest = Digest("sha1", p)
		}
	}
	digest = strings.TrimPrefix(digest, "sha1:")
	field("url", uri)
	field("mime", mime)
	field("status", status)
	field("digest", digest)
	field("length", strconv.FormatInt(length, 10))
	field("offset", strconv.FormatInt(offset, 10))
	field("filename", filename)
	b.WriteString("}\n")
	return b.String()
}

// SURTKey returns the CDXJ lookup key of a target URI: the SURT of its
// canonical form ("com,example)/path?a=1"), as pywb computes it. Like the
// surt library pywb uses, it reorders any "scheme://host/…" URI
// ("metadata://gnu.org/x" → "org,gnu)/x") after lower-casing it, and only
// lower-cases a URI without "://" (dns:, urn:…).
func SURTKey(uri string) string {
	if u, err := urlnorm.Parse(uri); err == nil {
		return cdxjKeys.SURT(u)
	}
	if strings.Contains(uri, "://") {
		return urlnorm.SURT(strings.ToLower(uri))
	}
	return strings.ToLower(uri)
}

// timestamp14 turns a WARC-Date into the 14-digit CDX timestamp
// yyyyMMddHHmmss. A date that does not parse gives its first 14 digits,
// padded with zeros, as pywb does.
func timestamp14(date string) string {
	if t, err := ParseDate(date); err == nil {
		return t.UTC().Format("20060102150405")
	}
	var d []byte
	for i := 0; i < len(date) && len(d) < 14; i++ {
		if c := date[i]; '0' <= c && c <= '9' {
			d = append(d, c)
		}
	}
	for len(d) < 14 {
		d = append(d, '0')
	}
	return string(d)
}

// mediaType returns a Content-Type without parameters, as pywb takes it:
// the value up to the first ';' or space.
func mediaType(ct string) string {
	ct = strings.TrimSpace(ct)
	if i := strings.IndexAny(ct, "; "); i >= 0 {
		ct = ct[:i]
	}
	return ct
}

// writeJSONString writes s as a JSON string the way Python's json.dumps
// does by default (pywb writes its CDXJ with it): every non-ASCII
// character as \uXXXX (surrogate pairs beyond the BMP), control characters
// escaped, "/" and HTML characters left alone, so our lines are
// byte-identical to pywb's.
func writeJSONString(b *strings.Builder, s string) {
	const hexDigits = "0123456789abcdef"
	u4 := func(r rune) {
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(hexDigits[(r>>shift)&0xf])
		}
	}
	b.WriteByte('"')
	for len(s) > 0 {
		// A run of ASCII that needs no escape goes in whole.
		n := 0
		for n < len(s) && s[n] >= 0x20 && s[n] < utf8.RuneSelf && s[n] != '"' && s[n] != '\\' {
			n++
		}
		b.WriteString(s[:n])
		if s = s[n:]; s == "" {
			break
		}
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			u4(r)
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			u4(0xd800 + (r>>10)&0x3ff)
			u4(0xdc00 + r&0x3ff)
		default:
			u4(r)
		}
	}
	b.WriteByte('"')
}

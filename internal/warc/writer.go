package warc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/godwit-crawler/godwit/internal/atomicfile"
)

// gzipLevel is the compression of every record's gzip member. The
// klauspost/compress encoder at its fastest level runs about nine times
// faster than the standard library's default level (6) on HTML, for
// members about 5% larger (docs/benchmarks.md): compression was a third of
// the crawler's CPU time per page, and a crawl's disk holds more than its
// CPU does. The members are ordinary gzip; every reader accepts them.
const gzipLevel = gzip.BestSpeed

// File naming and defaults; docs/formats.md describes them byte by byte.
const (
	// Ext ends every file name the Writer produces.
	Ext = ".warc.gz"
	// OpenSuffix is appended to the name of the file being written; it is
	// removed when the file is complete.
	OpenSuffix = ".open"

	DefaultPrefix  = "godwit"
	DefaultMaxSize = 1 << 30
	DefaultDigest  = "sha1"
	// ConformsTo is the warcinfo conformsTo value the Writer defaults to.
	ConformsTo = "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"
)

// ErrClosed is returned by a Writer used after Close.
var ErrClosed = errors.New("warc: writer closed")

// WriterConfig configures a Writer. It is plain data: Default fills the
// zero values and Validate checks the result.
type WriterConfig struct {
	// Dir is the output directory, created if missing. Default ".".
	Dir string
	// Prefix starts every file name. Default "godwit".
	Prefix string
	// Node names the machine in file names. Default: os.Hostname with
	// characters outside [A-Za-z0-9._-] replaced by '-'.
	Node string
	// MaxSize rotates the file once it has reached this many bytes; a group
	// larger than MaxSize still goes whole into one file. Default 1 GiB.
	MaxSize int64
	// Digest is the block digest algorithm, "sha1" (default) or "sha256".
	Digest string
	// Info is the content of each file's warcinfo record, in order
	// (application/warc-fields). Default adds software, format, conformsTo
	// and hostname when absent; operator, description, isPartOf,
	// http-header-user-agent and robots are the caller's to add.
	Info []Field
	// Now is the clock for WARC-Date and file names. Default time.Now.
	Now func() time.Time
	// Index keeps the CDXJ index of the file being written (CDXJLine of
	// each record, in memory) and writes it beside the file, NAME.cdxj as
	// WriteCDXJ would write it, when the file is completed: the file is
	// not read back. A file left incomplete (a crash, a failed write), or
	// whose index cannot be written, gets none; IndexCDXJ makes it from
	// the records.
	Index bool
}

// Default fills unset fields with their defaults.
func (c *WriterConfig) Default() {
	if c.Dir == "" {
		c.Dir = "."
	}
	if c.Prefix == "" {
		c.Prefix = DefaultPrefix
	}
	host, _ := os.Hostname()
	if c.Node == "" {
		c.Node = sanitizeName(host)
	}
	if c.MaxSize == 0 {
		c.MaxSize = DefaultMaxSize
	}
	if c.Digest == "" {
		c.Digest = DefaultDigest
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	info := Header{fields: append([]Field(nil), c.Info...)} // never append to the caller's array
	for _, f := range []Field{
		{"software", "godwit"},
		{"format", "WARC File Format 1.1"},
		{"conformsTo", ConformsTo},
		{"hostname", host},
	} {
		if !info.Has(f.Name) && f.Value != "" {
			info.Add(f.Name, f.Value)
		}
	}
	c.Info = info.fields
}

// Validate reports the first invalid setting.
func (c WriterConfig) Validate() error {
	switch {
	case c.Dir == "":
		return errors.New("warc: config: Dir is empty")
	case !isNamePart(c.Prefix):
		return fmt.Errorf("warc: config: Prefix %q: want one or more of [A-Za-z0-9._-]", c.Prefix)
	case !isNamePart(c.Node):
		return fmt.Errorf("warc: config: Node %q: want one or more of [A-Za-z0-9._-]", c.Node)
	case c.MaxSize <= 0:
		return fmt.Errorf("warc: config: MaxSize %d: want > 0", c.MaxSize)
	case c.Digest != "sha1" && c.Digest != "sha256":
		return fmt.Errorf("warc: config: Digest %q: want sha1 or sha256", c.Digest)
	case c.Now == nil:
		return errors.New("warc: config: Now is nil")
	}
	for _, f := range c.Info {
		if err := checkField(f); err != nil {
			return fmt.Errorf("warc: config: Info: %w", err)
		}
	}
	return nil
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '.' || c == '_' || c == '-'
}

func isNamePart(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}

func sanitizeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !isNameByte(c) {
			b[i] = '-'
		}
	}
	if !isNamePart(string(b)) {
		return "localhost"
	}
	return string(b)
}

// FileName returns the name of the file a Writer opens at t with serial:
// "{prefix}-{yyyyMMddHHmmssSSS}-{serial:05d}-{node}.warc.gz", time in UTC.
func FileName(prefix string, t time.Time, serial int, node string) string {
	t = t.UTC()
	return fmt.Sprintf("%s-%s%03d-%05d-%s%s",
		prefix, t.Format("20060102150405"), t.Nanosecond()/int(time.Millisecond), serial, node, Ext)
}

// Location is where a record was written: the gzip member holding it starts
// at Offset in File and is Length bytes long.
type Location struct {
	// File is the final base name (without OpenSuffix).
	File   string
	Offset int64
	Length int64
}

// Writer writes WARC files, one gzip member per record, rotating them by
// size. It is safe for concurrent use; see the package documentation.
type Writer struct {
	cfg    WriterConfig
	gz     sync.Pool                       // *gzip.Writer, reused across records
	encs   sync.Pool                       // *encoder, reused across groups
	bufs   sync.Pool                       // *bytes.Buffer, a group's encoded members
	create func(path string) (file, error) // tests substitute failing files

	mu     sync.Mutex
	f      file   // nil until the first Write and after a rotation
	name   string // final base name of f
	size   int64  // bytes in f, all of them whole members
	groups int    // record groups in f besides its warcinfo
	infoID string // WARC-Record-ID of f's warcinfo record
	serial int
	index  *indexer // CDXJ lines of f's records, with cfg.Index
	// indexRun is the index's memory before it spills (0: the default).
	indexRun int
	done     []string
	closed   bool
	err      error // set when f could not be restored after a failed write
}

// NewWriter returns a Writer for cfg, after Default and Validate. It opens no
// file until the first Write.
func NewWriter(cfg WriterConfig) (*Writer, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := &Writer{cfg: cfg, create: createFile}
	w.bufs.New = func() any { return new(bytes.Buffer) }
	w.gz.New = func() any {
		gz, _ := gzip.NewWriterLevel(nil, gzipLevel) // a valid level cannot fail
		return gz
	}
	w.encs.New = func() any {
		dg, _ := NewDigester(cfg.Digest) // Validate checked the algorithm
		return &encoder{dg: dg}
	}
	return w, nil
}

// encoder is the scratch of one group's encoding, reused from group to
// group so that a record costs no allocation for them: the block digest's
// hash, the header being formatted and the members' lengths. The gzip
// writer is not in it: its compressor holds some 800 KB of window
// and tables, and goes back to its pool as soon as the group is
// compressed, not after the wait for the file (with 64 workers queued
// on the lock, a writer each was 75 MB more peak RSS).
type encoder struct {
	dg   *Digester
	hdr  []byte
	lens []int64
}

// file is the part of *os.File the Writer uses.
type file interface {
	io.Writer
	io.Seeker
	Truncate(size int64) error
	Sync() error
	Close() error
}

func createFile(path string) (file, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

// Write writes recs as one group: consecutive gzip members, one per record,
// in the same file (rotation happens only between groups). For each record
// it fills WARC-Record-ID and WARC-Date when absent (all records of the
// group share one WARC-Date, as WARC 1.1 wants for one capture event), and
// always sets Content-Length, WARC-Block-Digest and, except on warcinfo
// records, WARC-Warcinfo-ID. Afterwards rec.Header holds exactly the fields
// written, so callers can read the record IDs. It returns the location of
// each record, in order.
//
// A group that fails to write is cut off the file again, so the file never
// holds part of a group; should that cut fail, every later call returns the
// error and the file keeps OpenSuffix.
func (w *Writer) Write(recs ...*Record) ([]Location, error) {
	for _, r := range recs {
		if err := checkRecord(r); err != nil {
			return nil, err
		}
	}
	if len(recs) == 0 {
		return nil, nil
	}

	// Compress outside the lock, so that workers sharing the Writer only
	// serialize on the file write. Should another group rotate the file in
	// between, the records are prepared again for the new warcinfo.
	w.mu.Lock()
	date := FormatDate(w.cfg.Now())
	infoID, err := w.ready()
	w.mu.Unlock()
	if err != nil {
		return nil, err
	}
	buf := w.bufs.Get().(*bytes.Buffer)
	defer w.bufs.Put(buf)
	enc := w.encs.Get().(*encoder)
	defer w.encs.Put(enc)
	lens := w.encode(enc, buf, recs, date, infoID)

	w.mu.Lock()
	defer w.mu.Unlock()
	cur, err := w.ready()
	if err != nil {
		return nil, err
	}
	if cur != infoID {
		lens = w.encode(enc, buf, recs, date, cur)
	}
	locs, err := w.append(buf.Bytes(), lens)
	if err != nil {
		return nil, err
	}
	w.groups++
	if w.cfg.Index {
		if w.index == nil {
			w.index = newIndexer(w.cfg.Dir, w.indexRun)
		}
		for i, rec := range recs {
			if line, ok := CDXJLine(rec, locs[i]); ok {
				w.index.add(line)
			}
		}
	}
	return locs, nil
}

// Sync flushes the current file to stable storage.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("warc: sync %s: %w", w.name, err)
	}
	return nil
}

// Rotate completes the current file, if any; the next Write starts a new one.
func (w *Writer) Rotate() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	if w.f == nil {
		return nil
	}
	return w.finish()
}

// Close completes the current file: fsync, close, rename to its final name.
// Later calls return nil; Write after Close returns ErrClosed.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if w.f == nil {
		return nil
	}
	return w.finish()
}

// Files returns the final base names of the completed files and, last, of
// the file being written (still named with OpenSuffix on disk).
func (w *Writer) Files() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	files := append([]string(nil), w.done...)
	if w.f != nil {
		files = append(files, w.name)
	}
	return files
}

// ready makes sure a file is open and below MaxSize and returns its
// warcinfo ID. w.mu must be held.
func (w *Writer) ready() (string, error) {
	if w.closed {
		return "", ErrClosed
	}
	if w.err != nil {
		return "", w.err
	}
	// A file holds at least one group besides its warcinfo, however small
	// MaxSize is: otherwise a warcinfo larger than MaxSize would rotate
	// forever into files with nothing else in them.
	if w.f != nil && w.groups > 0 && w.size >= w.cfg.MaxSize {
		if err := w.finish(); err != nil {
			return "", err
		}
	}
	if w.f == nil {
		if err := w.open(); err != nil {
			return "", err
		}
	}
	return w.infoID, nil
}

// encode prepares recs and compresses each into its own gzip member,
// written back to back into buf (emptied first); it returns their
// lengths, in enc's storage.
func (w *Writer) encode(enc *encoder, buf *bytes.Buffer, recs []*Record, date, infoID string) []int64 {
	buf.Reset()
	enc.lens = enc.lens[:0]
	gz := w.gz.Get().(*gzip.Writer)
	defer w.gz.Put(gz)
	for _, rec := range recs {
		prepare(rec, date, infoID, enc.dg)
		start := buf.Len()
		gz.Reset(buf)
		// klauspost's gzip writes a zero ModTime as its Unix time cut to
		// 32 bits, not as 0 ("no time") like compress/gzip: say 0.
		gz.ModTime = time.Unix(0, 0)
		enc.hdr = appendHeader(enc.hdr[:0], rec)
		// Writes to a bytes.Buffer cannot fail.
		_, _ = gz.Write(enc.hdr)
		_, _ = gz.Write(rec.Block)
		_, _ = gz.Write(rec.More)
		_, _ = io.WriteString(gz, trailer)
		_ = gz.Close()
		enc.lens = append(enc.lens, int64(buf.Len()-start))
	}
	return enc.lens
}

// append writes encoded members at the end of the current file. On failure
// it cuts the file back to its previous size. w.mu must be held.
func (w *Writer) append(buf []byte, lens []int64) ([]Location, error) {
	n, err := w.f.Write(buf)
	if err != nil {
		if n > 0 {
			if terr := w.f.Truncate(w.size); terr != nil {
				w.err = fmt.Errorf("warc: %s ends in a partial record group (truncate: %v): %w", w.name, terr, err)
			} else if _, serr := w.f.Seek(w.size, io.SeekStart); serr != nil {
				w.err = fmt.Errorf("warc: %s: seek after failed write: %w", w.name, serr)
			}
		}
		return nil, fmt.Errorf("warc: write %s: %w", w.name, err)
	}
	locs := make([]Location, len(lens))
	off := w.size
	for i, l := range lens {
		locs[i] = Location{File: w.name, Offset: off, Length: l}
		off += l
	}
	w.size = off
	return locs, nil
}

// open creates the next file and writes its warcinfo record. w.mu must be
// held.
func (w *Writer) open() error {
	if err := os.MkdirAll(w.cfg.Dir, 0o755); err != nil {
		return fmt.Errorf("warc: %w", err)
	}
	now := w.cfg.Now()
	var (
		f    file
		name string
	)
	// A name can be taken only by a file of an earlier process that started
	// in the same millisecond; skip to the next serial then.
	for tries := 0; ; tries++ {
		name = FileName(w.cfg.Prefix, now, w.serial, w.cfg.Node)
		w.serial++
		path := filepath.Join(w.cfg.Dir, name)
		_, err := os.Lstat(path)
		if err == nil {
			err = fs.ErrExist
		} else if errors.Is(err, fs.ErrNotExist) {
			f, err = w.create(path + OpenSuffix)
		}
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || tries == 99 {
			return fmt.Errorf("warc: create %s: %w", path+OpenSuffix, err)
		}
	}
	info := &Record{Type: TypeWarcinfo, Block: FieldsBlock(w.cfg.Info)}
	info.Header.Set(FieldFilename, name)
	info.Header.Set(FieldContentType, ContentTypeWarcFields)
	w.f, w.name, w.size, w.infoID, w.groups = f, name, 0, "", 0
	var buf bytes.Buffer
	enc := w.encs.Get().(*encoder)
	defer w.encs.Put(enc)
	lens := w.encode(enc, &buf, []*Record{info}, FormatDate(now), "")
	if _, err := w.append(buf.Bytes(), lens); err != nil {
		w.f = nil
		w.err = nil // nothing is left of this file to repair
		_ = f.Close()
		_ = os.Remove(filepath.Join(w.cfg.Dir, name+OpenSuffix))
		return err
	}
	w.infoID = info.Header.Get(FieldRecordID)
	return nil
}

// finish fsyncs, closes and renames the current file. On error the file
// keeps its OpenSuffix, marking it as incomplete. w.mu must be held.
func (w *Writer) finish() error {
	f, name, index := w.f, w.name, w.index
	w.f, w.name, w.size, w.infoID, w.index = nil, "", 0, "", nil
	if index != nil {
		defer index.close()
	}
	path := filepath.Join(w.cfg.Dir, name)
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && w.err != nil {
		return w.err // it ends in a partial group: keep OpenSuffix
	}
	if err == nil {
		err = os.Rename(path+OpenSuffix, path)
	}
	if err != nil {
		return fmt.Errorf("warc: complete %s: %w", name, err)
	}
	w.done = append(w.done, name)
	if w.cfg.Index {
		// The index only saves reading the file: one that cannot be
		// written leaves the file as a crash would, without an index,
		// rather than failing the Write that rotated.
		if index == nil { // a file of its warcinfo alone
			index = newIndexer(w.cfg.Dir, w.indexRun)
		}
		_ = index.write(filepath.Join(w.cfg.Dir, strings.TrimSuffix(name, Ext)+".cdxj"))
	}
	syncDir(w.cfg.Dir)
	return nil
}

// writeIndex writes the lines write gives, already sorted, to path, whole
// or not at all.
func writeIndex(path string, write func(io.StringWriter) error) error {
	err := atomicfile.WriteWith(path, indexTemp, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		err := write(bw)
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("warc: index %s: %w", filepath.Base(path), err)
	}
	return nil
}

// syncDir makes the rename durable. Errors are ignored: some platforms
// cannot fsync a directory, and the file content is already synced.
func syncDir(dir string) { _ = atomicfile.SyncDir(dir) }

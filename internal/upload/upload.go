package upload

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/godwit-crawler/godwit/internal/blob"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// ErrClosed is returned by Run called after Close.
var ErrClosed = errors.New("upload: uploader closed")

// Store is what an Uploader needs of an object store; *blob.Bucket has it.
type Store interface {
	// PutFileNew uploads the file at path to key, unless an object has
	// the key, and returns once the stored object is verified: an object
	// with the file's bytes already there is success (Object.Existed),
	// one with other bytes blob.ErrExists, a store that does not support
	// conditional writes blob.ErrNoConditional (see blob.Bucket).
	PutFileNew(ctx context.Context, key, path string, how blob.Create) (blob.Object, error)
}

var _ Store = (*blob.Bucket)(nil)

// Defaults of Config.
const (
	DefaultScan       = 2 * time.Second
	DefaultBackoff    = time.Second
	DefaultBackoffMax = 5 * time.Minute
)

// Config configures an Uploader. It is plain data: Default fills the zero
// values, Validate checks the result.
type Config struct {
	// Dir is the spool: the crawl's WARC directory.
	Dir string
	// Manifest is the path of the record of uploaded files.
	Manifest string
	// Prefix starts every key, e.g. "warc/<crawl>/<node>/"; the day and
	// the file name follow.
	Prefix string
	// KeepLocal keeps a file in Dir after its upload; by default it is
	// deleted once the upload is verified and recorded.
	KeepLocal bool
	// SpoolMax is how many bytes of complete files waiting for upload the
	// spool may hold before the Uploader reports pressure; 0: no limit.
	SpoolMax int64
	// Scan is how often Dir is looked at for new files. Default DefaultScan.
	Scan time.Duration
	// Backoff and BackoffMax bound the wait after a failed upload, which
	// doubles with each failure in a row and is jittered (half fixed, half
	// random). Defaults DefaultBackoff, DefaultBackoffMax.
	Backoff    time.Duration
	BackoffMax time.Duration
	// OnPressure, if set, is called from Run when the spool goes over
	// SpoolMax (true) and when it is back under it (false).
	OnPressure func(full bool)
	// Logger; default slog.Default.
	Logger *slog.Logger
	// Now is the clock of the manifest's timestamps. Default time.Now.
	Now func() time.Time
}

// Default fills unset fields with their defaults.
func (c *Config) Default() {
	if c.Scan == 0 {
		c.Scan = DefaultScan
	}
	if c.Backoff == 0 {
		c.Backoff = DefaultBackoff
	}
	if c.BackoffMax == 0 {
		c.BackoffMax = DefaultBackoffMax
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Validate reports the first invalid setting.
func (c Config) Validate() error {
	switch {
	case c.Dir == "":
		return errors.New("upload: config: Dir is empty")
	case c.Manifest == "":
		return errors.New("upload: config: Manifest is empty")
	case c.Prefix != "" && !strings.HasSuffix(c.Prefix, "/"):
		return fmt.Errorf("upload: config: Prefix %q: want a trailing /", c.Prefix)
	case strings.HasPrefix(c.Prefix, "/"):
		return fmt.Errorf("upload: config: Prefix %q: want a relative key", c.Prefix)
	case c.SpoolMax < 0:
		return fmt.Errorf("upload: config: SpoolMax %d is negative", c.SpoolMax)
	case c.Scan <= 0 || c.Backoff <= 0 || c.BackoffMax < c.Backoff:
		return errors.New("upload: config: want Scan > 0 and 0 < Backoff <= BackoffMax")
	}
	return nil
}

// Stats is a snapshot of an Uploader's work.
type Stats struct {
	Uploaded      int   // files uploaded by this Uploader
	UploadedBytes int64 // their bytes
	Recorded      int   // files in the manifest, earlier runs included
	Pending       int   // complete files in the spool not uploaded yet, at the last look
	PendingBytes  int64
	Failures      int    // failed uploads
	LastError     string // of the last failed upload, "" after a success
	// Conflicts counts files whose key held another object with other
	// bytes: the object is not replaced and the file stays in the spool,
	// not uploaded (ConflictFiles names them). Not counted in Pending.
	Conflicts     int
	ConflictFiles []string
	// Existing counts files whose key already held their bytes (an
	// upload retried after its answer was lost): recorded without a write.
	Existing int
	// Unconditional: the store answered that it does not support
	// conditional writes, and uploads look before they write.
	Unconditional bool
	Full          bool // PendingBytes is over SpoolMax
	Scans         int  // looks at the spool
}

// Uploader uploads completed files from a spool directory.
type Uploader struct {
	cfg   Config
	store Store
	log   *slog.Logger
	man   *manifest

	wake    chan struct{} // Notify; buffered 1
	closing chan struct{} // closed by Close
	runDone chan struct{} // closed when Run returns
	close   sync.Once

	mu      sync.Mutex
	started bool // Run began, or Close made the last pass itself
	closed  bool
	done    map[string]Entry // by file name
	days    map[string]string
	stats   Stats
	// conflicts are the stems (a WARC and its index) whose upload found
	// another object under a key: neither file is uploaded by this
	// Uploader (a restart tries again).
	conflicts map[string]bool
	how       blob.Create // CreateLookFirst once the store refused a condition
}

// New reads the manifest and returns an Uploader; it starts nothing. The
// caller must Close it.
func New(cfg Config, store Store) (*Uploader, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if store == nil {
		return nil, errors.New("upload: no store")
	}
	man, entries, err := openManifest(cfg.Manifest)
	if err != nil {
		return nil, err
	}
	u := &Uploader{
		cfg: cfg, store: store, log: cfg.Logger, man: man,
		wake: make(chan struct{}, 1), closing: make(chan struct{}), runDone: make(chan struct{}),
		done: make(map[string]Entry, len(entries)), days: map[string]string{},
		conflicts: map[string]bool{},
	}
	for _, e := range entries {
		u.done[e.File] = e
	}
	u.stats.Recorded = len(u.done)
	return u, nil
}

// Notify asks Run to look at the spool now (a file was completed).
func (u *Uploader) Notify() {
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

// Stats returns a snapshot of the Uploader's work.
func (u *Uploader) Stats() Stats {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.stats
}

// Full reports whether the spool is over SpoolMax.
func (u *Uploader) Full() bool { return u.Stats().Full }

// Entry returns the manifest's record of the file name, if it was uploaded.
func (u *Uploader) Entry(name string) (Entry, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	e, ok := u.done[name]
	return e, ok
}

// Run uploads until ctx ends or Close is called (see the package doc). It
// returns nil then; it may be called once.
func (u *Uploader) Run(ctx context.Context) error {
	u.mu.Lock()
	if u.started {
		closed := u.closed
		u.mu.Unlock()
		if closed {
			return ErrClosed
		}
		return errors.New("upload: Run called twice")
	}
	u.started = true
	u.mu.Unlock()
	defer close(u.runDone)

	failures := 0
	for {
		wait := u.cfg.Scan
		if err := u.pass(ctx); err != nil && ctx.Err() == nil {
			failures++
			wait = u.backoff(failures)
			u.log.Warn("upload failed; files stay in the spool and are retried", "err", err, "retry_in", wait.Round(time.Millisecond))
		} else {
			failures = 0
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-u.closing:
			t.Stop()
			// The last pass: each pending file is tried once more.
			if err := u.pass(ctx); err != nil && ctx.Err() == nil {
				u.log.Warn("upload failed at shutdown; the files stay in the spool for the next run", "err", err)
			}
			return nil
		case <-u.wake:
			t.Stop()
		case <-t.C:
		}
	}
}

// Close ends Run after its last pass, waits for it, and closes the
// manifest. If Run has not started, Close makes the last pass itself (a
// Run called later returns ErrClosed), so that a Close that races a Run
// starting in another goroutine uploads the same files either way.
func (u *Uploader) Close() error {
	first := false
	u.close.Do(func() { first = true; close(u.closing) })
	if !first {
		return nil
	}
	u.mu.Lock()
	started := u.started
	u.started, u.closed = true, true
	u.mu.Unlock()
	if started {
		<-u.runDone
	} else if err := u.pass(context.Background()); err != nil {
		u.log.Warn("upload failed at shutdown; the files stay in the spool for the next run", "err", err)
	}
	return u.man.close()
}

// backoff is the wait after n failures in a row: Backoff doubling up to
// BackoffMax, half of it fixed and half random.
func (u *Uploader) backoff(n int) time.Duration {
	d := u.cfg.Backoff
	for i := 1; i < n && d < u.cfg.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, u.cfg.BackoffMax)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// pending is a complete file in the spool that is not uploaded yet.
type pending struct {
	name string
	size int64
}

// pass uploads pending files, oldest first, until none is left or one
// fails; it looks at the spool again after each upload.
func (u *Uploader) pass(ctx context.Context) error {
	for ctx.Err() == nil {
		files, err := u.scan()
		if err != nil {
			return err
		}
		if len(files) == 0 {
			return nil
		}
		if err := u.upload(ctx, files[0]); err != nil {
			u.mu.Lock()
			u.stats.Failures++
			u.stats.LastError = err.Error()
			u.mu.Unlock()
			return err
		}
	}
	return ctx.Err()
}

// scan lists the pending files, WARC files before their index, deletes
// the local copies of uploaded ones (without KeepLocal: a crash came
// between the record and the delete), and updates the pending stats and
// the pressure.
func (u *Uploader) scan() ([]pending, error) {
	entries, err := os.ReadDir(u.cfg.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		entries, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("upload: %w", err)
	}
	var files []pending
	var bytes int64
	for _, de := range entries {
		name := de.Name()
		if !de.Type().IsRegular() || !strings.HasSuffix(name, warc.Ext) && !strings.HasSuffix(name, warc.CDXJExt) {
			continue
		}
		if _, ok := u.Entry(name); ok {
			if !u.cfg.KeepLocal {
				u.remove(name)
			}
			continue
		}
		u.mu.Lock()
		conflict := u.conflicts[stem(name)]
		u.mu.Unlock()
		if conflict {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // gone meanwhile
		}
		files = append(files, pending{name: name, size: fi.Size()})
		bytes += fi.Size()
	}
	slices.SortFunc(files, func(a, b pending) int {
		return cmp.Or(cmp.Compare(stem(a.name), stem(b.name)), // a WARC before its index
			cmp.Compare(isIndex(a.name), isIndex(b.name)))
	})
	full := u.cfg.SpoolMax > 0 && bytes > u.cfg.SpoolMax
	u.mu.Lock()
	u.stats.Pending, u.stats.PendingBytes = len(files), bytes
	u.stats.Scans++
	changed := u.stats.Full != full
	u.stats.Full = full
	u.mu.Unlock()
	if changed {
		if full {
			u.log.Warn("upload spool full: the crawl should pause until files are uploaded", "pending_bytes", bytes, "spool_max", u.cfg.SpoolMax)
		} else {
			u.log.Info("upload spool below its limit again", "pending_bytes", bytes)
		}
		if u.cfg.OnPressure != nil {
			u.cfg.OnPressure(full)
		}
	}
	return files, nil
}

// isIndex is 1 for an index, 0 for a WARC file.
func isIndex(name string) int {
	if strings.HasSuffix(name, warc.CDXJExt) {
		return 1
	}
	return 0
}

func stem(name string) string {
	return strings.TrimSuffix(strings.TrimSuffix(name, warc.Ext), warc.CDXJExt)
}

// upload uploads one file, records it, and deletes it unless KeepLocal.
func (u *Uploader) upload(ctx context.Context, p pending) error {
	local := filepath.Join(u.cfg.Dir, p.name)
	isWARC := strings.HasSuffix(p.name, warc.Ext)
	if isWARC {
		// The WARC goes up with its index: write the index now if the
		// archive has not (it indexes at its close), before the WARC may
		// be deleted.
		idx := warc.CDXJName(p.name)
		if _, err := os.Stat(filepath.Join(u.cfg.Dir, idx)); errors.Is(err, fs.ErrNotExist) {
			if _, ok := u.Entry(idx); !ok {
				if err := warc.WriteCDXJFile(local); err != nil {
					u.log.Warn("upload: could not index a WARC file; it is uploaded without its index", "file", p.name, "err", err)
				}
			}
		}
	}
	day, err := u.day(p.name)
	if err != nil {
		return err
	}
	key := u.cfg.Prefix + day + "/" + p.name
	start := time.Now()
	u.mu.Lock()
	how := u.how
	u.mu.Unlock()
	obj, err := u.store.PutFileNew(ctx, key, local, how)
	if errors.Is(err, blob.ErrNoConditional) {
		u.log.Warn("upload: the store does not support conditional writes (If-None-Match); uploads look before they write from now on, which cannot see another writer between the look and the write", "key", key)
		u.mu.Lock()
		u.how, u.stats.Unconditional = blob.CreateLookFirst, true
		u.mu.Unlock()
		obj, err = u.store.PutFileNew(ctx, key, local, blob.CreateLookFirst)
	}
	if errors.Is(err, blob.ErrExists) {
		u.conflict(p.name, key, obj, err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("upload: %s: %w", p.name, err)
	}
	if obj.Existed {
		u.log.Info("upload: the store already held this file's bytes under its key (an earlier upload); recorded without writing", "file", p.name, "key", key)
	}
	e := Entry{File: p.name, Key: key, Size: obj.Size, MD5: obj.MD5, ETag: obj.ETag, Uploaded: u.cfg.Now().UTC()}
	if err := u.man.append(e); err != nil {
		return err
	}
	u.mu.Lock()
	u.done[p.name] = e
	u.stats.Uploaded++
	u.stats.UploadedBytes += e.Size
	u.stats.Recorded = len(u.done)
	u.stats.LastError = ""
	if obj.Existed {
		u.stats.Existing++
	}
	u.mu.Unlock()
	u.log.Debug("uploaded", "file", p.name, "key", key, "bytes", e.Size, "took", time.Since(start).Round(time.Millisecond))
	if !u.cfg.KeepLocal {
		u.remove(p.name)
	}
	return nil
}

// conflict handles a file whose key holds another object with other
// bytes (another writer's file of the same name): the object is not
// replaced, the file and its index stay in the spool, not uploaded, and
// the conflict is reported as an error (log, Stats, the crawl's summary
// and metrics). The spool goes on with the other files. A restart tries
// the file again, and reports it again if the key is still taken.
func (u *Uploader) conflict(name, key string, obj blob.Object, err error) {
	u.mu.Lock()
	u.conflicts[stem(name)] = true
	u.stats.Conflicts++
	u.stats.ConflictFiles = append(u.stats.ConflictFiles, name)
	u.stats.LastError = err.Error()
	u.mu.Unlock()
	u.log.Error("upload: the store holds another file under this file's key; it was not replaced, and this file (with its index) stays in the spool, not uploaded: rename or move one of them and run again",
		"file", name, "key", key, "md5", obj.MD5, "err", err)
}

// remove deletes the local copy of an uploaded file.
func (u *Uploader) remove(name string) {
	if err := os.Remove(filepath.Join(u.cfg.Dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		u.log.Warn("upload: could not delete an uploaded file from the spool", "file", name, "err", err)
	}
}

// day is the UTC day a file's key sorts under: its WARC's warcinfo date
// (an index goes with its WARC), else the file's modification time.
func (u *Uploader) day(name string) (string, error) {
	w := stem(name) + warc.Ext
	u.mu.Lock()
	d, ok := u.days[w]
	e, uploaded := u.done[w]
	u.mu.Unlock()
	switch {
	case ok:
		return d, nil
	case uploaded:
		d = path.Base(path.Dir(e.Key))
	default:
		t, err := warcDate(filepath.Join(u.cfg.Dir, w))
		if err != nil {
			fi, serr := os.Stat(filepath.Join(u.cfg.Dir, name))
			if serr != nil {
				return "", fmt.Errorf("upload: %s: %w", name, serr)
			}
			t = fi.ModTime()
		}
		d = t.UTC().Format(time.DateOnly)
	}
	u.mu.Lock()
	u.days[w] = d
	u.mu.Unlock()
	return d, nil
}

// warcDate is the WARC-Date of the first record of the WARC file at p.
func warcDate(p string) (time.Time, error) {
	f, err := os.Open(p)
	if err != nil {
		return time.Time{}, err
	}
	defer f.Close()
	r, err := warc.NewReader(f)
	if err != nil {
		return time.Time{}, err
	}
	rec, err := r.Next()
	if err != nil {
		return time.Time{}, err
	}
	return warc.ParseDate(rec.Header.Get(warc.FieldDate))
}

package upload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"sync"
	"time"

	"github.com/godwit-crawler/godwit/internal/blob"
	"github.com/prometheus/client_golang/prometheus"
)

// SpoolConfig configures a Spool: where the spool and the manifest are,
// and the key prefix of the crawl's files in the bucket.
type SpoolConfig struct {
	// Dir is the spool: the crawl's WARC directory.
	Dir string
	// Manifest is the path of the manifest of uploaded files.
	Manifest string
	// Prefix is the crawl's key prefix in the bucket
	// ("warc/CRAWL/NODE/").
	Prefix string
	// KeepLocal keeps uploaded files in Dir.
	KeepLocal bool
	// SpoolMax: bytes waiting for upload above which the crawl pauses
	// (0: never).
	SpoolMax int64
	// Logger; nil discards.
	Logger *slog.Logger
}

// Spool uploads a crawl's WARC files while it runs: the Uploader, the
// goroutine that runs it, and the bucket it reads uploaded records back
// from (it implements archive.Remote). It pauses the crawl while the
// spool is over SpoolConfig.SpoolMax.
//
// OpenSpool starts nothing; Start runs the uploader, Stop makes its last
// pass and closes it. Stop is safe to call more than once.
type Spool struct {
	bucket    *blob.Bucket
	up        *Uploader
	prefix    string
	keepLocal bool
	log       *slog.Logger

	// crawl is paused on spool pressure; set by Start, before the
	// uploader runs. paused: the spool paused it (not the operator).
	crawl  Pauser
	paused bool

	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

// Pauser is the crawl's pause switch (*crawl.Crawler).
type Pauser interface {
	Pause()
	Resume()
	Paused() bool
}

// OpenSpool checks the bucket and prepares the upload of the crawl's WARC
// files. A bucket the server says does not exist is an error wrapping
// blob.ErrNoBucket; a server that cannot be reached only costs a warning
// (files wait in the spool).
func OpenSpool(ctx context.Context, bucket *blob.Bucket, c SpoolConfig) (*Spool, error) {
	log := c.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err := bucket.Check(cctx)
	cancel()
	switch {
	case errors.Is(err, blob.ErrNoBucket):
		return nil, err
	case err != nil:
		log.Warn("object store unreachable; WARC files wait in the spool until it answers", "err", err)
	}
	s := &Spool{bucket: bucket, prefix: c.Prefix, keepLocal: c.KeepLocal, log: log}
	s.up, err = New(Config{
		Dir:        c.Dir,
		Manifest:   c.Manifest,
		Prefix:     c.Prefix,
		KeepLocal:  c.KeepLocal,
		SpoolMax:   c.SpoolMax,
		OnPressure: s.pressure,
		Logger:     log,
	}, bucket)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// pressure pauses the crawl while the spool is over its limit. The pause
// is the crawler's, which the operator also uses (admin API): the spool
// resumes only a crawl it paused itself.
func (s *Spool) pressure(full bool) {
	switch {
	case s.crawl == nil:
	case full && !s.crawl.Paused():
		s.crawl.Pause()
		s.paused = true
	case !full && s.paused:
		s.crawl.Resume()
		s.paused = false
	}
}

// Start runs the uploader until Stop. The crawl (which may be nil) is
// paused while the spool is over SpoolConfig.SpoolMax.
func (s *Spool) Start(ctx context.Context, crawl Pauser) {
	// Uploads outlive Ctrl-C: the last pass at Stop must still run.
	ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	s.done = make(chan error, 1)
	s.crawl = crawl
	go func() { s.done <- s.up.Run(ctx) }()
	s.log.Info("uploading WARC files", "store", s.URL(), "keep_local", s.keepLocal)
}

// Stop uploads what is left (each pending file tried once more), waits
// for the uploader and closes it. Call it after the archive has closed,
// so the last WARC file and every index are complete.
func (s *Spool) Stop() error {
	var err error
	s.once.Do(func() {
		if st := s.up.Stats(); s.done != nil {
			s.log.Info("uploading the last WARC files", "pending_before_close", st.Pending)
		}
		err = s.up.Close()
		if s.done != nil {
			// ErrClosed: Close came first and made the last pass itself.
			if runErr := <-s.done; !errors.Is(runErr, ErrClosed) {
				err = errors.Join(runErr, err)
			}
			s.cancel()
		}
		s.bucket.CloseIdleConnections()
	})
	return err
}

// ReadRange reads a record of an uploaded WARC file that is no longer on
// local disk (archive.Remote).
func (s *Spool) ReadRange(ctx context.Context, file string, offset, length int64) ([]byte, error) {
	e, ok := s.up.Entry(file)
	if !ok {
		return nil, fmt.Errorf("%s is neither on disk nor uploaded: %w", file, fs.ErrNotExist)
	}
	rc, err := s.bucket.GetRange(ctx, e.Key, offset, length)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, length))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) != length {
		return nil, fmt.Errorf("%s@%d: read %d bytes of %d from the store", file, offset, len(b), length)
	}
	return b, nil
}

// Size is the size of a WARC file of the crawl once uploaded, as
// recorded; false for a file not uploaded, or a nil Spool.
func (s *Spool) Size(name string) (int64, bool) {
	if s == nil {
		return 0, false
	}
	e, ok := s.up.Entry(name)
	return e.Size, ok
}

// Bucket is the bucket the files go to.
func (s *Spool) Bucket() *blob.Bucket { return s.bucket }

// URL names where the crawl's files go: the bucket and the prefix.
func (s *Spool) URL() string { return s.bucket.String() + "/" + s.prefix }

// KeepLocal reports whether uploaded files stay in the spool.
func (s *Spool) KeepLocal() bool { return s.keepLocal }

// Stats are the uploader's counts.
func (s *Spool) Stats() Stats { return s.up.Stats() }

// RegisterMetrics registers the uploader's metrics.
func (s *Spool) RegisterMetrics(r prometheus.Registerer) error { return s.up.RegisterMetrics(r) }

package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
)

var _ crawl.Events = (*File)(nil)

// Config says where events go.
type Config struct {
	// Path is the live file. When it reaches MaxSize it is renamed
	// Path.N (N = 1, 2, …, one more than the highest there) and a new
	// Path is started: a reader takes Path.1, Path.2, … then Path.
	Path string
	// MaxSize is the size in bytes past which the file is rotated;
	// default 64 MiB.
	MaxSize int64
}

// File appends page events to a rotated JSON Lines file.
type File struct {
	cfg  Config
	mu   sync.Mutex
	f    *os.File
	size int64
	next int // the suffix of the next rotated file
}

// Open opens (or creates) cfg.Path for appending: a resumed crawl's
// events follow the earlier ones.
func Open(cfg Config) (*File, error) {
	if cfg.Path == "" {
		return nil, errors.New("events: no file")
	}
	if cfg.MaxSize == 0 {
		cfg.MaxSize = 64 << 20
	}
	if cfg.MaxSize < 0 {
		return nil, fmt.Errorf("events: max size %d is negative", cfg.MaxSize)
	}
	if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o755); err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	next, err := nextSuffix(cfg.Path)
	if err != nil {
		return nil, err
	}
	f := &File{cfg: cfg, next: next}
	if err := f.open(); err != nil {
		return nil, err
	}
	return f, nil
}

// Rotated lists the rotated files of path, oldest first.
func Rotated(path string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	type rot struct {
		name string
		n    int
	}
	var rs []rot
	base := filepath.Base(path) + "."
	for _, e := range ents {
		suffix, ok := strings.CutPrefix(e.Name(), base)
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(suffix); err == nil && n > 0 {
			rs = append(rs, rot{filepath.Join(filepath.Dir(path), e.Name()), n})
		}
	}
	out := make([]string, len(rs))
	for i := range rs { // few files: a simple insertion order by n
		for j := i + 1; j < len(rs); j++ {
			if rs[j].n < rs[i].n {
				rs[i], rs[j] = rs[j], rs[i]
			}
		}
		out[i] = rs[i].name
	}
	return out, nil
}

func nextSuffix(path string) (int, error) {
	rs, err := Rotated(path)
	if err != nil || len(rs) == 0 {
		return 1, err
	}
	n, _ := strconv.Atoi(rs[len(rs)-1][len(path)+1:])
	return n + 1, nil
}

func (f *File) open() error {
	fh, err := os.OpenFile(f.cfg.Path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return fmt.Errorf("events: %w", err)
	}
	f.f, f.size = fh, fi.Size()
	return nil
}

// Page implements crawl.Events.
func (f *File) Page(_ context.Context, e crawl.PageEvent) error {
	line, err := json.Marshal(Encode(e))
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	line = append(line, '\n')
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil {
		return errors.New("events: closed")
	}
	if f.size > 0 && f.size+int64(len(line)) > f.cfg.MaxSize {
		if err := f.rotate(); err != nil {
			return err
		}
	}
	n, err := f.f.Write(line)
	f.size += int64(n)
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	return nil
}

func (f *File) rotate() error {
	if err := f.f.Sync(); err != nil {
		return fmt.Errorf("events: %w", err)
	}
	if err := f.f.Close(); err != nil {
		return fmt.Errorf("events: %w", err)
	}
	f.f = nil
	if err := os.Rename(f.cfg.Path, f.cfg.Path+"."+strconv.Itoa(f.next)); err != nil {
		return fmt.Errorf("events: rotate: %w", err)
	}
	f.next++
	return f.open()
}

// Close syncs and closes the file.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil {
		return nil
	}
	err := errors.Join(f.f.Sync(), f.f.Close())
	f.f = nil
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	return nil
}

// Event is one line of the events file (docs/events.schema.json).
type Event struct {
	// ID numbers the page in the store's index (Index); never in a file.
	ID          uint64    `json:"id,omitempty"`
	Event       string    `json:"event"` // "page"
	URL         string    `json:"url"`
	Status      int       `json:"status"`
	Time        time.Time `json:"time"`
	Depth       int       `json:"depth"`
	ContentType string    `json:"content_type,omitempty"`
	Title       string    `json:"title,omitempty"`
	Digest      string    `json:"digest,omitempty"`
	SimHash     string    `json:"simhash,omitempty"`
	WARC        Location  `json:"warc"`
	// Annotations' values are JSON: strings, and the numbers, booleans,
	// nulls, arrays and objects processors gave.
	Annotations map[string]json.RawMessage `json:"annotations,omitempty"`
	Outlinks    []string                   `json:"outlinks,omitempty"`
}

// Location is where the page's response (or revisit) record is: the WARC
// file's base name and the byte range of the record's gzip member.
type Location struct {
	File     string `json:"file"`
	Offset   int64  `json:"offset"`
	Length   int64  `json:"length"`
	RecordID string `json:"record_id,omitempty"`
}

// Encode is the event of e.
func Encode(e crawl.PageEvent) Event {
	ev := Event{
		Event: "page", URL: e.URL, Status: e.Status, Time: e.Time, Depth: e.Depth,
		ContentType: e.ContentType, Title: e.Title, Digest: e.Capture.Digest,
		WARC:     Location{File: e.Capture.File, Offset: e.Capture.Offset, Length: e.Capture.Length, RecordID: e.Capture.RecordID},
		Outlinks: e.Outlinks,
	}
	if e.HasSimHash {
		ev.SimHash = fmt.Sprintf("%016x", e.SimHash)
	}
	if len(e.Annotations) > 0 {
		ev.Annotations = make(map[string]json.RawMessage, len(e.Annotations))
		for _, a := range e.Annotations {
			if a.JSON {
				ev.Annotations[a.Key] = json.RawMessage(a.Value)
			} else {
				ev.Annotations[a.Key], _ = json.Marshal(a.Value) // a string cannot fail
			}
		}
	}
	return ev
}

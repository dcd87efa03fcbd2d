package warc

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// defaultIndexRun is how many bytes of CDXJ lines an indexer holds in
// memory before it spills them, sorted, to a run: a 1 GiB WARC file of
// small pages has ~120 MB of index lines, which were all held until the
// file was complete.
const defaultIndexRun = 4 << 20

// indexer collects the CDXJ lines of the WARC file being written and,
// when the file is complete, writes them sorted beside it. Its memory is
// bounded: past runBytes of lines, it sorts them and spills them to a run,
// a temporary file unlinked as soon as it is created (a crash leaves
// nothing behind); completion merges the runs with what is in memory. Not
// safe for concurrent use (the Writer's lock guards it).
type indexer struct {
	dir      string
	runBytes int
	lines    []string
	bytes    int
	runs     []*os.File
	err      error // a run could not be written: the file gets no index
}

func newIndexer(dir string, runBytes int) *indexer {
	if runBytes <= 0 {
		runBytes = defaultIndexRun
	}
	return &indexer{dir: dir, runBytes: runBytes}
}

// add takes the CDXJ line of a record (with its newline).
func (x *indexer) add(line string) {
	if x.err != nil {
		return
	}
	x.lines = append(x.lines, line)
	if x.bytes += len(line); x.bytes >= x.runBytes {
		x.err = x.spill()
	}
}

// spill writes the lines held, sorted, to a new run.
func (x *indexer) spill() error {
	slices.Sort(x.lines)
	f, err := os.CreateTemp(x.dir, ".cdxj-*")
	if err != nil {
		return fmt.Errorf("warc: index run: %w", err)
	}
	x.runs = append(x.runs, f)
	if err := os.Remove(f.Name()); err != nil {
		return fmt.Errorf("warc: index run: %w", err)
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	for _, l := range x.lines {
		_, _ = bw.WriteString(l)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("warc: index run: %w", err)
	}
	clear(x.lines) // let the strings go
	x.lines, x.bytes = x.lines[:0], 0
	return nil
}

// write writes the index, sorted, to path, whole or not at all, and
// releases the runs.
func (x *indexer) write(path string) error {
	defer x.close()
	if x.err != nil {
		return x.err
	}
	slices.Sort(x.lines)
	if len(x.runs) == 0 {
		return writeIndex(path, func(w io.StringWriter) error {
			for _, l := range x.lines {
				if _, err := w.WriteString(l); err != nil {
					return err
				}
			}
			return nil
		})
	}
	m := &merge{}
	m.add(&sliceSource{lines: x.lines})
	for _, f := range x.runs {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("warc: index run: %w", err)
		}
		m.add(&runSource{r: bufio.NewReaderSize(f, 64<<10)})
	}
	return writeIndex(path, m.writeTo)
}

// close releases the runs.
func (x *indexer) close() {
	for _, f := range x.runs {
		_ = f.Close()
	}
	x.runs, x.lines = nil, nil
}

// A lineSource yields sorted lines; next returns "" at the end.
type lineSource interface {
	next() (string, error)
}

type sliceSource struct{ lines []string }

func (s *sliceSource) next() (string, error) {
	if len(s.lines) == 0 {
		return "", nil
	}
	l := s.lines[0]
	s.lines = s.lines[1:]
	return l, nil
}

type runSource struct{ r *bufio.Reader }

func (s *runSource) next() (string, error) {
	l, err := s.r.ReadString('\n')
	if errors.Is(err, io.EOF) && l == "" {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("warc: index run: %w", err)
	}
	return l, nil
}

// merge is a k-way merge of sorted sources (a heap of their heads).
type merge struct {
	heads []string
	srcs  []lineSource
	err   error
}

func (m *merge) add(s lineSource) {
	l, err := s.next()
	if err != nil {
		m.err = err
	}
	if l != "" {
		m.heads, m.srcs = append(m.heads, l), append(m.srcs, s)
	}
}

func (m *merge) Len() int           { return len(m.heads) }
func (m *merge) Less(i, j int) bool { return m.heads[i] < m.heads[j] }
func (m *merge) Swap(i, j int) {
	m.heads[i], m.heads[j] = m.heads[j], m.heads[i]
	m.srcs[i], m.srcs[j] = m.srcs[j], m.srcs[i]
}
func (m *merge) Push(any) { panic("merge: sources are added before the merge") }
func (m *merge) Pop() any {
	n := len(m.heads) - 1
	m.heads, m.srcs = m.heads[:n], m.srcs[:n]
	return nil
}

// writeTo writes the merged lines to w.
func (m *merge) writeTo(w io.StringWriter) error {
	if m.err != nil {
		return m.err
	}
	heap.Init(m)
	for len(m.heads) > 0 {
		if _, err := w.WriteString(m.heads[0]); err != nil {
			return err
		}
		l, err := m.srcs[0].next()
		if err != nil {
			return err
		}
		if l == "" {
			heap.Pop(m)
		} else {
			m.heads[0] = l
			heap.Fix(m, 0)
		}
	}
	return nil
}

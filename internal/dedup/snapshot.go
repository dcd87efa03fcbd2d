package dedup

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"runtime"
	"slices"
)

// Snapshot format, version 1 (all integers little-endian):
//
//	magic       8 bytes  "GWBLOOM\x00"
//	version     uint32   1
//	subs        uint32   number of sub-filters, 1 to maxSubs
//	first       uint64   capacity of the first sub-filter, in keys
//	bitsPerKey  uint64   IEEE 754 bits of the first sub-filter's bits per key
//	per sub-filter, oldest first, 32 bytes each:
//	  capacity  uint64   keys it is sized for
//	  count     uint64   keys added to it (at most capacity)
//	  blocks    uint64   number of 64-byte blocks
//	  k         uint32   bits set per key
//	  reserved  uint32   0
//	header CRC  uint32   CRC-32C (Castagnoli) of all the bytes above
//	data        blocks*64 bytes per sub-filter, in order: each block as
//	            8 uint64 words; bit i of a block is bit i%64 of word i/64
//	data CRC    uint32   CRC-32C of the data
//
// The header has its own checksum so that a corrupt size is caught before
// it is used to allocate. Len is the sum of the counts; the number of set
// bits is recounted on reading.
const (
	snapshotMagic   = "GWBLOOM\x00"
	snapshotVersion = 1
	fixedHeaderLen  = 32
	subHeaderLen    = 32
	// maxSubs bounds the chain; a filter reaches it only past 2^44 keys.
	maxSubs = 64
	// maxBlocks bounds one sub-filter (maxCapacity keys at maxBitsPerKey).
	maxBlocks = maxCapacity * maxBitsPerKey / blockBits
)

// Errors ReadBloom reports, wrapped with detail.
var (
	// ErrNotSnapshot means the bytes are not a Bloom filter snapshot, or
	// one of a version this code does not read.
	ErrNotSnapshot = errors.New("dedup: not a bloom filter snapshot")
	// ErrCorruptSnapshot means a snapshot that is torn (cut short) or
	// whose checksum does not match.
	ErrCorruptSnapshot = errors.New("dedup: corrupt bloom filter snapshot")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteTo writes a snapshot of the filter to w (format above) and returns
// the number of bytes written. ReadBloom reads it back.
func (b *Bloom) WriteTo(w io.Writer) (int64, error) {
	cw := &crcWriter{w: w, crc: crc32.New(castagnoli)}
	hdr := make([]byte, 0, fixedHeaderLen+subHeaderLen*len(b.subs)+4)
	hdr = append(hdr, snapshotMagic...)
	hdr = binary.LittleEndian.AppendUint32(hdr, snapshotVersion)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(b.subs)))
	hdr = binary.LittleEndian.AppendUint64(hdr, b.first)
	hdr = binary.LittleEndian.AppendUint64(hdr, math.Float64bits(b.bitsPerKey))
	for _, s := range b.subs {
		hdr = binary.LittleEndian.AppendUint64(hdr, s.capacity)
		hdr = binary.LittleEndian.AppendUint64(hdr, s.count)
		hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(s.blocks)))
		hdr = binary.LittleEndian.AppendUint32(hdr, uint32(s.k))
		hdr = binary.LittleEndian.AppendUint32(hdr, 0)
	}
	hdr = binary.LittleEndian.AppendUint32(hdr, crc32.Checksum(hdr, castagnoli))
	if err := cw.write(hdr, false); err != nil {
		return cw.n, err
	}
	buf := make([]byte, 0, 64<<10)
	for _, s := range b.subs {
		for i := range s.blocks {
			for _, word := range s.blocks[i] {
				buf = binary.LittleEndian.AppendUint64(buf, word)
			}
			if len(buf) == cap(buf) {
				if err := cw.write(buf, true); err != nil {
					return cw.n, err
				}
				buf = buf[:0]
			}
		}
	}
	if err := cw.write(buf, true); err != nil {
		return cw.n, err
	}
	runtime.KeepAlive(b) // the blocks may be b's to free (mem.go)
	err := cw.write(binary.LittleEndian.AppendUint32(nil, cw.crc.Sum32()), false)
	return cw.n, err
}

type crcWriter struct {
	w   io.Writer
	crc hash.Hash32
	n   int64
}

func (c *crcWriter) write(p []byte, data bool) error {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil {
		return fmt.Errorf("dedup: write bloom filter snapshot: %w", err)
	}
	if data {
		c.crc.Write(p)
	}
	return nil
}

// ReadBloom reads a snapshot written by WriteTo. It reads exactly the
// snapshot's bytes from r. A file that is not a snapshot gives an error
// wrapping ErrNotSnapshot; a torn or damaged one, ErrCorruptSnapshot.
func ReadBloom(r io.Reader) (*Bloom, error) {
	fixed := make([]byte, fixedHeaderLen)
	n, err := io.ReadFull(r, fixed)
	if m := fixed[:min(n, len(snapshotMagic))]; string(m) != snapshotMagic[:len(m)] {
		return nil, fmt.Errorf("%w: magic %q, want %q", ErrNotSnapshot, m, snapshotMagic)
	}
	if err != nil {
		return nil, readErr(err, "header")
	}
	if v := binary.LittleEndian.Uint32(fixed[8:]); v != snapshotVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrNotSnapshot, v, snapshotVersion)
	}
	nsubs := binary.LittleEndian.Uint32(fixed[12:])
	if nsubs == 0 || nsubs > maxSubs {
		return nil, fmt.Errorf("%w: %d sub-filters, want 1 to %d", ErrCorruptSnapshot, nsubs, maxSubs)
	}
	hdr := make([]byte, fixedHeaderLen+subHeaderLen*int(nsubs)+4)
	copy(hdr, fixed)
	if err := readFull(r, hdr[fixedHeaderLen:], "header"); err != nil {
		return nil, err
	}
	sum := binary.LittleEndian.Uint32(hdr[len(hdr)-4:])
	if got := crc32.Checksum(hdr[:len(hdr)-4], castagnoli); got != sum {
		return nil, fmt.Errorf("%w: header checksum %08x, want %08x", ErrCorruptSnapshot, got, sum)
	}
	b, nblocks, err := parseHeader(hdr[:len(hdr)-4], int(nsubs))
	if err != nil {
		return nil, err
	}

	// Allocate every sub-filter whole if the stream is known to hold it
	// (a file, usually); otherwise grow as data arrives, so that a damaged
	// header cannot make ReadBloom allocate much more than the stream holds.
	var total uint64
	for _, n := range nblocks {
		total += n
	}
	whole := false
	if avail, ok := remaining(r); ok && avail >= 0 && uint64(avail)/64 >= total {
		whole = true
	}
	crc := crc32.New(castagnoli)
	buf := make([]byte, 64<<10)
	for i := range b.subs {
		s := &b.subs[i]
		alloc := func(n uint64) []block { return make([]block, 0, n) }
		if whole {
			alloc = func(n uint64) []block { return b.newBlocks(n)[:0] }
		}
		if s.blocks, err = readBlocks(r, nblocks[i], whole, alloc, buf, crc); err != nil {
			return nil, err
		}
		for _, blk := range s.blocks {
			for _, w := range blk {
				s.set += uint64(bits.OnesCount64(w))
			}
		}
	}
	runtime.KeepAlive(b) // the blocks may be b's to free (mem.go)
	tail := buf[:4]
	if err := readFull(r, tail, "data checksum"); err != nil {
		return nil, err
	}
	if want, got := binary.LittleEndian.Uint32(tail), crc.Sum32(); got != want {
		return nil, fmt.Errorf("%w: data checksum %08x, want %08x", ErrCorruptSnapshot, got, want)
	}
	return b, nil
}

// parseHeader checks the header fields and returns a Bloom whose
// sub-filters have no blocks yet, and how many blocks each has.
func parseHeader(hdr []byte, nsubs int) (*Bloom, []uint64, error) {
	le := binary.LittleEndian
	b := &Bloom{
		first:      le.Uint64(hdr[16:]),
		bitsPerKey: math.Float64frombits(le.Uint64(hdr[24:])),
		subs:       make([]sub, nsubs),
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrCorruptSnapshot}, args...)...)
	}
	if b.first == 0 || b.first > maxCapacity {
		return nil, nil, bad("first capacity %d out of range", b.first)
	}
	if !(b.bitsPerKey >= minBitsPerKey && b.bitsPerKey <= maxBitsPerKey) {
		return nil, nil, bad("%v bits per key out of range", b.bitsPerKey)
	}
	_, _, b.fp0 = plan(b.first, b.bitsPerKey)
	sizes := make([]uint64, nsubs)
	var total uint64
	for i := range b.subs {
		h := hdr[fixedHeaderLen+subHeaderLen*i:]
		capacity, count, nblocks, k := le.Uint64(h), le.Uint64(h[8:]), le.Uint64(h[16:]), le.Uint32(h[24:])
		switch {
		case capacity == 0 || capacity > maxCapacity:
			return nil, nil, bad("sub-filter %d: capacity %d out of range", i, capacity)
		case count > capacity:
			return nil, nil, bad("sub-filter %d: %d keys over its capacity %d", i, count, capacity)
		case nblocks == 0 || nblocks > maxBlocks:
			return nil, nil, bad("sub-filter %d: %d blocks out of range", i, nblocks)
		case k == 0 || k > maxK:
			return nil, nil, bad("sub-filter %d: k = %d, want 1 to %d", i, k, maxK)
		case le.Uint32(h[28:]) != 0:
			return nil, nil, bad("sub-filter %d: reserved field is not zero", i)
		}
		if total += nblocks; total > maxBlocks {
			return nil, nil, bad("%d blocks in all, too many", total)
		}
		b.subs[i] = sub{k: int(k), capacity: capacity, count: count}
		sizes[i] = nblocks
		b.n += count
	}
	return b, sizes, nil
}

// remaining returns how many bytes are left in r, if r can tell.
func remaining(r io.Reader) (int64, bool) {
	switch r := r.(type) {
	case interface{ Len() int }: // *bytes.Reader, *bytes.Buffer, *strings.Reader
		return int64(r.Len()), true
	case interface {
		io.Seeker
		Stat() (fs.FileInfo, error)
	}: // *os.File
		info, err := r.Stat()
		if err != nil || !info.Mode().IsRegular() {
			return 0, false
		}
		pos, err := r.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, false
		}
		return info.Size() - pos, true
	}
	return 0, false
}

// readBlocks reads n blocks into a slice allocated whole by alloc (which
// returns an empty slice of the capacity asked), or else grown as the data
// arrives (on the Go heap: a stream of unknown length is rare, and a
// filter read from one stays there).
func readBlocks(r io.Reader, n uint64, whole bool, alloc func(uint64) []block, buf []byte, crc hash.Hash32) ([]block, error) {
	const initial = 16 << 10 // blocks: 1 MiB
	size := min(n, initial)
	if whole {
		size = n
	}
	blocks := alloc(size)
	for uint64(len(blocks)) < n {
		if len(blocks) == cap(blocks) {
			blocks = slices.Grow(blocks, int(min(uint64(len(blocks)), n-uint64(len(blocks)))))
		}
		want := min(uint64(len(buf)/64), n-uint64(len(blocks)))
		p := buf[:want*64]
		if err := readFull(r, p, "data"); err != nil {
			return nil, err
		}
		crc.Write(p)
		for len(p) > 0 {
			var blk block
			for j := range blk {
				blk[j] = binary.LittleEndian.Uint64(p[8*j:])
			}
			blocks = append(blocks, blk)
			p = p[64:]
		}
	}
	return blocks, nil
}

func readFull(r io.Reader, p []byte, part string) error {
	_, err := io.ReadFull(r, p)
	return readErr(err, part)
}

func readErr(err error, part string) error {
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return fmt.Errorf("%w: truncated in the %s", ErrCorruptSnapshot, part)
	case err != nil:
		return fmt.Errorf("dedup: read bloom filter snapshot: %w", err)
	}
	return nil
}

package simhash

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Encoding of an Index, version 1 (all integers little-endian):
//
//	magic      8 bytes  "GWSIMH\x00\x01" (the last byte is the version)
//	k          uint32   0 to MaxK
//	count      uint32   number of fingerprints
//	header CRC uint32   CRC-32C (Castagnoli) of the 16 bytes above
//	entries    count × 16 bytes, in insertion order:
//	  fp       uint64
//	  id       uint64
//	data CRC   uint32   CRC-32C of the entries
//
// Only the entries are written; the tables are rebuilt on reading, in one
// pass that sizes every bucket exactly. The header has its own checksum so
// that a corrupt count is caught before it is trusted, and the entries are
// read in chunks, never allocated from the count alone.
const (
	encMagic     = "GWSIMH\x00\x01"
	encHeaderLen = 16
	entryLen     = 16
	chunkEntries = 4096
)

// Errors ReadFrom and UnmarshalBinary report, wrapped with detail.
var (
	// ErrNotIndex means the bytes are not an encoded Index, or one of a
	// version this code does not read.
	ErrNotIndex = errors.New("simhash: not an encoded index")
	// ErrCorruptIndex means an encoding that is cut short or whose
	// checksum does not match.
	ErrCorruptIndex = errors.New("simhash: corrupt encoded index")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteTo writes the index to w (format above) and returns the number of
// bytes written: the fingerprints added before it was called. It does
// not hold up Add and Near while it writes.
func (x *Index) WriteTo(w io.Writer) (int64, error) {
	// Entries are append-only: the first n never change, whatever Add
	// does to the slice afterwards.
	x.mu.RLock()
	k, entries := x.k, x.entries
	x.mu.RUnlock()
	hdr := make([]byte, 0, encHeaderLen+4)
	hdr = append(hdr, encMagic...)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(k))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(entries)))
	hdr = binary.LittleEndian.AppendUint32(hdr, crc32.Checksum(hdr, castagnoli))
	n, err := w.Write(hdr)
	written := int64(n)
	if err != nil {
		return written, fmt.Errorf("simhash: write index: %w", err)
	}
	buf := make([]byte, 0, chunkEntries*entryLen)
	var crc uint32
	for i := 0; i < len(entries); i += chunkEntries {
		buf = buf[:0]
		for _, e := range entries[i:min(i+chunkEntries, len(entries))] {
			buf = binary.LittleEndian.AppendUint64(buf, e.fp)
			buf = binary.LittleEndian.AppendUint64(buf, e.id)
		}
		crc = crc32.Update(crc, castagnoli, buf)
		n, err = w.Write(buf)
		written += int64(n)
		if err != nil {
			return written, fmt.Errorf("simhash: write index: %w", err)
		}
	}
	n, err = w.Write(binary.LittleEndian.AppendUint32(nil, crc))
	written += int64(n)
	if err != nil {
		return written, fmt.Errorf("simhash: write index: %w", err)
	}
	return written, nil
}

// ReadFrom replaces the index's contents, k included, with an index read
// from r as written by WriteTo, and returns the number of bytes read. It
// reads exactly the encoding, so it may be followed by other data in r.
// On error the index is unchanged.
func (x *Index) ReadFrom(r io.Reader) (int64, error) {
	k, entries, read, err := decode(r)
	if err != nil {
		return read, err
	}
	x.replace(k, entries)
	return read, nil
}

func (x *Index) replace(k int, entries []entry) {
	tables := buildTables(k, entries)
	x.mu.Lock()
	x.k, x.entries, x.tables = k, entries, tables
	x.mu.Unlock()
}

// decode reads one encoded index from r.
func decode(r io.Reader) (k int, entries []entry, read int64, err error) {
	hdr := make([]byte, encHeaderLen+4)
	n, err := io.ReadFull(r, hdr)
	read += int64(n)
	if err != nil {
		if n >= len(encMagic) && string(hdr[:len(encMagic)]) == encMagic {
			return 0, nil, read, fmt.Errorf("%w: header cut short: %w", ErrCorruptIndex, err)
		}
		return 0, nil, read, fmt.Errorf("%w: %w", ErrNotIndex, err)
	}
	if string(hdr[:len(encMagic)]) != encMagic {
		return 0, nil, read, fmt.Errorf("%w: magic %q", ErrNotIndex, hdr[:len(encMagic)])
	}
	if got, want := binary.LittleEndian.Uint32(hdr[encHeaderLen:]), crc32.Checksum(hdr[:encHeaderLen], castagnoli); got != want {
		return 0, nil, read, fmt.Errorf("%w: header checksum %08x, want %08x", ErrCorruptIndex, got, want)
	}
	k = int(binary.LittleEndian.Uint32(hdr[8:]))
	count := int(binary.LittleEndian.Uint32(hdr[12:]))
	if k > MaxK {
		return 0, nil, read, fmt.Errorf("%w: k = %d", ErrNotIndex, k)
	}
	entries = make([]entry, 0, min(count, chunkEntries))
	buf := make([]byte, min(count, chunkEntries)*entryLen)
	var crc uint32
	for len(entries) < count {
		chunk := buf[:min(count-len(entries), chunkEntries)*entryLen]
		n, err = io.ReadFull(r, chunk)
		read += int64(n)
		if err != nil {
			return 0, nil, read, fmt.Errorf("%w: %d of %d entries: %w", ErrCorruptIndex, len(entries)+n/entryLen, count, err)
		}
		crc = crc32.Update(crc, castagnoli, chunk)
		for b := chunk; len(b) > 0; b = b[entryLen:] {
			entries = append(entries, entry{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])})
		}
	}
	n, err = io.ReadFull(r, hdr[:4])
	read += int64(n)
	if err != nil {
		return 0, nil, read, fmt.Errorf("%w: data checksum: %w", ErrCorruptIndex, err)
	}
	if got := binary.LittleEndian.Uint32(hdr); got != crc {
		return 0, nil, read, fmt.Errorf("%w: data checksum %08x, want %08x", ErrCorruptIndex, got, crc)
	}
	return k, entries, read, nil
}

// buildTables indexes entries in order, with buckets of exactly the right
// size: the first pass counts, the second fills one array per table that
// the buckets share. An index small enough to scan gets none.
func buildTables(k int, entries []entry) []*table {
	if len(entries) <= scanEntries {
		return nil
	}
	tables := newTables(k)
	var counts [1 << blockBits]int
	for t, tab := range tables {
		clear(counts[:])
		for _, e := range entries {
			counts[key(e.fp, t)]++
		}
		all := make([]uint64, len(entries))
		for b, c := range counts {
			tab[b], all = all[:0:c], all[c:]
		}
		for pos, e := range entries {
			b := &tab[key(e.fp, t)]
			*b = append(*b, uint64(tag(e.fp, t))<<32|uint64(pos))
		}
	}
	return tables
}

// MarshalBinary returns the index encoded as WriteTo writes it.
func (x *Index) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	b.Grow(encHeaderLen + 4 + x.Len()*entryLen + 4)
	if _, err := x.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalBinary replaces the index's contents with the encoded index in
// data, which must hold nothing else.
func (x *Index) UnmarshalBinary(data []byte) error {
	r := bytes.NewReader(data)
	k, entries, _, err := decode(r)
	if err != nil {
		return err
	}
	if r.Len() > 0 {
		return fmt.Errorf("%w: %d bytes after the index", ErrCorruptIndex, r.Len())
	}
	x.replace(k, entries)
	return nil
}

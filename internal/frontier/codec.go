package frontier

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
)

// decoder reads the fields of a value in order, remembering the first error.
type decoder struct {
	b   []byte
	err error
}

func newDecoder(b []byte) *decoder {
	d := &decoder{b: b}
	if len(b) == 0 || b[0] != encodingVersion {
		d.err = errCorrupt
		return d
	}
	d.b = b[1:]
	return d
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if uint64(len(d.b)) < n {
		d.err = errCorrupt
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string { return string(d.bytes()) }

func (d *decoder) float64() float64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 8 {
		d.err = errCorrupt
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	if !finite(v) {
		// Nothing stored is infinite or not a number; one read would
		// poison every sum it joins (OPIC cash, host capacity, spending).
		d.err = errCorrupt
		return 0
	}
	return v
}

func (d *decoder) time() time.Time {
	ns := d.varint()
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return binary.AppendVarint(b, 0)
	}
	return binary.AppendVarint(b, t.UnixNano())
}

// appendCapture writes a tag byte, then the capture: 0 none; 1 file,
// offset, length; 2 the same plus record ID and date.
func appendCapture(b []byte, c *crawl.Capture) []byte {
	if c == nil {
		return append(b, 0)
	}
	tag := byte(1)
	if c.RecordID != "" || !c.Date.IsZero() {
		tag = 2
	}
	b = append(b, tag)
	b = appendString(b, c.File)
	b = binary.AppendUvarint(b, uint64(c.Offset))
	b = binary.AppendUvarint(b, uint64(c.Length))
	if tag == 2 {
		b = appendString(b, c.RecordID)
		b = appendTime(b, c.Date)
	}
	return b
}

func (d *decoder) capture() *crawl.Capture {
	if d.err != nil || len(d.b) == 0 {
		d.err = errCorrupt
		return nil
	}
	has := d.b[0]
	d.b = d.b[1:]
	if has == 0 {
		return nil
	}
	c := &crawl.Capture{File: d.string()}
	c.Offset = int64(d.uvarint())
	c.Length = int64(d.uvarint())
	if has == 2 {
		c.RecordID = d.string()
		c.Date = d.time()
	}
	return c
}

// encodeTask is a queue entry's value. The URL is stored once more as the
// key only when the canonical key differs from it.
func encodeTask(t crawl.Task) []byte {
	b := make([]byte, 0, 32+len(t.URL)+len(t.Via))
	b = append(b, encodingVersion)
	b = appendString(b, t.URL)
	if t.Key == t.URL {
		b = appendString(b, "")
	} else {
		b = appendString(b, t.Key)
	}
	b = appendString(b, t.Host)
	b = binary.AppendUvarint(b, uint64(t.Depth))
	b = binary.AppendUvarint(b, uint64(t.Hops))
	b = appendString(b, t.Via)
	b = binary.AppendUvarint(b, uint64(t.Attempt))
	b = appendCapture(b, t.Replay)
	// Optional trailing fields: absent in entries written before they
	// existed, and when they and those after them are zero.
	if t.Sitemap == 0 && t.Hints == (crawl.Hints{}) && t.Validators.IsZero() && t.Prior == nil && t.Embed == 0 {
		return b
	}
	b = binary.AppendUvarint(b, uint64(t.Sitemap))
	b = appendTime(b, t.Hints.LastMod)
	b = appendString(b, t.Hints.ChangeFreq)
	prio := uint64(0) // 0: none; else 1 + priority in thousandths
	if t.Hints.HasPriority {
		prio = 1 + uint64(math.Round(min(max(t.Hints.Priority, 0), 1)*1000))
	}
	b = binary.AppendUvarint(b, prio)
	if t.Validators.IsZero() && t.Prior == nil && t.Embed == 0 {
		return b
	}
	b = appendString(b, t.Validators.ETag)
	b = appendString(b, t.Validators.LastModified)
	b = appendCapture(b, t.Prior)
	if t.Embed == 0 {
		return b
	}
	return binary.AppendUvarint(b, uint64(t.Embed))
}

func decodeTask(v []byte) (crawl.Task, error) {
	d := newDecoder(v)
	var t crawl.Task
	t.URL = d.string()
	t.Key = d.string()
	if t.Key == "" {
		t.Key = t.URL
	}
	t.Host = d.string()
	t.Depth = int(d.uvarint())
	t.Hops = int(d.uvarint())
	t.Via = d.string()
	t.Attempt = int(d.uvarint())
	t.Replay = d.capture()
	if d.err == nil && len(d.b) > 0 {
		t.Sitemap = int(d.uvarint())
		t.Hints.LastMod = d.time()
		t.Hints.ChangeFreq = d.string()
		switch prio := d.uvarint(); {
		case prio > 1001:
			d.err = errCorrupt // encodeTask clamps a priority to [0, 1]
		case prio > 0:
			t.Hints.Priority, t.Hints.HasPriority = float64(prio-1)/1000, true
		}
	}
	if d.err == nil && len(d.b) > 0 {
		t.Validators.ETag = d.string()
		t.Validators.LastModified = d.string()
		if d.err == nil && len(d.b) > 0 {
			t.Prior = d.capture()
		}
		if d.err == nil && len(d.b) > 0 {
			t.Embed = int(d.uvarint())
		}
	}
	if d.err != nil {
		return crawl.Task{}, fmt.Errorf("%w: queue entry", d.err)
	}
	return t, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

package frontier

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

// EncodeOutcome is the payload of an outcome event in a shard's log
// (cluster mode): the task a lease held and what became of it, all that
// ApplyOutcome needs to apply it on any node. The byte layout is in
// docs/formats.md ("Outcome events").
func EncodeOutcome(t crawl.Task, out crawl.Outcome) []byte {
	task := encodeTask(t)
	b := make([]byte, 0, len(task)+96)
	b = append(b, encodingVersion)
	b = binary.AppendUvarint(b, uint64(len(task)))
	b = append(b, task...)
	flags := byte(0)
	if out.Requested {
		flags |= 1
	}
	if out.HasRetryAfter {
		flags |= 2
	}
	if out.Robots != nil {
		flags |= 4
	}
	if out.Aliases != nil {
		flags |= 8
	}
	if out.Traps != nil {
		flags |= 16
	}
	b = append(b, byte(out.Disposition), flags, byte(out.Class), byte(out.Health))
	b = binary.AppendUvarint(b, uint64(max(out.Status, 0)))
	b = appendString(b, out.Reason)
	b = appendTime(b, out.Start)
	b = appendTime(b, out.FirstByte)
	b = appendTime(b, out.End)
	b = binary.AppendVarint(b, int64(out.RetryAfter))
	b = appendString(b, out.Validators.ETag)
	b = appendString(b, out.Validators.LastModified)
	b = binary.LittleEndian.AppendUint64(b, out.Content)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(out.Spent))
	b = appendCapture(b, out.Capture)
	if out.Robots != nil {
		r := encodeRobots(*out.Robots)
		b = binary.AppendUvarint(b, uint64(len(r)))
		b = append(b, r...)
	}
	if out.Aliases != nil {
		b = appendAliases(b, *out.Aliases)
	}
	if out.Traps != nil {
		b = appendTraps(b, *out.Traps)
	}
	return b
}

// DecodeOutcome reads what EncodeOutcome wrote. The robots.txt rules of
// an outcome that carries robots.txt are compiled when it is applied.
func DecodeOutcome(v []byte) (crawl.Task, crawl.Outcome, error) {
	d := newDecoder(v)
	var out crawl.Outcome
	t, err := decodeTask(d.bytes())
	if d.err != nil {
		return crawl.Task{}, out, fmt.Errorf("%w: outcome event", d.err)
	}
	if err != nil {
		return crawl.Task{}, out, err
	}
	if len(d.b) < 4 {
		return crawl.Task{}, out, fmt.Errorf("%w: outcome event", errCorrupt)
	}
	flags := d.b[1]
	out.Disposition = crawl.Disposition(d.b[0])
	out.Class = crawl.Class(d.b[2])
	out.Health = politeness.Failure(d.b[3])
	d.b = d.b[4:]
	out.Requested = flags&1 != 0
	out.HasRetryAfter = flags&2 != 0
	if st := d.uvarint(); st <= math.MaxInt32 {
		out.Status = int(st)
	} else if d.err == nil {
		d.err = errCorrupt // no status is that large; as an int it would turn negative
	}
	out.Reason = d.string()
	out.Start = d.time()
	out.FirstByte = d.time()
	out.End = d.time()
	out.RetryAfter = time.Duration(d.varint())
	out.Validators.ETag = d.string()
	out.Validators.LastModified = d.string()
	out.Content = d.fixed64()
	out.Spent = d.float64()
	out.Capture = d.capture()
	if flags&4 != 0 {
		r, err := decodeRobots(d.bytes())
		if d.err == nil && err != nil {
			return crawl.Task{}, crawl.Outcome{}, err
		}
		out.Robots = &r
	}
	if flags&8 != 0 {
		a := d.aliases()
		out.Aliases = &a
	}
	if flags&16 != 0 {
		tr := d.traps()
		out.Traps = &tr
	}
	if d.err == nil && len(d.b) > 0 {
		d.err = errCorrupt // trailing bytes: not what EncodeOutcome wrote
	}
	if d.err != nil || out.Disposition > crawl.Requeue {
		return crawl.Task{}, crawl.Outcome{}, fmt.Errorf("%w: outcome event", errCorrupt)
	}
	return t, out, nil
}

// fixed64 reads 8 little-endian bytes.
func (d *decoder) fixed64() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 8 {
		d.err = errCorrupt
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

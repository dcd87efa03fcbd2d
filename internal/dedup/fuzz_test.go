package dedup

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReadBloom feeds arbitrary bytes to ReadBloom: it must never panic,
// reject damage with one of its two errors, and whatever it accepts must
// answer queries, grow, and write back the bytes it was read from.
func FuzzReadBloom(f *testing.F) {
	valid := snapshot(f, grown(f))
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add(snapshot(f, NewBloom(1, 2)))
	f.Add([]byte(snapshotMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		b, err := ReadBloom(r)
		if err != nil {
			if !errors.Is(err, ErrCorruptSnapshot) && !errors.Is(err, ErrNotSnapshot) {
				t.Fatalf("ReadBloom = %v, want ErrCorruptSnapshot or ErrNotSnapshot", err)
			}
			return
		}
		read := data[:len(data)-r.Len()]
		if again := snapshot(t, b); !bytes.Equal(again, read) {
			t.Fatalf("snapshot of the loaded filter differs from the %d bytes read", len(read))
		}
		_ = b.EstimatedFPRate()
		for i := range uint64(100) {
			b.Add(key(i))
		}
		for i := range uint64(100) {
			if !b.MayContain(key(i)) {
				t.Fatalf("key %d lost", i)
			}
		}
	})
}

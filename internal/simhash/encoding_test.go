package simhash

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

func filled(k, n int, seed uint64) (*Index, []uint64) {
	r := rand.New(rand.NewPCG(seed, 1))
	x := NewIndex(k)
	fps := make([]uint64, n)
	for i := range fps {
		if i > 0 && i%3 == 0 {
			fps[i] = flip(r, fps[r.IntN(i)], r.IntN(4))
		} else {
			fps[i] = r.Uint64()
		}
		x.Add(fps[i], uint64(i)+1000)
	}
	return x, fps
}

func marshal(t testing.TB, x *Index) []byte {
	t.Helper()
	b, err := x.MarshalBinary()
	if err != nil {
		t.Fatalf("MarshalBinary: %v", err)
	}
	return b
}

func TestEncodingRoundTrip(t *testing.T) {
	for _, tc := range []struct{ k, n int }{{3, 0}, {3, 1}, {0, 100}, {2, 5000}, {3, 20000}} {
		x, fps := filled(tc.k, tc.n, uint64(tc.n))
		data := marshal(t, x)
		if want := encHeaderLen + 4 + tc.n*entryLen + 4; len(data) != want {
			t.Errorf("k=%d n=%d: %d bytes, want %d", tc.k, tc.n, len(data), want)
		}
		y := NewIndex(1) // k comes from the data
		if err := y.UnmarshalBinary(data); err != nil {
			t.Fatalf("k=%d n=%d: UnmarshalBinary: %v", tc.k, tc.n, err)
		}
		if y.Len() != tc.n || y.K() != tc.k {
			t.Fatalf("k=%d n=%d: read back Len %d, K %d", tc.k, tc.n, y.Len(), y.K())
		}
		if again := marshal(t, y); !bytes.Equal(again, data) {
			t.Errorf("k=%d n=%d: re-encoding differs", tc.k, tc.n)
		}
		r := rand.New(rand.NewPCG(9, 9))
		for i := range 2000 {
			q := r.Uint64()
			if len(fps) > 0 {
				q = flip(r, fps[r.IntN(len(fps))], i%5)
			}
			id1, d1, ok1 := x.Near(q)
			id2, d2, ok2 := y.Near(q)
			if id1 != id2 || d1 != d2 || ok1 != ok2 {
				t.Fatalf("k=%d n=%d: Near(%#x) = %d, %d, %v before encoding, %d, %d, %v after", tc.k, tc.n, q, id1, d1, ok1, id2, d2, ok2)
			}
		}
		// The restored index goes on growing like the original.
		x.Add(0xfeed, 1)
		y.Add(0xfeed, 1)
		if id, _, ok := y.Near(0xfeed); !ok || id != 1 && tc.n == 0 {
			t.Errorf("k=%d n=%d: Add after UnmarshalBinary not found", tc.k, tc.n)
		}
		if !bytes.Equal(marshal(t, x), marshal(t, y)) {
			t.Errorf("k=%d n=%d: encodings differ after one more Add", tc.k, tc.n)
		}
	}
}

// TestReadFromStream checks that ReadFrom reads exactly one index, so that
// one can be followed by other data.
func TestReadFromStream(t *testing.T) {
	a, _ := filled(3, 300, 1)
	b, _ := filled(1, 200, 2)
	var buf bytes.Buffer
	na, err := a.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := b.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if int(na+nb) != buf.Len() {
		t.Fatalf("WriteTo reported %d+%d bytes, wrote %d", na, nb, buf.Len())
	}
	var x, y Index
	if n, err := x.ReadFrom(&buf); err != nil || n != na {
		t.Fatalf("first ReadFrom = %d, %v; want %d, nil", n, err, na)
	}
	if n, err := y.ReadFrom(&buf); err != nil || n != nb {
		t.Fatalf("second ReadFrom = %d, %v; want %d, nil", n, err, nb)
	}
	if x.Len() != 300 || x.K() != 3 || y.Len() != 200 || y.K() != 1 {
		t.Errorf("read back Len %d K %d and Len %d K %d; want 300 3 and 200 1", x.Len(), x.K(), y.Len(), y.K())
	}
}

// TestDecodeDamage checks that every truncation and every flipped bit is
// rejected, with the right error, leaving the index as it was.
func TestDecodeDamage(t *testing.T) {
	x, _ := filled(3, 50, 3)
	data := marshal(t, x)
	y, _ := filled(2, 7, 4)
	before := marshal(t, y)
	check := func(what string, d []byte) {
		err := y.UnmarshalBinary(d)
		if !errors.Is(err, ErrCorruptIndex) && !errors.Is(err, ErrNotIndex) {
			t.Fatalf("%s: UnmarshalBinary = %v, want ErrCorruptIndex or ErrNotIndex", what, err)
		}
		if !bytes.Equal(marshal(t, y), before) {
			t.Fatalf("%s: failed UnmarshalBinary changed the index", what)
		}
	}
	for n := range len(data) {
		check("truncated", data[:n])
	}
	for i := range len(data) * 8 {
		d := bytes.Clone(data)
		d[i/8] ^= 1 << (i % 8)
		check("bit flip", d)
	}
	check("trailing byte", append(bytes.Clone(data), 0))
	if err := new(Index).UnmarshalBinary([]byte("GWBLOOM\x00 not an index at all")); !errors.Is(err, ErrNotIndex) {
		t.Errorf("foreign data: %v, want ErrNotIndex", err)
	}
}

func FuzzIndexUnmarshal(f *testing.F) {
	x, _ := filled(3, 20, 5)
	f.Add(marshal(f, x))
	f.Add(marshal(f, NewIndex(0)))
	f.Add([]byte(encMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var y Index
		if err := y.UnmarshalBinary(data); err != nil {
			if !errors.Is(err, ErrCorruptIndex) && !errors.Is(err, ErrNotIndex) {
				t.Fatalf("UnmarshalBinary = %v, want ErrCorruptIndex or ErrNotIndex", err)
			}
			return
		}
		if again := marshal(t, &y); !bytes.Equal(again, data) {
			t.Fatalf("encoding of the decoded index differs from its %d bytes", len(data))
		}
		y.Add(1, 2)
		if _, _, ok := y.Near(1); !ok {
			t.Fatal("Near after Add found nothing")
		}
	})
}

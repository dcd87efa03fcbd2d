package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func nodes(n int) []Member {
	ms := make([]Member, n)
	for i := range ms {
		ms[i] = Member{ID: fmt.Sprintf("node-%d", i)}
	}
	return ms
}

// checkBalanced fails unless every member owns ⌊p/n⌋ or ⌈p/n⌉ shards and
// every shard has a live owner.
func checkBalanced(t *testing.T, a Assignment, ms []Member, p int) {
	t.Helper()
	if len(a.Owners) != p {
		t.Fatalf("len(Owners) = %d, want %d", len(a.Owners), p)
	}
	counts := a.Counts()
	lo, hi := p/len(ms), (p+len(ms)-1)/len(ms)
	total := 0
	for _, m := range ms {
		c := counts[m.ID]
		if c < lo || c > hi {
			t.Errorf("%s owns %d shards, want %d..%d", m.ID, c, lo, hi)
		}
		total += c
	}
	if total != p {
		t.Errorf("members own %d shards, want all %d (counts %v)", total, p, counts)
	}
}

func TestAssignBalancedAndStable(t *testing.T) {
	for _, tc := range []struct{ p, n int }{{1024, 1}, {1024, 3}, {1024, 7}, {16, 5}, {3, 5}, {1024, 1024}} {
		t.Run(fmt.Sprintf("p=%d,n=%d", tc.p, tc.n), func(t *testing.T) {
			ms := nodes(tc.n)
			a := Assign(Assignment{}, ms, tc.p)
			checkBalanced(t, a, ms, tc.p)
			if b := Assign(a, ms, tc.p); !b.Equal(a) {
				t.Errorf("Assign of a settled assignment moved %d shards, want 0", a.Moved(b))
			}
		})
	}
}

func TestAssignAddNodeMovesItsShare(t *testing.T) {
	const p = 1024
	for n := 1; n <= 8; n++ {
		ms := nodes(n)
		a := Assign(Assignment{}, ms, p)
		ms2 := append(slices.Clone(ms), Member{ID: "newcomer"})
		b := Assign(a, ms2, p)
		checkBalanced(t, b, ms2, p)
		// Every shard that moves goes to the newcomer, which takes its
		// quota and nothing more: ⌊p/(n+1)⌋ or ⌈p/(n+1)⌉.
		moved := a.Moved(b)
		got := len(b.Shards("newcomer"))
		if moved != got {
			t.Errorf("n=%d: %d shards moved but the newcomer got %d", n, moved, got)
		}
		if lo, hi := p/(n+1), (p+n)/(n+1); moved < lo || moved > hi {
			t.Errorf("n=%d: adding a node moved %d shards, want %d..%d", n, moved, lo, hi)
		}
	}
}

func TestAssignRemoveNodeMovesOnlyItsShards(t *testing.T) {
	const p = 1024
	for n := 2; n <= 8; n++ {
		ms := nodes(n)
		a := Assign(Assignment{}, ms, p)
		gone := ms[n/2].ID
		rest := slices.DeleteFunc(slices.Clone(ms), func(m Member) bool { return m.ID == gone })
		b := Assign(a, rest, p)
		checkBalanced(t, b, rest, p)
		for s, o := range a.Owners {
			if o != gone && b.Owners[s] != o {
				t.Fatalf("n=%d: shard %d moved from %s to %s, but only %s left", n, s, o, b.Owners[s], gone)
			}
		}
		if got, want := a.Moved(b), len(a.Shards(gone)); got != want {
			t.Errorf("n=%d: removing %s moved %d shards, want its %d", n, gone, got, want)
		}
	}
}

func TestAssignIgnoresMemberOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ms := nodes(5)
	ms[2].Capacity = 3
	prev := Assign(Assignment{}, nodes(3), 1024)
	want := Assign(prev, ms, 1024)
	for range 20 {
		shuffled := slices.Clone(ms)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		shuffled = append(shuffled, shuffled[0]) // a duplicate counts once
		if got := Assign(prev, shuffled, 1024); !got.Equal(want) {
			t.Fatalf("Assign(%v) differs from Assign(%v) in %d shards", shuffled, ms, want.Moved(got))
		}
	}
}

func TestAssignWeighted(t *testing.T) {
	ms := []Member{{ID: "a", Capacity: 1}, {ID: "b", Capacity: 2}, {ID: "c", Capacity: 5}}
	a := Assign(Assignment{}, ms, 1024)
	c := a.Counts()
	// shares: 128, 256, 640 exactly.
	if c["a"] != 128 || c["b"] != 256 || c["c"] != 640 {
		t.Errorf("counts = %v, want a:128 b:256 c:640", c)
	}
	ms = []Member{{ID: "a", Capacity: 1}, {ID: "b", Capacity: 2}}
	c = Assign(a, ms, 1024).Counts()
	// 341.33 and 682.67: the larger remainder rounds up.
	if c["a"] != 341 || c["b"] != 683 {
		t.Errorf("counts = %v, want a:341 b:683", c)
	}
}

func TestAssignNoMembers(t *testing.T) {
	a := Assign(Assign(Assignment{}, nodes(3), 64), nil, 64)
	if len(a.Owners) != 64 || len(a.Counts()) != 0 {
		t.Errorf("Assign with no members = %v, want 64 unowned shards", a.Counts())
	}
}

// TestAssignRandomHistories applies random joins and leaves and checks
// after each step: balance, that a leave moves only the leaver's shards,
// that a join moves only shards to the joiner.
func TestAssignRandomHistories(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	const p = 256
	for h := range 30 {
		live := nodes(1 + r.IntN(4))
		next := 100
		a := Assign(Assignment{}, live, p)
		for range 12 {
			prev := a
			if len(live) > 1 && r.IntN(2) == 0 {
				i := r.IntN(len(live))
				gone := live[i].ID
				live = slices.Delete(live, i, i+1)
				a = Assign(prev, live, p)
				for s, o := range prev.Owners {
					if o != gone && a.Owners[s] != o {
						t.Fatalf("history %d: leave of %s moved shard %d from %s", h, gone, s, o)
					}
				}
			} else {
				id := fmt.Sprintf("node-%d", next)
				next++
				live = append(live, Member{ID: id})
				a = Assign(prev, live, p)
				for s, o := range prev.Owners {
					if a.Owners[s] != o && a.Owners[s] != id {
						t.Fatalf("history %d: join of %s moved shard %d from %s to %s", h, id, s, o, a.Owners[s])
					}
				}
			}
			checkBalanced(t, a, live, p)
		}
	}
}

func FuzzAssign(f *testing.F) {
	f.Add(uint16(1024), uint8(3), uint8(1), []byte{1, 2, 3})
	f.Add(uint16(7), uint8(9), uint8(4), []byte{})
	f.Fuzz(func(t *testing.T, p uint16, n, prevN uint8, caps []byte) {
		P := int(p%2048) + 1
		mk := func(k int) []Member {
			ms := make([]Member, k%16+1)
			for i := range ms {
				ms[i] = Member{ID: fmt.Sprintf("n%d", i)}
				if i < len(caps) {
					ms[i].Capacity = int(caps[i] % 8)
				}
			}
			return ms
		}
		prev := Assign(Assignment{}, mk(int(prevN)), P)
		ms := mk(int(n))
		a := Assign(prev, ms, P)
		total := 0
		for _, c := range a.Counts() {
			total += c
		}
		if total != P {
			t.Fatalf("%d of %d shards assigned", total, P)
		}
		if b := Assign(a, ms, P); !b.Equal(a) {
			t.Fatalf("settled assignment moved %d shards", a.Moved(b))
		}
		var got Assignment
		js, err := a.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if err := got.UnmarshalJSON(js); err != nil || !got.Equal(a) {
			t.Fatalf("JSON round trip: %v, equal %v", err, got.Equal(a))
		}
	})
}

func TestAssignmentJSON(t *testing.T) {
	a := Assignment{Owners: []string{"b", "", "a", "b"}}
	js, err := a.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"nodes":["b","a"],"owners":[0,-1,1,0]}`; string(js) != want {
		t.Errorf("MarshalJSON = %s, want %s", js, want)
	}
	var b Assignment
	if err := b.UnmarshalJSON(js); err != nil || !b.Equal(a) {
		t.Errorf("UnmarshalJSON(%s) = %v, %v; want %v", js, b, err, a)
	}
	for _, bad := range []string{`{"nodes":["a"],"owners":[1]}`, `{"nodes":[""],"owners":[0]}`, `[`} {
		if err := b.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("UnmarshalJSON(%s) = nil error, want one", bad)
		}
	}
}

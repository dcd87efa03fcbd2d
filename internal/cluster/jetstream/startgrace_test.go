package jetstream

import (
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/godwit-crawler/godwit/internal/cluster"
)

// TestMembersSettle: the leader writes the first assignment once it has
// seen the same members for the start grace, and at the latest five
// graces after its first look, however often the members change (a node
// restarting in a loop must not keep a crawl from starting).
func TestMembersSettle(t *testing.T) {
	members := func(ids ...string) []cluster.Member {
		ms := make([]cluster.Member, len(ids))
		for i, id := range ids {
			ms[i] = cluster.Member{ID: id, Capacity: 1}
		}
		return ms
	}
	newNode := func() *Node {
		return &Node{cfg: Config{StartGrace: 2 * time.Second}, log: slog.New(slog.DiscardHandler)}
	}
	synctest.Test(t, func(t *testing.T) {
		n := newNode()
		look := func(ids ...string) bool { return n.membersSettled(members(ids...)) }
		if look("a") {
			t.Error("settled at the first look")
		}
		time.Sleep(time.Second)
		if look("b", "a") {
			t.Error("settled when a member had just joined")
		}
		time.Sleep(time.Second)
		if look("a", "b") {
			t.Error("settled 1 s after the last change (the order of members does not matter)")
		}
		time.Sleep(time.Second)
		if !look("a", "b") {
			t.Error("not settled 2 s after the last change")
		}
	})
	synctest.Test(t, func(t *testing.T) {
		n := newNode()
		var settledAt time.Duration
		start := time.Now()
		for i := 0; settledAt == 0 && i < 100; i++ {
			ids := []string{"a"}
			if i%2 == 1 {
				ids = append(ids, "flapping")
			}
			if n.membersSettled(members(ids...)) {
				settledAt = time.Since(start)
			}
			time.Sleep(time.Second)
		}
		if settledAt != 10*time.Second {
			t.Errorf("members changing every second: first assignment after %v, want 10 s (five graces)", settledAt)
		}
	})
	n := &Node{cfg: Config{StartGrace: -1}, log: slog.New(slog.DiscardHandler)}
	if !n.membersSettled(members("a")) {
		t.Error("a negative grace should settle at once")
	}
}

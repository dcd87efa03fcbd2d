package jetstream

import (
	"context"
	"errors"
	"io"
	"strconv"
	"testing"

	"github.com/godwit-crawler/godwit/internal/cluster"
)

// TestSnapshotsFenceAndCut: a saved snapshot cuts its shard's log up to
// its position, all but the last outcome event (the fence of the
// shard's outcomes); a node stamped over cannot save (nor, so, cut the
// log under the new owner); an older snapshot than the recorded one is
// not recorded; the snapshot replaced is deleted.
func TestSnapshotsFenceAndCut(t *testing.T) {
	s := startServer(t, ServerConfig{})
	nc := connect(t, s.ClientURL())
	n, err := Open(t.Context(), nc, testConfig("a"))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	ctx := t.Context()
	const p = 1
	publish := func(k cluster.Kind) uint64 {
		t.Helper()
		msg, err := n.Codec().Encode(nil, cluster.Event{Kind: k, Shard: p, Epoch: 1, Payload: []byte("x")})
		if err != nil {
			t.Fatal(err)
		}
		ack, err := n.js.Publish(ctx, Subject(n.cfg.Crawl, k, p), msg)
		if err != nil {
			t.Fatal(err)
		}
		return ack.Sequence
	}
	l1, o2, l3, l4 := publish(cluster.KindLinks), publish(cluster.KindOutcome), publish(cluster.KindLinks), publish(cluster.KindLinks)
	blobs, err := n.ObjectStore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	snaps := n.Snapshots(blobs)
	load := func(open func(context.Context) (io.ReadCloser, error)) string {
		t.Helper()
		r, err := open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		b, _ := io.ReadAll(r)
		return string(b)
	}
	events := func() []uint64 {
		t.Helper()
		var seqs []uint64
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		last, _, _ := n.lastEvent(ctx, p, shardFilter(n.cfg.Crawl, p))
		_ = n.Read(rctx, p, 0, func(m Msg) error {
			seqs = append(seqs, m.Seq)
			if m.Seq >= last {
				cancel()
			}
			return nil
		})
		return seqs
	}

	if seq, _, err := snaps.Stamp(ctx, p, 5); err != nil || seq != 0 {
		t.Fatalf("Stamp of a shard with no snapshot = %d, %v", seq, err)
	}
	if err := snaps.Save(ctx, p, 4, l3, []byte("stale")); !errors.Is(err, cluster.ErrFenced) {
		t.Errorf("Save by an epoch stamped over = %v, want ErrFenced", err)
	}
	if err := snaps.Save(ctx, p, 5, l3, []byte("A")); err != nil {
		t.Fatal(err)
	}
	if got := events(); len(got) != 2 || got[0] != o2 || got[1] != l4 {
		t.Errorf("after a snapshot at %d: events %v, want the last outcome %d and the link after the snapshot %d (%d purged)", l3, got, o2, l4, l1)
	}
	if err := snaps.Save(ctx, p, 5, l1, []byte("older")); err != nil {
		t.Errorf("Save of an older snapshot = %v, want nil (not recorded)", err)
	}
	seq, open, err := snaps.Stamp(ctx, p, 7)
	if err != nil || seq != l3 || load(open) != "A" {
		t.Fatalf("Stamp by the next owner = %d, %v; want the snapshot at %d", seq, err, l3)
	}
	if err := snaps.Save(ctx, p, 5, l4, []byte("zombie")); !errors.Is(err, cluster.ErrFenced) {
		t.Errorf("Save by the former owner after the next one stamped = %v, want ErrFenced", err)
	}
	if got := events(); len(got) != 2 {
		t.Errorf("the former owner's refused snapshot cut the log: events %v", got)
	}
	if err := snaps.Save(ctx, p, 7, l4, []byte("B")); err != nil {
		t.Fatal(err)
	}
	if _, err := blobs.Get(ctx, "test/shard-1/"+itoa(l3)+".snap"); err == nil {
		t.Errorf("the snapshot replaced is still stored")
	}
	if seq, open, err := snaps.Stamp(ctx, p, 7); err != nil || seq != l4 || load(open) != "B" {
		t.Errorf("Stamp again = %d, %v; want the snapshot at %d", seq, err, l4)
	}
	if got := events(); len(got) != 1 || got[0] != o2 {
		t.Errorf("after a snapshot at the log's end: events %v, want only the last outcome %d", got, o2)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

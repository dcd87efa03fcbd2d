package jetstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	js "github.com/nats-io/nats.go/jetstream"

	"github.com/godwit-crawler/godwit/internal/cluster"
)

// Blobs stores shard snapshots by name: an S3 bucket (the crawl's
// --store) or the crawl's JetStream object store (ObjectStore).
type Blobs interface {
	Put(ctx context.Context, name string, data []byte) error
	Get(ctx context.Context, name string) (io.ReadCloser, error)
	Delete(ctx context.Context, name string) error
}

// snapshotRecord is the control bucket's "snap.P" key: shard P's latest
// snapshot (none while Seq is 0) and the epoch of the owner that last
// stamped or saved it.
type snapshotRecord struct {
	Seq   uint64 `json:"seq"`
	Name  string `json:"name,omitempty"`
	Epoch uint64 `json:"epoch"`
}

func snapshotKey(p int) string { return fmt.Sprintf("snap.%d", p) }

// Snapshots returns the crawl's shard snapshots (cluster.Snapshots),
// their content in blobs and their records in the control bucket.
func (n *Node) Snapshots(blobs Blobs) cluster.Snapshots { return snapshots{n, blobs} }

type snapshots struct {
	n     *Node
	blobs Blobs
}

// record reads shard p's snapshot record and its revision (0: none).
func (s snapshots) record(ctx context.Context, p int) (snapshotRecord, uint64, error) {
	var rec snapshotRecord
	e, err := retry(ctx, s.n.cfg.RequestTimeout, func(ctx context.Context) (js.KeyValueEntry, error) {
		e, err := s.n.control.Get(ctx, snapshotKey(p))
		if errors.Is(err, js.ErrKeyNotFound) {
			return nil, nil
		}
		return e, err
	})
	if err != nil || e == nil {
		return rec, 0, err
	}
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		return rec, 0, fmt.Errorf("jetstream: snapshot record of shard %d: %w", p, err)
	}
	return rec, e.Revision(), nil
}

// write replaces shard p's record, expecting its revision to be rev (0:
// no record); false when another node wrote it first.
func (s snapshots) write(ctx context.Context, p int, rec snapshotRecord, rev uint64) (bool, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.n.cfg.RequestTimeout)
	defer cancel()
	if rev == 0 {
		_, err = s.n.control.Create(ctx, snapshotKey(p), b)
	} else {
		_, err = s.n.control.Update(ctx, snapshotKey(p), b, rev)
	}
	if errors.Is(err, js.ErrKeyExists) || wrongSeq(err) {
		return false, nil
	}
	return err == nil, err
}

// Stamp implements cluster.Snapshots.
func (s snapshots) Stamp(ctx context.Context, p int, epoch uint64) (uint64, func(context.Context) (io.ReadCloser, error), error) {
	for {
		rec, rev, err := s.record(ctx, p)
		if err != nil {
			return 0, nil, err
		}
		if rec.Epoch > epoch {
			return 0, nil, fmt.Errorf("%w: shard %d stamped at epoch %d, after %d", cluster.ErrFenced, p, rec.Epoch, epoch)
		}
		if rec.Epoch < epoch {
			rec.Epoch = epoch
			ok, err := s.write(ctx, p, rec, rev)
			if err != nil {
				return 0, nil, fmt.Errorf("jetstream: snapshot record of shard %d: %w", p, err)
			}
			if !ok {
				continue // a snapshot saved meanwhile: read it again
			}
		}
		name := rec.Name
		return rec.Seq, func(ctx context.Context) (io.ReadCloser, error) { return s.blobs.Get(ctx, name) }, nil
	}
}

// Save implements cluster.Snapshots: the snapshot is stored under a name
// of its own, recorded (compare-and-set) if no later epoch stamped the
// shard and no newer snapshot is recorded, and then the log is cut and
// the snapshot it replaces deleted.
func (s snapshots) Save(ctx context.Context, p int, epoch, seq uint64, data []byte) error {
	name := fmt.Sprintf("%s/shard-%d/%d.snap", s.n.cfg.Crawl, p, seq)
	if err := s.blobs.Put(ctx, name, data); err != nil {
		return err
	}
	for {
		rec, rev, err := s.record(ctx, p)
		if err != nil {
			return err
		}
		if rec.Epoch > epoch || rec.Seq >= seq {
			if rec.Name != name {
				_ = s.blobs.Delete(ctx, name) // not recorded: no one reads it
			}
			if rec.Epoch > epoch {
				return fmt.Errorf("%w: shard %d stamped at epoch %d, after %d", cluster.ErrFenced, p, rec.Epoch, epoch)
			}
			return nil
		}
		ok, err := s.write(ctx, p, snapshotRecord{Seq: seq, Name: name, Epoch: epoch}, rev)
		if err != nil {
			return fmt.Errorf("jetstream: snapshot record of shard %d: %w", p, err)
		}
		if !ok {
			continue
		}
		if err := s.n.cut(ctx, p, seq); err != nil {
			return err
		}
		if rec.Name != "" && rec.Name != name {
			if err := s.blobs.Delete(ctx, rec.Name); err != nil {
				s.n.log.Warn("cluster: an old shard snapshot not deleted", "name", rec.Name, "err", err)
			}
		}
		return nil
	}
}

// cut removes shard p's events up to and including seq, except the
// shard's last outcome event: the fence of its outcomes is the outcome
// subject's last sequence, which must stay.
func (n *Node) cut(ctx context.Context, p int, seq uint64) error {
	lastOut, err := n.lastOnSubject(ctx, p, Subject(n.cfg.Crawl, cluster.KindOutcome, p))
	if err != nil {
		return fmt.Errorf("jetstream: cutting shard %d's log: %w", p, err)
	}
	upTo := seq
	if lastOut > 0 && lastOut <= seq {
		upTo = lastOut - 1
	}
	if upTo > 0 {
		if err := n.Purge(ctx, p, upTo); err != nil {
			return err
		}
	}
	if upTo < seq { // the links after the last outcome, up to seq
		pctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
		defer cancel()
		err := n.stream(p).Purge(pctx, js.WithPurgeSubject(Subject(n.cfg.Crawl, cluster.KindLinks, p)), js.WithPurgeSequence(seq+1))
		if err != nil {
			return fmt.Errorf("jetstream: purge of shard %d's links: %w", p, err)
		}
	}
	return nil
}

// ObjectStore returns the crawl's JetStream object store, which keeps
// shard snapshots when the crawl has no S3 store.
func (n *Node) ObjectStore(ctx context.Context) (Blobs, error) {
	c := js.ObjectStoreConfig{
		Bucket:   bucketName(n.cfg.Crawl, "snapshots"),
		Storage:  js.FileStorage,
		Replicas: n.cfg.Replicas,
	}
	store, err := ensure(ctx, n.maker, object[js.ObjectStore]{
		what:   "object store " + c.Bucket,
		stream: "OBJ_" + c.Bucket,
		fits:   func(have js.StreamConfig) bool { return have.Replicas == c.Replicas },
		open:   func(ctx context.Context, _ js.Stream) (js.ObjectStore, error) { return n.js.ObjectStore(ctx, c.Bucket) },
		make:   func(ctx context.Context) (js.ObjectStore, error) { return n.js.CreateOrUpdateObjectStore(ctx, c) },
	})
	if err != nil {
		return nil, fmt.Errorf("jetstream: snapshot store: %w", err)
	}
	return objectBlobs{store, n.cfg.RequestTimeout}, nil
}

type objectBlobs struct {
	os      js.ObjectStore
	timeout time.Duration
}

func (o objectBlobs) Put(ctx context.Context, name string, data []byte) error {
	ctx, cancel := context.WithTimeout(ctx, o.timeout*4)
	defer cancel()
	if _, err := o.os.PutBytes(ctx, name, data); err != nil {
		return fmt.Errorf("jetstream: snapshot %s: %w", name, err)
	}
	return nil
}

func (o objectBlobs) Get(ctx context.Context, name string) (io.ReadCloser, error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout*4)
	defer cancel()
	b, err := o.os.GetBytes(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("jetstream: snapshot %s: %w", name, err)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (o objectBlobs) Delete(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if err := o.os.Delete(ctx, name); err != nil && !errors.Is(err, js.ErrObjectNotFound) {
		return fmt.Errorf("jetstream: snapshot %s: %w", name, err)
	}
	return nil
}

package frontier

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/url"

	"github.com/godwit-crawler/godwit/internal/kv"
	"github.com/godwit-crawler/godwit/internal/shard"
	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// The store's partition. Every key of a host's state starts with the
// host's shard (keys.go), so the function that computes it is part of the
// store's layout: metaKey(partitionMeta) records its name
// (shard.Partition). A store written before 2026-11-27 records none: its
// hosts were sharded by their own name, and a "www." host's shard has
// changed since (shard.Site). Open moves such hosts' keys to their new
// shard once (migratePartition), then records the partition; a store
// of another partition, or a cluster node's (Partial) store of the old
// one, is refused: a cluster's shards are the whole cluster's, moved
// only by a new crawl.
const partitionMeta = "partition"

// migrateBatch is how many keys migratePartition moves in one batch.
const migrateBatch = 4096

// checkPartition makes sure the store's keys are laid out by
// shard.Partition, migrating a store of the partition before it.
func (f *Frontier) checkPartition(partial bool) error {
	v, ok, err := f.db.Get(metaKey(partitionMeta))
	if err != nil {
		return err
	}
	if ok {
		if string(v) != shard.Partition {
			return fmt.Errorf("frontier: the store's hosts are sharded by %q, this version shards them by %q", v, shard.Partition)
		}
		return nil
	}
	moved, err := migratePartition(f.db, partial)
	if err != nil {
		return err
	}
	if moved > 0 {
		f.log.Info("frontier: moved the state of www. hosts to the shard of their site (a store written before 2026-11-27)", "keys", moved)
	}
	b := f.db.NewBatch()
	b.Set(metaKey(partitionMeta), []byte(shard.Partition))
	return b.Commit(true)
}

// migratePartition moves every key of the tables laid out by shard
// whose host's shard is not the one in its key to that shard, and
// returns how many it moved. Only "www." hosts move (shard.Site), so
// the scans look no further at other keys. Each batch moves whole keys
// (delete and set together): an interrupted migration is finished by the
// next Open. A Partial store with a key to move is refused instead.
func migratePartition(db *kv.DB, partial bool) (int, error) {
	moved := 0
	for _, tag := range []byte{tagHost, tagRobots, tagQueue, tagDue, tagURL} {
		b := db.NewBatch()
		n := 0
		it, err := db.Scan([]byte{tag}, []byte{tag + 1})
		if err != nil {
			b.Discard()
			return moved, err
		}
		for ; it.Valid(); it.Next() {
			k := it.Key()
			host, ok := keyHost(k)
			if !ok {
				continue
			}
			p := shardOf(host)
			if binary.BigEndian.Uint16(k[1:3]) == p {
				continue
			}
			if partial {
				it.Close()
				b.Discard()
				return moved, fmt.Errorf("frontier: this cluster node's store was written before 2026-11-27, when hosts were sharded by their name (%s is in another shard now): remove its data directory's state to rejoin the crawl", host)
			}
			nk := append([]byte(nil), k...)
			binary.BigEndian.PutUint16(nk[1:3], p)
			b.Set(nk, it.Value())
			b.Delete(k)
			n++
			if n == migrateBatch {
				if err := b.Commit(false); err != nil {
					it.Close()
					return moved, err
				}
				moved += n
				b, n = db.NewBatch(), 0
			}
		}
		if err := it.Close(); err != nil {
			b.Discard()
			return moved, err
		}
		if err := b.Commit(false); err != nil {
			return moved, err
		}
		moved += n
	}
	if moved > 0 {
		if err := db.Sync(); err != nil {
			return moved, err
		}
	}
	return moved, nil
}

// keyHost is the host whose shard starts key k of a table laid out by
// shard, when it is a "www." host (the only ones whose shard the
// partition changed); ok is false for every other key.
func keyHost(k []byte) (host string, ok bool) {
	if len(k) < 3 {
		return "", false
	}
	rest := k[3:]
	switch k[0] {
	case tagHost, tagRobots:
	case tagQueue:
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return "", false
		}
		rest = rest[:i]
	case tagDue:
		if len(rest) < 8 {
			return "", false
		}
		rest = rest[8:]
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return "", false
		}
		rest = rest[:i]
	case tagURL:
		// scheme://host/…: the host the URL record was placed by is
		// the politeness host of its URL (urlnorm.Host).
		i := bytes.Index(rest, []byte("://"))
		if i < 0 || !bytes.HasPrefix(rest[i+3:], []byte("www.")) {
			return "", false
		}
		u, err := url.Parse(string(rest))
		if err != nil {
			return "", false
		}
		return urlnorm.Host(u), true
	default:
		return "", false
	}
	if !bytes.HasPrefix(rest, []byte("www.")) {
		return "", false
	}
	return string(rest), true
}

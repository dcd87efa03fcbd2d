package frontier

import (
	"bytes"
	"encoding/binary"
	"errors"
	"time"

	"github.com/godwit-crawler/godwit/internal/shard"
)

// Shards is P in DESIGN.md: every key starts with shard =
// xxhash64(shard.Site(host)) mod Shards, fixed for the life of a crawl (the
// store records the partition: partition.go), so cluster mode can hand a
// shard's key range to another node as a unit.
const Shards = shard.Default

// Table tags: the first byte of every key. The byte layout of keys and
// values is documented in docs/formats.md ("Crawl state").
const (
	tagHost   = 'h' // h shard host                  → hostRecord
	tagRobots = 'r' // r shard host                  → robotsRecord
	tagQueue  = 'q' // q shard host 0x00 prio seq    → task
	tagURL    = 'u' // u shard urlkey                → urlRecord
	tagMeta   = 'm' // m name                        → meta values
	tagDue    = 'v' // v shard due(8) host 0x00 key → task: a revisit due then
)

// encodingVersion starts every value, so the format can evolve.
const encodingVersion = 1

var errCorrupt = errors.New("frontier: corrupt record")

func shardOf(host string) uint16 { return uint16(shard.Of(host, Shards)) }

func appendPrefix(b []byte, tag byte, host string) []byte {
	b = append(b, tag)
	b = binary.BigEndian.AppendUint16(b, shardOf(host))
	return append(b, host...)
}

func hostKey(host string) []byte { return appendPrefix(nil, tagHost, host) }

// dueKey is a revisit's entry in the due-time index: within a shard,
// entries sort by due time, so the due ones are a prefix.
func dueKey(host string, due time.Time, key string) []byte {
	b := []byte{tagDue}
	b = binary.BigEndian.AppendUint16(b, shardOf(host))
	b = binary.BigEndian.AppendUint64(b, uint64(max(due.UnixNano(), 0)))
	b = append(b, host...)
	b = append(b, 0)
	return append(b, key...)
}

// dueShard is the prefix of one shard's due-time index.
func dueShard(shard uint16) []byte {
	return binary.BigEndian.AppendUint16([]byte{tagDue}, shard)
}

// parseDueKey splits a due-index key.
func parseDueKey(k []byte) (due time.Time, host, key string, ok bool) {
	if len(k) < 1+2+8+2 || k[0] != tagDue {
		return time.Time{}, "", "", false
	}
	due = time.Unix(0, int64(binary.BigEndian.Uint64(k[3:11])))
	rest := k[11:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return time.Time{}, "", "", false
	}
	return due, string(rest[:i]), string(rest[i+1:]), true
}
func robotsKey(host string) []byte { return appendPrefix(nil, tagRobots, host) }

// queuePrefix is the key prefix of one host's queue.
func queuePrefix(host string) []byte { return append(appendPrefix(nil, tagQueue, host), 0) }

func queueKey(host string, prio uint8, seq uint64) []byte {
	b := append(queuePrefix(host), prio)
	return binary.BigEndian.AppendUint64(b, seq)
}

// urlKey places a URL record in its host's shard.
func urlKey(host, key string) []byte {
	b := append(make([]byte, 0, 3+len(key)), tagURL)
	b = binary.BigEndian.AppendUint16(b, shardOf(host))
	return append(b, key...)
}

func metaKey(name string) []byte { return append([]byte{tagMeta}, name...) }

// prefixEnd is the smallest key greater than every key with prefix p.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// Queue bands. The byte after a host's queue prefix orders its entries:
// revisitBand holds revisits of fetched pages (see lease for how they
// share the host with discovery), and discovery bands follow from
// firstBand, by importance (importanceBand) or, breadth-first, by depth
// (priority).
const (
	revisitBand = 0
	firstBand   = 1
)

// priority is the breadth-first band of a link: its depth, so each
// host's queue is served breadth-first.
func priority(depth int) uint8 { return uint8(firstBand + min(max(depth, 0), 255-firstBand)) }

// bandOf is the band of a queue entry's key.
func bandOf(queueKey []byte) uint8 { return queueKey[len(queueKey)-9] }

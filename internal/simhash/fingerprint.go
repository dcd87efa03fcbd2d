package simhash

import (
	"encoding/binary"
	"math/bits"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// shingleWords is the number of consecutive words in a feature of
// Fingerprint: one, words weighted by frequency, as in Charikar's and
// Manku et al.'s use of SimHash for documents. Longer shingles are the
// choice for resemblance by Jaccard similarity (Broder), but a SimHash bit
// flips with probability θ/π for the angle θ between the feature vectors,
// and 3-shingles make that angle large for small edits: measured on
// fakeweb's labelled near-duplicates (3-shingle Jaccard 0.85–0.94), members
// sat 2–9 bits apart with 3-shingles, beyond the distance of 3 the index
// answers for, and 0–5 bits apart with words, while distinct pages of the
// same template stayed 6 or more bits apart (docs/simhash.md).
const shingleWords = 1

// Feature is one weighted feature of a document, for FromFeatures.
type Feature struct {
	Text   string
	Weight int // usually the number of occurrences; 0 contributes nothing
}

// Fingerprint returns the 64-bit SimHash (Charikar, 2002) of text: the
// features are its words (1-shingles), each weighted by its number of
// occurrences and hashed with xxhash64. Near-identical texts get
// fingerprints at a small Hamming distance (see Distance).
//
// Words are maximal runs of letters, digits and combining marks, lower-cased
// rune by rune (unicode.ToLower); everything else separates words, except
// that each Han, Hiragana and Katakana character is a word of its own, as
// those scripts do not put spaces between words. So
//
//	Fingerprint("The cat saw the dog") == FromFeatures([]Feature{{"the", 2}, {"cat", 1}, {"saw", 1}, {"dog", 1}})
//
// A text without words has no features, and fingerprint 0.
func Fingerprint(text string) uint64 {
	var acc accumulator
	forEachShingle(text, func(s []byte) { acc.add(xxhash.Sum64(s)) })
	return acc.sum()
}

// FromFeatures returns the SimHash of weighted features, each hashed with
// xxhash64 of its UTF-8 bytes: bit i is set when the features whose hash
// has bit i set outweigh those whose hash has it clear. A feature listed
// twice counts twice, like one with the sum of the weights.
func FromFeatures(features []Feature) uint64 {
	return fromFeatures(features, xxhash.Sum64String)
}

// fromFeatures is FromFeatures with another feature hash, so that the
// tests can check the algorithm against other implementations' vectors.
func fromFeatures(features []Feature, hash func(string) uint64) uint64 {
	var v [64]int64
	for _, f := range features {
		w := int64(f.Weight)
		if w == 0 {
			continue
		}
		h := hash(f.Text)
		for i := range v {
			// Branch-free: +w if bit i is set, -w if not.
			v[i] += (2*int64(h>>i&1) - 1) * w
		}
	}
	var fp uint64
	for i, s := range v {
		if s > 0 {
			fp |= 1 << i
		}
	}
	return fp
}

// Distance returns the Hamming distance of two fingerprints: the number of
// bits in which they differ, from 0 (identical) to 64.
func Distance(a, b uint64) int {
	return bits.OnesCount64(a ^ b)
}

// accumulator sums features of weight 1 for Fingerprint. Instead of 64
// counters updated per feature it keeps eight words of eight byte-wide
// lanes: byte b of word j counts bit 8b+j, and one feature costs eight
// shifts, masks and adds instead of 64. A byte overflows after 255
// features, so the lanes are flushed into the counters before that.
type accumulator struct {
	lanes   [8]uint64
	pending int // features in lanes since the last flush
	counts  [64]int64
	n       int64 // features added
}

const laneMask = 0x0101010101010101

func (a *accumulator) add(h uint64) {
	for j := range a.lanes {
		a.lanes[j] += h >> j & laneMask
	}
	a.n++
	if a.pending++; a.pending == 255 {
		a.flush()
	}
}

func (a *accumulator) flush() {
	for j, l := range a.lanes {
		for b := range 8 {
			a.counts[8*b+j] += int64(l >> (8 * b) & 0xff)
		}
	}
	a.lanes = [8]uint64{}
	a.pending = 0
}

// sum is the fingerprint: bit i is set when more than half the features
// have it set, which is FromFeatures' rule with all weights 1.
func (a *accumulator) sum() uint64 {
	a.flush()
	var fp uint64
	for i, c := range a.counts {
		if 2*c > a.n {
			fp |= 1 << i
		}
	}
	return fp
}

// forEachShingle calls fn with each word 3-shingle of text, in order, as
// the lower-cased words joined by single spaces (or once with all the words
// when there are fewer than three). The slice is only valid during the
// call. Only the current shingle is held, whatever the length of text.
func forEachShingle(text string, fn func(shingle []byte)) {
	var (
		stack   [128]byte
		buf     = stack[:0]
		starts  [shingleWords + 1]int // offsets in buf of the words held
		n       int                   // words held
		emitted bool
	)
	for i := 0; i < len(text); {
		c := text[i]
		var r rune
		size := 1
		if c < utf8.RuneSelf {
			if asciiWord[c] == 0 {
				i++
				continue
			}
		} else if r, size = utf8.DecodeRuneInString(text[i:]); !isWordRune(r) {
			i += size
			continue
		}
		if n == shingleWords { // drop the oldest word
			off := len(buf)
			if shingleWords > 1 {
				off = starts[1]
			}
			buf = buf[:copy(buf, buf[off:])]
			for j := 1; j < shingleWords; j++ {
				starts[j-1] = starts[j] - off
			}
			n--
		}
		if n > 0 {
			buf = append(buf, ' ')
		}
		starts[n] = len(buf)
		n++
		if c >= utf8.RuneSelf && isIdeograph(r) {
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
			i += size
		} else {
			for i < len(text) {
				if c := text[i]; c < utf8.RuneSelf {
					l := asciiWord[c]
					if l == 0 {
						break
					}
					buf = append(buf, l)
					i++
					continue
				}
				r, size := utf8.DecodeRuneInString(text[i:])
				if !isWordRune(r) || isIdeograph(r) {
					break
				}
				buf = utf8.AppendRune(buf, unicode.ToLower(r))
				i += size
			}
		}
		if n == shingleWords {
			fn(buf)
			emitted = true
		}
	}
	if !emitted && n > 0 {
		fn(buf)
	}
}

// wordHasher computes Fingerprint of a text given in pieces, without
// holding the text: it hashes each word as soon as it ends. Pieces are
// whole characters (valid UTF-8 cut only between characters); a word
// goes on from one piece to the next unless separate is called between
// them. It implements shingleWords == 1 (TestWordHasherIsFingerprint).
type wordHasher struct {
	acc  accumulator
	word []byte // the lower-cased word being read
}

// separate ends the word being read, if any.
func (h *wordHasher) separate() {
	if len(h.word) > 0 {
		h.acc.add(sum64(h.word))
		h.word = h.word[:0]
	}
}

// write reads p. ends says that what follows p, if anything, is not part
// of a word (a space, a separator, the end of the text), so that a word
// at the end of p ends with it; false when the next piece may go on with
// it ("<b>G</b>odwit").
//
// A word of ASCII letters and digits already in lower case (most words
// of most pages) is hashed where it is in p, without being copied into
// h.word; other words are lower-cased into h.word as they are read.
func (h *wordHasher) write(p []byte, ends bool) {
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			l := asciiWord[c]
			if l == 0 {
				h.separate()
				i++
				continue
			}
			// A run of ASCII letters and digits, p[i:j].
			j, lower := i+1, l == c
			for j < len(p) {
				c := p[j]
				if c >= utf8.RuneSelf || asciiWord[c] == 0 {
					break
				}
				if asciiWord[c] != c {
					lower = false
				}
				j++
			}
			// The word is whole when an ASCII separator follows it in p,
			// or p ends where the caller says words end.
			whole := j < len(p) && p[j] < utf8.RuneSelf || j == len(p) && ends
			if lower && whole && len(h.word) == 0 {
				h.acc.add(sum64(p[i:j]))
			} else {
				for _, c := range p[i:j] {
					h.word = append(h.word, asciiWord[c])
				}
			}
			i = j
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		i += size
		switch {
		case !isWordRune(r):
			h.separate()
		case isIdeograph(r): // a word by itself
			h.separate()
			h.word = utf8.AppendRune(h.word, unicode.ToLower(r))
			h.separate()
		default:
			h.word = utf8.AppendRune(h.word, unicode.ToLower(r))
		}
	}
}

// sum is the fingerprint of what was written, the word being read
// included; more may be written after (a copy of the counts is summed).
func (h *wordHasher) sum() uint64 {
	acc := h.acc
	if len(h.word) > 0 {
		acc.add(sum64(h.word))
	}
	return acc.sum()
}

func (h *wordHasher) reset() {
	*h = wordHasher{word: h.word[:0]}
}

// asciiWord maps an ASCII letter or digit to its lower case, and every
// other ASCII character to 0: a separator.
var asciiWord = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = byte(c)
		case 'A' <= c && c <= 'Z':
			t[c] = byte(c) + 'a' - 'A'
		}
	}
	return t
}()

// isWordRune reports whether r belongs to a word. Marks are included so
// that scripts such as Devanagari, whose vowel signs are marks, do not
// fall apart into single letters.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiWord[r] != 0
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// isIdeograph reports whether r is a word by itself: scripts written
// without spaces between words, where a run of letters is a phrase or a
// sentence. Treating each character as a word makes the shingles character
// trigrams, the usual cheap substitute for word segmentation.
func isIdeograph(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r))
}

// sum64 is xxhash.Sum64(b) (seed 0), the hash of a feature: the same
// value, computed in Go for words shorter than 32 bytes (nearly all of
// them), where the assembly version's call costs more than the hashing.
// TestSum64 checks it against xxhash.Sum64 for every length to 100.
func sum64(b []byte) uint64 {
	const (
		prime1 uint64 = 11400714785074694791
		prime2 uint64 = 14029467366897019727
		prime3 uint64 = 1609587929392839161
		prime4 uint64 = 9650029242287828579
		prime5 uint64 = 2870177450012600261
	)
	n := len(b)
	if n >= 32 {
		return xxhash.Sum64(b)
	}
	h := prime5 + uint64(n)
	for ; len(b) >= 8; b = b[8:] {
		k := binary.LittleEndian.Uint64(b)
		k *= prime2
		k = bits.RotateLeft64(k, 31)
		k *= prime1
		h ^= k
		h = bits.RotateLeft64(h, 27)*prime1 + prime4
	}
	if len(b) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(b)) * prime1
		h = bits.RotateLeft64(h, 23)*prime2 + prime3
		b = b[4:]
	}
	for _, c := range b {
		h ^= uint64(c) * prime5
		h = bits.RotateLeft64(h, 11) * prime1
	}
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	h ^= h >> 32
	return h
}

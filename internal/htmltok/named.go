package htmltok

import (
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// The named character references (the HTML standard's table of 2,231
// names) are not copied here: x/net/html keeps them unexported, and its
// Tokenizer, asked to read "&name" as a whole attribute value, decodes
// it exactly when name is one of them (an attribute value takes no
// shorter prefix). named asks it once per distinct name and remembers
// the answer.

// longestEntityWithoutSemicolon: the standard's names that may be
// written without ';' are all 6 bytes or shorter.
const longestEntityWithoutSemicolon = 6

// longestEntityName is the standard's longest name with its ';'
// ("&CounterClockwiseContourIntegral;"): a longer one is none.
const longestEntityName = 32

// maxMisses bounds the names remembered as not being references, so a
// page of a million distinct "&words" cannot grow the cache: past it a
// miss is asked again each time (a microsecond or two).
const maxMisses = 4096

var names struct {
	sync.RWMutex
	known  map[string][2]rune // name (with its ';' if written) → its one or two runes; a miss → {0, 0}
	misses int
}

// named returns what the reference "&"+name stands for, name being
// letters and digits and perhaps a final ';' as written; ok is false
// when it is no reference of the standard's table.
func named(name []byte) (r1, r2 rune, ok bool) {
	switch string(name) { // The commonest, without a look-up.
	case "amp;", "amp":
		return '&', 0, true
	case "lt;", "lt":
		return '<', 0, true
	case "gt;", "gt":
		return '>', 0, true
	case "quot;", "quot":
		return '"', 0, true
	case "nbsp;", "nbsp":
		return '\u00a0', 0, true
	}
	if len(name) < 2 || len(name) > longestEntityName {
		return 0, 0, false
	}
	names.RLock()
	r, seen := names.known[string(name)]
	names.RUnlock()
	if seen {
		return r[0], r[1], r[0] != 0
	}
	r = askXNet(string(name))
	names.Lock()
	if names.known == nil {
		names.known = make(map[string][2]rune)
	}
	if r[0] != 0 || names.misses < maxMisses {
		if r[0] == 0 {
			names.misses++
		}
		names.known[string(name)] = r
	}
	names.Unlock()
	return r[0], r[1], r[0] != 0
}

// askXNet reads `<a x="&name">` with x/net/html's tokenizer: the value
// comes back decoded, one or two runes, exactly when name is in the
// table; as written otherwise.
func askXNet(name string) [2]rune {
	ref := "&" + name
	z := html.NewTokenizer(strings.NewReader(`<a x="` + ref + `">`))
	z.Next()
	_, v, _ := z.TagAttr()
	if string(v) == ref || len(v) == 0 {
		return [2]rune{}
	}
	var r [2]rune
	r1, n := utf8.DecodeRune(v)
	r[0] = r1
	if n < len(v) {
		r[1], _ = utf8.DecodeRune(v[n:])
	}
	return r
}

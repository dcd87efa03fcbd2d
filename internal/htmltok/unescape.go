package htmltok

// reference decodes the character reference at the start of s (s[0] is
// '&') as x/net/html's unescapeEntity does, which follows the HTML
// standard's "consume a character reference" with its own bounds: the
// rune or two it stands for and its length. n is 0 when s starts no
// reference (the '&' is text). attr reads it as in an attribute value: a
// name without ';' then followed by '=' is none, and a name is only
// taken whole (no "&notit;" as "¬it;").
func reference(s []byte, attr bool) (r1, r2 rune, n int) {
	if len(s) < 2 {
		return 0, 0, 0
	}
	if s[1] == '#' {
		return numericReference(s)
	}
	// The name: letters and digits, and a ';' right after them.
	i := 1
	for i < len(s) && isAlnum(s[i]) {
		i++
	}
	if i < len(s) && s[i] == ';' {
		i++
	}
	name := s[1:i]
	switch {
	case len(name) == 0:
		return 0, 0, 0
	case attr && name[len(name)-1] != ';' && i < len(s) && s[i] == '=':
		return 0, 0, 0
	}
	if r1, r2, ok := named(name); ok {
		return r1, r2, i
	}
	if !attr {
		// The longest name without ';' that starts it: "&notit" is
		// "¬it". Those are all 6 bytes or shorter.
		for j := min(len(name)-1, longestEntityWithoutSemicolon); j > 1; j-- {
			if r1, r2, ok := named(name[:j]); ok {
				return r1, r2, j + 1
			}
		}
	}
	return 0, 0, 0
}

// numericReference decodes "&#65;", "&#x41", ... at the start of s.
func numericReference(s []byte) (r1, r2 rune, n int) {
	i := 2
	base := rune(10)
	if i < len(s) && (s[i] == 'x' || s[i] == 'X') {
		base, i = 16, i+1
	}
	start := i
	var x rune
	for ; i < len(s); i++ {
		d := digit(s[i], base)
		if d < 0 {
			break
		}
		if x <= 0x10FFFF { // stops growing past the largest code point
			x = base*x + d
		}
	}
	if i == start {
		return 0, 0, 0
	}
	if i < len(s) && s[i] == ';' {
		i++
	}
	switch {
	case 0x80 <= x && x <= 0x9F:
		x = windows1252[x-0x80]
	case x == 0, 0xD800 <= x && x <= 0xDFFF, x > 0x10FFFF:
		x = '\uFFFD'
	}
	return x, 0, i
}

// digit returns the value of c as a digit in base (10 or 16), or -1.
func digit(c byte, base rune) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case base == 16 && 'a' <= c && c <= 'f':
		return rune(c-'a') + 10
	case base == 16 && 'A' <= c && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

func isAlnum(c byte) bool { return isLetter(c) || '0' <= c && c <= '9' }

// windows1252 is what the numeric references 0x80 to 0x9F stand for, as
// the HTML standard's table of them says (the C1 controls as windows-1252
// reads those bytes; 0x81, 0x8D, 0x8F, 0x90 and 0x9D as themselves).
var windows1252 = [32]rune{
	'\u20AC', '\u0081', '\u201A', '\u0192', '\u201E', '\u2026', '\u2020', '\u2021',
	'\u02C6', '\u2030', '\u0160', '\u2039', '\u0152', '\u008D', '\u017D', '\u008F',
	'\u0090', '\u2018', '\u2019', '\u201C', '\u201D', '\u2022', '\u2013', '\u2014',
	'\u02DC', '\u2122', '\u0161', '\u203A', '\u0153', '\u009D', '\u017E', '\u0178',
}

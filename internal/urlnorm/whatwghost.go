package urlnorm

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// This file is the host parser of the WHATWG URL Standard
// (https://url.spec.whatwg.org/#host-parsing): domains (with "domain to
// ASCII"), IPv4 in all its historical forms, IPv6, and opaque hosts of
// non-special URLs.

// profile is UTS 46 ToASCII with the flags the URL Standard sets for
// beStrict = false: CheckHyphens and UseSTD3ASCIIRules off, CheckBidi and
// CheckJoiners on, non-transitional processing, no DNS length check.
var profile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
	idna.VerifyDNSLength(false),
)

// parseHost parses the host part of a URL. opaque selects the opaque-host
// parser of non-special schemes; otherwise input is a domain or an IP
// address and must not be empty.
func parseHost(input string, opaque bool) (string, hostKind, error) {
	if strings.HasPrefix(input, "[") {
		if len(input) < 2 || input[len(input)-1] != ']' {
			return "", 0, errParse("unclosed IPv6 address")
		}
		a, ok := parseIPv6(input[1 : len(input)-1])
		if !ok {
			return "", 0, errParse("invalid IPv6 address")
		}
		return "[" + formatIPv6(a) + "]", hostIPv6, nil
	}
	if opaque {
		return parseOpaqueHost(input)
	}
	domain := input
	if strings.IndexByte(domain, '%') >= 0 {
		domain = percentDecode(domain)
	}
	if isASCII(domain) {
		// The standard's fast path: an ASCII domain is only lower-cased,
		// even when a label looks like (invalid) Punycode.
		domain = lowerASCII(domain)
	} else {
		if !utf8.ValidString(domain) {
			domain = strings.ToValidUTF8(domain, "\uFFFD")
		}
		a, err := profile.ToASCII(domain)
		if err != nil {
			return "", 0, errParse("invalid international domain name")
		}
		domain = a
	}
	if domain == "" {
		return "", 0, errParse("empty host")
	}
	for i := 0; i < len(domain); i++ {
		if forbiddenDomain(domain[i]) {
			return "", 0, errParse("forbidden character " + strconv.QuoteRune(rune(domain[i])) + " in host")
		}
	}
	if endsInNumber(domain) {
		v, ok := parseIPv4(domain)
		if !ok {
			return "", 0, errParse("invalid IPv4 address")
		}
		return formatIPv4(v), hostIPv4, nil
	}
	return domain, hostDomain, nil
}

func parseOpaqueHost(input string) (string, hostKind, error) {
	if input == "" {
		return "", hostEmpty, nil
	}
	for i := 0; i < len(input); i++ {
		if forbiddenHost(input[i]) {
			return "", 0, errParse("forbidden character " + strconv.QuoteRune(rune(input[i])) + " in host")
		}
	}
	for i := 0; i < len(input); i++ {
		if pctSets[input[i]]&setC0 != 0 {
			var b []byte
			for j := 0; j < len(input); j++ {
				b = appendEncoded(b, input[j], setC0)
			}
			return string(b), hostOpaque, nil
		}
	}
	return input, hostOpaque, nil
}

// forbiddenHost: the forbidden host code points.
func forbiddenHost(c byte) bool {
	switch c {
	case 0, '\t', '\n', '\r', ' ', '#', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|':
		return true
	}
	return false
}

// forbiddenDomain: the forbidden domain code points.
func forbiddenDomain(c byte) bool {
	return forbiddenHost(c) || c <= 0x1f || c == '%' || c == 0x7f
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// percentDecode decodes every valid escape of s, leaving stray '%' as is.
func percentDecode(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && validEscape(s, i) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// endsInNumber reports whether the last label of domain (ignoring one
// trailing dot) is a number, which makes the domain an IPv4 address.
func endsInNumber(domain string) bool {
	s := domain
	if strings.HasSuffix(s, ".") {
		if len(s) == 1 {
			return false
		}
		s = s[:len(s)-1]
	}
	last := s[strings.LastIndexByte(s, '.')+1:]
	if last == "" {
		return false
	}
	digits := true
	for i := 0; i < len(last); i++ {
		if !isDigit(int(last[i])) {
			digits = false
			break
		}
	}
	if digits {
		return true
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// maxIPv4Number saturates IPv4 numbers: anything larger is too large.
const maxIPv4Number = 1 << 40

// parseIPv4Number parses a decimal, octal ("0" prefix) or hexadecimal
// ("0x" prefix) number; values past 2^40 saturate.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	radix := uint64(10)
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, radix = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, radix = s[1:], 8
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case radix == 16 && 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		case radix == 16 && 'A' <= c && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= radix {
			return 0, false
		}
		if n < maxIPv4Number {
			n = n*radix + d
		}
	}
	return min(n, maxIPv4Number), true
}

// parseIPv4 implements the IPv4 parser: one to four numbers, the last
// filling the remaining bytes ("127.1" is 127.0.0.1, "0x7f000001" too).
func parseIPv4(s string) (uint32, bool) {
	s = strings.TrimSuffix(s, ".")
	var nums [4]uint64
	n := 0
	for {
		part, rest, more := strings.Cut(s, ".")
		if n == 4 {
			return 0, false
		}
		v, ok := parseIPv4Number(part)
		if !ok {
			return 0, false
		}
		nums[n] = v
		n++
		if !more {
			break
		}
		s = rest
	}
	for _, v := range nums[:n-1] {
		if v > 255 {
			return 0, false
		}
	}
	last := nums[n-1]
	if last >= 1<<(8*(5-n)) {
		return 0, false
	}
	v := last
	for i, x := range nums[:n-1] {
		v += x << (8 * (3 - i))
	}
	return uint32(v), true
}

func formatIPv4(v uint32) string {
	b := make([]byte, 0, 15)
	for i := 3; i >= 0; i-- {
		b = strconv.AppendUint(b, uint64(v>>(8*i)&0xff), 10)
		if i > 0 {
			b = append(b, '.')
		}
	}
	return string(b)
}

// parseIPv6 implements the IPv6 parser of the standard.
func parseIPv6(s string) ([8]uint16, bool) {
	var a [8]uint16
	piece, compress := 0, -1
	i := 0
	at := func(i int) int {
		if i < len(s) {
			return int(s[i])
		}
		return eof
	}
	if at(0) == ':' {
		if at(1) != ':' {
			return a, false
		}
		i = 2
		piece++
		compress = piece
	}
	for at(i) != eof {
		if piece == 8 {
			return a, false
		}
		if at(i) == ':' {
			if compress >= 0 {
				return a, false
			}
			i++
			piece++
			compress = piece
			continue
		}
		value, length := 0, 0
		for length < 4 && isHex(at(i)) {
			value = value*16 + int(unhex(byte(at(i))))
			i++
			length++
		}
		switch at(i) {
		case '.':
			if length == 0 {
				return a, false
			}
			i -= length
			if piece > 6 {
				return a, false
			}
			seen := 0
			for at(i) != eof {
				v := -1
				if seen > 0 {
					if at(i) == '.' && seen < 4 {
						i++
					} else {
						return a, false
					}
				}
				if !isDigit(at(i)) {
					return a, false
				}
				for isDigit(at(i)) {
					d := at(i) - '0'
					switch v {
					case -1:
						v = d
					case 0:
						return a, false
					default:
						v = v*10 + d
					}
					if v > 255 {
						return a, false
					}
					i++
				}
				a[piece] = a[piece]<<8 | uint16(v)
				seen++
				if seen == 2 || seen == 4 {
					piece++
				}
			}
			if seen != 4 {
				return a, false
			}
			goto done
		case ':':
			i++
			if at(i) == eof {
				return a, false
			}
		case eof:
		default:
			return a, false
		}
		a[piece] = uint16(value)
		piece++
	}
done:
	if compress >= 0 {
		swaps := piece - compress
		piece = 7
		for piece != 0 && swaps > 0 {
			a[piece], a[compress+swaps-1] = a[compress+swaps-1], a[piece]
			piece--
			swaps--
		}
	} else if piece != 8 {
		return a, false
	}
	return a, true
}

// formatIPv6 serializes an address: lower-case hex, the first longest run
// of two or more zero pieces compressed to "::".
func formatIPv6(a [8]uint16) string {
	compress, best := -1, 1
	for i := 0; i < 8; {
		if a[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && a[j] == 0 {
			j++
		}
		if j-i > best {
			compress, best = i, j-i
		}
		i = j
	}
	b := make([]byte, 0, 39)
	for i := 0; i < 8; i++ {
		if i == compress {
			if i == 0 {
				b = append(b, "::"...)
			} else {
				b = append(b, ':')
			}
			i += best - 1
			continue
		}
		b = strconv.AppendUint(b, uint64(a[i]), 16)
		if i != 7 {
			b = append(b, ':')
		}
	}
	return string(b)
}

func isHex(c int) bool { return c >= 0 && c < 256 && ishex(byte(c)) }

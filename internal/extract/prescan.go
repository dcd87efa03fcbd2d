package extract

import (
	"bytes"
	"slices"

	"golang.org/x/text/encoding"
)

// prescan runs the HTML standard's "prescan a byte stream to determine
// its encoding" over b, the first bytes of a document, and returns the
// encoding its first effective <meta charset> or <meta
// http-equiv=content-type content="...charset=..."> declares.
//
// It is the byte-level algorithm of the standard, not a tokenizer: it
// knows comments and tags but not raw text, so a <meta> inside a <script>
// counts, as in browsers; and it gives up on a tag or attribute cut off
// by the end of b. (golang.org/x/net/html/charset runs the tokenizer
// instead, which misses such a <meta>.)
func prescan(b []byte) (name string, enc encoding.Encoding, ok bool) {
	// A UTF-16 document without a byte order mark that starts with an
	// XML declaration: "<?" in UTF-16.
	switch {
	case bytes.HasPrefix(b, []byte("<\x00?\x00")):
		return "utf-16le", mustLookup("utf-16le"), true
	case bytes.HasPrefix(b, []byte("\x00<\x00?")):
		return "utf-16be", mustLookup("utf-16be"), true
	}
	s := scanner{b: b}
	for ; s.pos < len(b); s.pos++ {
		if b[s.pos] != '<' {
			continue
		}
		rest := b[s.pos:]
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			// To the first "-->", whose dashes may be those of "<!--".
			end := bytes.Index(rest[2:], []byte("-->"))
			if end < 0 {
				return "", nil, false
			}
			s.pos += 2 + end + 2
		case len(rest) > 5 && equalFoldASCII(string(rest[1:5]), "meta") && (isASCIISpace(rest[5]) || rest[5] == '/'):
			s.pos += 5
			name, enc, ok, eof := s.meta()
			if eof {
				return "", nil, false
			}
			if ok {
				return name, enc, true
			}
		case len(rest) > 1 && isASCIIAlpha(rest[1]),
			len(rest) > 2 && rest[1] == '/' && isASCIIAlpha(rest[2]):
			for s.pos < len(b) && !isASCIISpace(b[s.pos]) && b[s.pos] != '>' {
				s.pos++
			}
			for {
				_, _, found, eof := s.attr()
				if eof {
					return "", nil, false
				}
				if !found {
					break
				}
			}
		case len(rest) > 1 && (rest[1] == '!' || rest[1] == '/' || rest[1] == '?'):
			end := bytes.IndexByte(rest[1:], '>')
			if end < 0 {
				return "", nil, false
			}
			s.pos += 1 + end
		}
	}
	return "", nil, false
}

// scanner is the position of prescan in its input.
type scanner struct {
	b   []byte
	pos int
}

// pragma is the "need pragma" state of a <meta> in prescan.
type pragma int

const (
	pragmaUnknown pragma = iota
	pragmaNeeded
	pragmaNotNeeded
)

// meta reads the attributes of a <meta> tag, s.pos on the space or
// slash after its name, and returns the encoding it declares, if any.
// eof reports that the tag runs past the end of the input.
func (s *scanner) meta() (name string, enc encoding.Encoding, ok, eof bool) {
	var (
		seen      []string
		gotPragma bool
		need      pragma
		label     string
		labelSet  bool // charset is not null (it may be a failure: label "")
	)
	for {
		k, v, found, eof := s.attr()
		if eof {
			return "", nil, false, true
		}
		if !found {
			break
		}
		if slices.Contains(seen, k) {
			continue
		}
		seen = append(seen, k)
		switch k {
		case "http-equiv":
			if v == "content-type" {
				gotPragma = true
			}
		case "content":
			if l, ok := metaCharset(v); ok && !labelSet {
				if _, _, valid := lookup(l); valid {
					label, labelSet, need = l, true, pragmaNeeded
				}
			}
		case "charset":
			label, labelSet, need = v, true, pragmaNotNeeded
			if _, _, valid := lookup(v); !valid {
				label = ""
			}
		}
	}
	if need == pragmaUnknown || need == pragmaNeeded && !gotPragma || label == "" {
		return "", nil, false, false
	}
	name, enc, ok = fromMeta(label)
	return name, enc, ok, false
}

// attr runs the HTML standard's "get an attribute" at s.pos: it returns
// the next attribute of the tag, name and value ASCII lower-cased, or
// found false at the tag's '>'; eof reports running past the input.
func (s *scanner) attr() (name, value string, found, eof bool) {
	b := s.b
	for s.pos < len(b) && (isASCIISpace(b[s.pos]) || b[s.pos] == '/') {
		s.pos++
	}
	if s.pos == len(b) {
		return "", "", false, true
	}
	if b[s.pos] == '>' {
		return "", "", false, false
	}
	var n []byte
	for ; ; s.pos++ {
		if s.pos == len(b) {
			return "", "", false, true
		}
		c := b[s.pos]
		switch {
		case c == '=' && len(n) > 0:
			s.pos++
			v, eof := s.attrValue()
			return string(n), v, !eof, eof
		case isASCIISpace(c):
			for s.pos < len(b) && isASCIISpace(b[s.pos]) {
				s.pos++
			}
			if s.pos == len(b) {
				return "", "", false, true
			}
			if b[s.pos] != '=' {
				return string(n), "", true, false
			}
			s.pos++
			v, eof := s.attrValue()
			return string(n), v, !eof, eof
		case c == '/' || c == '>':
			return string(n), "", true, false
		}
		n = append(n, lowerByte(c))
	}
}

// attrValue reads an attribute value at s.pos, just after the '='.
func (s *scanner) attrValue() (value string, eof bool) {
	b := s.b
	for s.pos < len(b) && isASCIISpace(b[s.pos]) {
		s.pos++
	}
	if s.pos == len(b) {
		return "", true
	}
	var v []byte
	switch q := b[s.pos]; q {
	case '"', '\'':
		for s.pos++; s.pos < len(b); s.pos++ {
			if b[s.pos] == q {
				s.pos++
				return string(v), false
			}
			v = append(v, lowerByte(b[s.pos]))
		}
		return "", true
	case '>':
		return "", false
	}
	for ; s.pos < len(b); s.pos++ {
		c := b[s.pos]
		if isASCIISpace(c) || c == '>' {
			return string(v), false
		}
		v = append(v, lowerByte(c))
	}
	return "", true
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isASCIIAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

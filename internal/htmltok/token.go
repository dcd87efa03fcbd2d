package htmltok

import (
	"bytes"
	"errors"
	"io"
)

// TokenType is the type of a token, as golang.org/x/net/html names them.
type TokenType uint8

const (
	// ErrorToken ends the tokens: Err says why (io.EOF, or ErrTooLong).
	ErrorToken TokenType = iota
	// TextToken is a run of text, or the content of a raw-text or RCDATA
	// element.
	TextToken
	// StartTagToken looks like <a>.
	StartTagToken
	// EndTagToken looks like </a>.
	EndTagToken
	// SelfClosingTagToken looks like <br/>.
	SelfClosingTagToken
	// CommentToken looks like <!--x-->, and stands for bogus comments
	// (<?x>, </ x>, <!x>) and </> too.
	CommentToken
	// DoctypeToken looks like <!DOCTYPE x>.
	DoctypeToken
)

// ErrTooLong reports a token longer than the tokenizer's limit (SetMaxToken).
var ErrTooLong = errors.New("htmltok: token longer than the limit")

// span is buf[start:end].
type span struct{ start, end int }

// attr is a kept attribute: the first of its key.
type attr struct{ key, val span }

// Tokenizer returns the tokens of an HTML page held in memory. The zero
// value has no input; Reset gives it one. Slices it returns point into
// the input or into its own buffers: they must not be modified, and are
// valid until the next call of Next (Attr's and Text's until their next
// call too).
type Tokenizer struct {
	buf []byte
	pos int // next byte to tokenize
	max int // longest token; 0: no limit

	tt   TokenType
	err  error
	raw  span
	data span // text, comment or doctype data; tag name
	// reach is the furthest x/net/html's tokenizer reads for the token
	// (its look-ahead), for SetMaxToken.
	reach int
	// attrs are the current start tag's attributes, the first of each key.
	attrs []attr
	// rawTag is the lower-case name of the element ("script", "title")
	// whose end tag closes the next token, which is raw text or RCDATA.
	rawTag string
	// textIsRaw: the current text is not unescaped. convertNUL: its NUL
	// bytes become U+FFFD.
	textIsRaw, convertNUL bool

	text, name, key, val []byte // buffers for changed text, names, keys, values
}

// New returns a tokenizer of b.
func New(b []byte) *Tokenizer {
	z := &Tokenizer{}
	z.Reset(b)
	return z
}

// Reset makes z a tokenizer of b, keeping its buffers and its limit.
func (z *Tokenizer) Reset(b []byte) {
	*z = Tokenizer{buf: b, max: z.max, attrs: z.attrs[:0], text: z.text[:0], name: z.name[:0], key: z.key[:0], val: z.val[:0]}
}

// SetMaxToken limits a token to n bytes as x/net/html's SetMaxBuf does:
// a text or raw text token that reaches n bytes (with the look-ahead
// x/net/html reads to find its end) is cut at n, and is the last; any
// other token that long is not returned. Then the tokens end with
// ErrTooLong. 0, the default, sets no limit.
func (z *Tokenizer) SetMaxToken(n int) { z.max = n }

// NextIsNotRawText makes the content of the element whose start tag is
// the current token markup, not raw text (as x/net/html's method of the
// same name).
func (z *Tokenizer) NextIsNotRawText() { z.rawTag = "" }

// Err returns why the tokens ended, after an ErrorToken: io.EOF or
// ErrTooLong.
func (z *Tokenizer) Err() error {
	if z.tt != ErrorToken {
		return nil
	}
	return z.err
}

// Raw returns the bytes of the current token, as they are in the input.
// The tokens' raw bytes partition the input up to an ErrorToken.
func (z *Tokenizer) Raw() []byte { return z.buf[z.raw.start:z.raw.end] }

// Next reads the next token and returns its type.
func (z *Tokenizer) Next() TokenType {
	z.reach = -1
	z.tt = z.next()
	if z.tt != ErrorToken && z.max > 0 && max(z.reach, z.raw.end)-z.raw.start >= z.max {
		z.err = ErrTooLong
		if z.tt == TextToken {
			// Cut, as x/net/html hands out what it has read; the next
			// token is the error.
			z.raw.end = z.raw.start + z.max
			z.data.end = z.raw.end
			z.pos = z.raw.end
			return z.tt
		}
		z.tt = ErrorToken
	}
	if z.tt == ErrorToken {
		if z.err == nil {
			// The end of the input, maybe in a tag, which is dropped: Raw
			// is what is left, as x/net/html's; a tag that long reached
			// the limit first.
			z.err = io.EOF
			z.raw.end = len(z.buf)
			if z.max > 0 && z.raw.end-z.raw.start >= z.max {
				z.err = ErrTooLong
			}
		} else {
			z.raw.end = z.raw.start
		}
		z.pos = len(z.buf)
		z.attrs = z.attrs[:0]
	}
	return z.tt
}

// next is Next, x/net/html's Tokenizer.Next step by step, on the input
// in memory: its structure is kept so that the two can be read side by
// side.
func (z *Tokenizer) next() TokenType {
	z.attrs = z.attrs[:0]
	z.raw = span{z.pos, z.pos}
	z.data = z.raw
	if z.err != nil {
		return ErrorToken
	}
	n := len(z.buf)
	if z.rawTag != "" {
		if z.rawTag == "plaintext" {
			z.data.end, z.pos = n, n
			z.textIsRaw = true
		} else {
			z.readRawOrRCDATA()
		}
		// Empty raw text is no token, unless finding its end reached the
		// limit (Next cuts it there).
		if z.data.end > z.data.start || z.max > 0 && z.reach-z.raw.start >= z.max {
			z.raw.end = z.pos
			z.convertNUL = true
			return TextToken
		}
	}
	z.textIsRaw, z.convertNUL = false, false
	i := z.pos
	for {
		k := bytes.IndexByte(z.buf[i:], '<')
		if k < 0 || i+k+1 >= n {
			break // text to the end, a last '<' included
		}
		i += k
		c := z.buf[i+1]
		switch {
		case isLetter(c), c == '/', c == '!', c == '?':
		default:
			i++ // not a tag: the '<' is text
			continue
		}
		if i > z.raw.start {
			// The text before the tag first.
			z.pos, z.raw.end, z.data.end = i, i, i
			z.reach = i + 2
			return TextToken
		}
		if head := 2; z.max > 0 && z.max <= 3 {
			// x/net/html reads "<x" ("</x") before it looks at a tag;
			// when that reaches its limit, it hands it out as text.
			if c == '/' && i+2 < n {
				head = 3
			}
			if head >= z.max {
				z.pos, z.raw.end, z.data.end = i+head, i+head, i+head
				return TextToken
			}
		}
		switch {
		case isLetter(c):
			return z.readStartTag(i + 1)
		case c == '/':
			return z.readEndTag(i + 2)
		case c == '!':
			return z.readMarkupDeclaration(i + 2)
		default: // '?': a bogus comment, the '?' its first byte
			z.readUntilCloseAngle(i + 1)
			return CommentToken
		}
	}
	if z.raw.start < n {
		z.pos, z.raw.end, z.data.end = n, n, n
		return TextToken
	}
	return ErrorToken
}

// end sets the current token to end before z.buf[i], and the input to
// go on there.
func (z *Tokenizer) end(i int) { z.pos, z.raw.end = i, i }

// readUntilCloseAngle reads a bogus comment whose data starts at i, up to
// the next '>' or the end.
func (z *Tokenizer) readUntilCloseAngle(i int) {
	z.data.start = i
	if k := bytes.IndexByte(z.buf[i:], '>'); k >= 0 {
		z.data.end = i + k
		z.end(i + k + 1)
		return
	}
	z.data.end = len(z.buf)
	z.end(len(z.buf))
}

// readEndTag reads what starts with "</", i being after it.
func (z *Tokenizer) readEndTag(i int) TokenType {
	n := len(z.buf)
	if i == n {
		// "</" at the end is text.
		z.pos, z.raw.end, z.data.end = n, n, n
		return TextToken
	}
	switch c := z.buf[i]; {
	case c == '>':
		// "</>" is no token: an empty comment, for Raw.
		z.end(i + 1)
		return CommentToken
	case isLetter(c):
		if !z.readTag(i, false) {
			return ErrorToken
		}
		return EndTagToken
	}
	z.readUntilCloseAngle(i)
	return CommentToken
}

// readMarkupDeclaration reads what starts with "<!", i being after it: a
// comment, a doctype or a bogus comment.
func (z *Tokenizer) readMarkupDeclaration(i int) TokenType {
	n := len(z.buf)
	z.data.start = i
	switch {
	case i == n:
		z.data.end = n
		z.end(n)
		return CommentToken
	case i+1 == n:
		z.data.end = n
		if z.buf[i] == '>' {
			z.data.end--
		}
		z.end(n)
		return CommentToken
	case z.buf[i] == '-' && z.buf[i+1] == '-':
		z.readComment(i + 2)
		return CommentToken
	}
	if z.readDoctype(i) {
		return DoctypeToken
	}
	z.readUntilCloseAngle(i)
	return CommentToken
}

// readDoctype reads a doctype whose "DOCTYPE" would start at i, and
// reports whether it was one.
func (z *Tokenizer) readDoctype(i int) bool {
	const s = "DOCTYPE"
	if len(z.buf)-i < len(s) {
		return false
	}
	for j := 0; j < len(s); j++ {
		if c := z.buf[i+j]; c != s[j] && c != s[j]+('a'-'A') {
			return false
		}
	}
	i = skipSpace(z.buf, i+len(s))
	if i == len(z.buf) {
		z.data = span{i, i}
		z.end(i)
		return true
	}
	z.readUntilCloseAngle(i)
	return true
}

// readComment reads a comment whose data starts at p, after "<!--".
func (z *Tokenizer) readComment(p int) {
	z.data.start = p
	n := len(z.buf)
	dashes, beginning := 0, true
	for j := p; j < n; j++ {
		switch z.buf[j] {
		case '-':
			dashes++
			continue
		case '>':
			if dashes >= 2 || beginning {
				z.data.end = max(j+1-len("-->"), p)
				z.end(j + 1)
				return
			}
		case '!':
			if dashes >= 2 {
				j++
				if j == n {
					break
				}
				switch z.buf[j] {
				case '>':
					z.data.end = max(j+1-len("--!>"), p)
					z.end(j + 1)
					return
				case '-':
					dashes, beginning = 1, false
					continue
				}
			}
		}
		dashes, beginning = 0, false
	}
	// The end: the dashes that would have closed it are not data.
	d := z.buf[p:n]
	end := n
	switch {
	case bytes.HasSuffix(d, []byte("--!")):
		end -= 3
	case bytes.HasSuffix(d, []byte("--")):
		end -= 2
	case bytes.HasSuffix(d, []byte("-")):
		end--
	}
	z.data.end = max(end, p)
	z.end(n)
}

// readStartTag reads a start tag whose name starts at i.
func (z *Tokenizer) readStartTag(i int) TokenType {
	if !z.readTag(i, true) {
		return ErrorToken
	}
	if name := z.buf[z.data.start:z.data.end]; len(name) <= len("plaintext") {
		var lower [len("plaintext")]byte
		for k, c := range name {
			lower[k] = toLower(c)
		}
		switch s := lower[:len(name)]; string(s) {
		case "iframe", "noembed", "noframes", "noscript", "plaintext", "script", "style", "textarea", "title", "xmp":
			z.rawTag = rawTags[string(s)]
		}
	}
	// Self-closing: a '/' before the '>' that is not the end of the last
	// (kept) attribute's unquoted value (<p a=/>), as x/net/html decides.
	e := z.raw.end
	if z.buf[e-2] == '/' && (len(z.attrs) == 0 || e-2 != z.attrs[len(z.attrs)-1].val.end-1) {
		return SelfClosingTagToken
	}
	return StartTagToken
}

// rawTags interns the names of the raw-text and RCDATA elements.
var rawTags = map[string]string{
	"iframe": "iframe", "noembed": "noembed", "noframes": "noframes", "noscript": "noscript",
	"plaintext": "plaintext", "script": "script", "style": "style", "textarea": "textarea",
	"title": "title", "xmp": "xmp",
}

// readTag reads a tag whose name starts at i, its attributes kept if
// keep, and reports false if the input ends before its '>'.
func (z *Tokenizer) readTag(i int, keep bool) bool {
	b := z.buf
	n := len(b)
	// The name.
	z.data.start = i
	for i < n && !isSpace(b[i]) && b[i] != '/' && b[i] != '>' {
		i++
	}
	if i == n {
		return false
	}
	z.data.end = i
	for {
		i = skipSpace(b, i)
		if i == n {
			return false
		}
		if b[i] == '>' {
			z.end(i + 1)
			return true
		}
		// The key; an '=' first is part of it.
		k0 := i
		for i < n {
			c := b[i]
			if c == '=' && i == k0 {
				i++
				continue
			}
			if c == '=' || isSpace(c) || c == '/' || c == '>' {
				break
			}
			i++
		}
		key := span{k0, i}
		val := span{i, i}
		// The value.
		j := skipSpace(b, i)
		if j == n {
			return false
		}
		switch b[j] {
		case '/':
			i = j + 1
		case '=':
			j = skipSpace(b, j+1)
			if j == n {
				return false
			}
			switch q := b[j]; q {
			case '>':
				i = j
			case '"', '\'':
				k := bytes.IndexByte(b[j+1:], q)
				if k < 0 {
					return false
				}
				val = span{j + 1, j + 1 + k}
				i = j + 2 + k
			default:
				i = j + 1
				for i < n && !isSpace(b[i]) && b[i] != '>' {
					i++
				}
				if i == n {
					return false
				}
				val = span{j, i}
			}
		default:
			i = j
		}
		if keep && key.end > key.start && !z.seen(key) {
			z.attrs = append(z.attrs, attr{key, val})
		}
	}
}

// seen reports whether a kept attribute has key k, ASCII
// case-insensitively.
func (z *Tokenizer) seen(k span) bool {
	key := z.buf[k.start:k.end]
next:
	for _, a := range z.attrs {
		if a.key.end-a.key.start != len(key) {
			continue
		}
		for i, c := range z.buf[a.key.start:a.key.end] {
			if toLower(c) != toLower(key[i]) {
				continue next
			}
		}
		return true
	}
	return false
}

// readRawOrRCDATA reads the content of a raw-text or RCDATA element, up
// to the end tag of z.rawTag.
func (z *Tokenizer) readRawOrRCDATA() {
	if z.rawTag == "script" {
		z.data.end = z.readScript(z.pos)
		z.pos = z.data.end
		if z.pos < len(z.buf) {
			z.reach = z.pos + len("</script") + 1
		}
		z.textIsRaw = true
		z.rawTag = ""
		return
	}
	b := z.buf
	i := z.pos
	end := len(b)
	for {
		k := bytes.IndexByte(b[i:], '<')
		if k < 0 {
			break
		}
		i += k
		if i+1 < len(b) && b[i+1] == '/' && z.rawEndTag(i+2) {
			end = i
			z.reach = i + 2 + len(z.rawTag) + 1
			break
		}
		i++
	}
	z.data.end, z.pos = end, end
	// A textarea's or title's RCDATA holds character references.
	z.textIsRaw = z.rawTag != "textarea" && z.rawTag != "title"
	z.rawTag = ""
}

// rawEndTag reports whether z.buf[i:] starts with z.rawTag, in any ASCII
// case, and then a space, '/' or '>': an end tag that ends raw text.
func (z *Tokenizer) rawEndTag(i int) bool {
	t := z.rawTag
	if len(z.buf)-i <= len(t) {
		return false
	}
	for k := 0; k < len(t); k++ {
		if c := z.buf[i+k]; c != t[k] && c != t[k]-('a'-'A') {
			return false
		}
	}
	switch z.buf[i+len(t)] {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		return true
	}
	return false
}

// readScript reads script data from i, following the rules for escaping
// and hiding the closing tag, and returns where it ends: at the '<' of
// its </script>, or the end of the input. It is x/net/html's readScript,
// a byte index for its reader.
func (z *Tokenizer) readScript(i int) int {
	b := z.buf
	n := len(b)
	var c byte
	// rb reads a byte; at the end it returns false.
	rb := func() bool {
		if i == n {
			return false
		}
		c = b[i]
		i++
		return true
	}

scriptData:
	// Nothing but '<' matters here: skip to it.
	if k := bytes.IndexByte(b[i:], '<'); k >= 0 {
		i += k + 1
	} else {
		return n
	}
	goto scriptDataLessThanSign

scriptDataLessThanSign:
	if !rb() {
		return n
	}
	switch c {
	case '/':
		goto scriptDataEndTagOpen
	case '!':
		goto scriptDataEscapeStart
	}
	i--
	goto scriptData

scriptDataEndTagOpen:
	if z.rawEndTag(i) {
		return i - 2
	}
	goto scriptData

scriptDataEscapeStart:
	if !rb() {
		return n
	}
	if c == '-' {
		goto scriptDataEscapeStartDash
	}
	i--
	goto scriptData

scriptDataEscapeStartDash:
	if !rb() {
		return n
	}
	if c == '-' {
		goto scriptDataEscapedDashDash
	}
	i--
	goto scriptData

scriptDataEscaped:
	if !rb() {
		return n
	}
	switch c {
	case '-':
		goto scriptDataEscapedDash
	case '<':
		goto scriptDataEscapedLessThanSign
	}
	goto scriptDataEscaped

scriptDataEscapedDash:
	if !rb() {
		return n
	}
	switch c {
	case '-':
		goto scriptDataEscapedDashDash
	case '<':
		goto scriptDataEscapedLessThanSign
	}
	goto scriptDataEscaped

scriptDataEscapedDashDash:
	if !rb() {
		return n
	}
	switch c {
	case '-':
		goto scriptDataEscapedDashDash
	case '<':
		goto scriptDataEscapedLessThanSign
	case '>':
		goto scriptData
	}
	goto scriptDataEscaped

scriptDataEscapedLessThanSign:
	if !rb() {
		return n
	}
	if c == '/' {
		goto scriptDataEscapedEndTagOpen
	}
	if isLetter(c) {
		goto scriptDataDoubleEscapeStart
	}
	i--
	goto scriptData

scriptDataEscapedEndTagOpen:
	if z.rawEndTag(i) {
		return i - 2
	}
	goto scriptDataEscaped

scriptDataDoubleEscapeStart:
	i--
	for k := 0; k < len("script"); k++ {
		if !rb() {
			return n
		}
		if c != "script"[k] && c != "SCRIPT"[k] {
			i--
			goto scriptDataEscaped
		}
	}
	if !rb() {
		return n
	}
	switch c {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		goto scriptDataDoubleEscaped
	}
	i--
	goto scriptDataEscaped

scriptDataDoubleEscaped:
	if !rb() {
		return n
	}
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedDash:
	if !rb() {
		return n
	}
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDashDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedDashDash:
	if !rb() {
		return n
	}
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDashDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	case '>':
		goto scriptData
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedLessThanSign:
	if !rb() {
		return n
	}
	if c == '/' {
		goto scriptDataDoubleEscapeEnd
	}
	i--
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapeEnd:
	if z.rawEndTag(i) {
		i += len("script") + 1
		goto scriptDataEscaped
	}
	goto scriptDataDoubleEscaped
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' }

func toLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	return c
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

package urlnorm

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file is the basic URL parser of the WHATWG URL Standard
// (https://url.spec.whatwg.org/#concept-basic-url-parser), for every
// scheme, without the state overrides that only the URL setters use. It
// follows the standard's state machine step by step, on bytes rather than
// code points: every byte of a non-ASCII character is in every
// percent-encode set, so encoding byte by byte is encoding the UTF-8 of
// the code point, as the standard does.
//
// We wrote our own rather than use github.com/nlnwa/whatwg-url: on the
// web-platform-tests it agrees with all of urltestdata.json where that
// library misses 15 cases, and it parses a typical link about ten times
// faster with a handful of allocations instead of 60-70 (numbers in
// docs/urls.md). The crawl-specific normalization lives in urlnorm.go,
// on top of this parser.

// record is a parsed URL (https://url.spec.whatwg.org/#concept-url) in
// serialized form: href is the serialization with the fragment, and the
// other string fields are substrings of it.
type record struct {
	href        string
	scheme      string // lower case, without ':'
	username    string // percent-encoded
	password    string // percent-encoded
	host        string // serialized host: domain, dotted IPv4, "[v6]", opaque host, or "" (empty host)
	hasHost     bool   // host is not null
	hostKind    hostKind
	port        string // decimal without leading zeros; "" when null (a default port is null)
	path        string // "/seg/seg", or the opaque path
	opaque      bool   // the path is opaque ("mailto:x")
	query       string // without '?'
	hasQuery    bool
	fragment    string // without '#'
	hasFragment bool
}

// hostKind tells the kinds of serialized hosts apart.
type hostKind uint8

const (
	hostDomain hostKind = iota
	hostIPv4
	hostIPv6
	hostOpaque
	hostEmpty
)

// special schemes and their default ports ("" for file, which has none).
func specialPort(scheme string) (port string, special bool) {
	switch scheme {
	case "http", "ws":
		return "80", true
	case "https", "wss":
		return "443", true
	case "ftp":
		return "21", true
	case "file":
		return "", true
	}
	return "", false
}

// parse states, named as in the standard.
type parseState uint8

const (
	stSchemeStart parseState = iota
	stScheme
	stNoScheme
	stSpecialRelativeOrAuthority
	stPathOrAuthority
	stRelative
	stRelativeSlash
	stSpecialAuthoritySlashes
	stSpecialAuthorityIgnoreSlashes
	stAuthority
	stHost
	stPort
	stFile
	stFileSlash
	stFileHost
	stPathStart
	stPath
	stOpaquePath
	stQuery
	stFragment
)

const eof = -1

// parser is the state of one run of the basic URL parser. The path,
// query and fragment are written to out as they are parsed (path, then
// '?' and the query, then '#' and the fragment); the other components
// are kept apart until the end, when href is assembled in one allocation.
type parser struct {
	in      string
	base    record // a copy, so that the caller's record stays on its stack
	hasBase bool

	scheme   string
	special  bool
	defPort  string
	username []byte
	password []byte
	host     string
	hasHost  bool
	hostKind hostKind
	port     string
	opaque   bool

	out        []byte
	queryStart int // index in out of '?', or -1
	fragStart  int // index in out of '#', or -1
	segStart   int // index in out of the current path segment, after its '/'
	inSeg      bool
	fileBuf    string // the file host state's buffer when it is a drive letter
}

// parseWHATWG runs the basic URL parser on input against base (nil for
// none). The error is a short reason; it wraps no sentinel.
func parseWHATWG(input string, base *record) (record, error) {
	p := parser{in: trimControlSpace(input), queryStart: -1, fragStart: -1}
	if base != nil {
		p.base, p.hasBase = *base, true
	}
	if strings.ContainsAny(p.in, "\t\n\r") {
		p.in = removeTabNewline(p.in)
	}
	if !utf8.ValidString(p.in) {
		// The standard parses scalar values; a browser decodes invalid
		// bytes to U+FFFD before its URL parser sees them.
		p.in = strings.ToValidUTF8(p.in, "\uFFFD")
	}
	// Room for the input and what a base may lend, plus a few escapes.
	n := len(p.in) + 16
	if p.hasBase {
		n += len(p.base.path) + len(p.base.query)
	}
	p.out = make([]byte, 0, n)
	if err := p.run(); err != nil {
		return record{}, err
	}
	return p.record(), nil
}

// errParse is a parse failure; the text is the reason.
type errParse string

func (e errParse) Error() string { return string(e) }

func (p *parser) run() error {
	in := p.in
	state := stSchemeStart
	bufStart := 0 // start in `in` of the scheme, authority, host or port buffer
	insideBrackets := false
	for i := 0; ; i++ {
		c := eof
		if i < len(in) {
			c = int(in[i])
		}
		switch state {
		case stSchemeStart:
			if isAlpha(c) {
				state, bufStart = stScheme, i
			} else {
				state = stNoScheme
				i--
			}

		case stScheme:
			switch {
			case isAlpha(c) || isDigit(c) || c == '+' || c == '-' || c == '.':
			case c == ':':
				p.setScheme(in[bufStart:i])
				rest := in[i+1:]
				switch {
				case p.scheme == "file":
					state = stFile
				case p.special && p.hasBase && p.base.scheme == p.scheme:
					state = stSpecialRelativeOrAuthority
				case p.special:
					state = stSpecialAuthoritySlashes
				case strings.HasPrefix(rest, "/"):
					state = stPathOrAuthority
					i++
				default:
					p.opaque = true
					state = stOpaquePath
				}
			default:
				state = stNoScheme
				i = -1
			}

		case stNoScheme:
			b := &p.base
			switch {
			case !p.hasBase:
				return errParse("not an absolute URL")
			case b.opaque && c != '#':
				return errParse("relative reference against a URL that cannot be a base")
			case b.opaque && c == '#':
				p.setScheme(b.scheme)
				p.opaque = true
				p.out = append(p.out, b.path...)
				p.copyQuery(b)
				p.startFragment()
				state = stFragment
			case b.scheme != "file":
				state = stRelative
				i--
			default:
				state = stFile
				i--
			}

		case stSpecialRelativeOrAuthority:
			if c == '/' && strings.HasPrefix(in[i+1:], "/") {
				state = stSpecialAuthorityIgnoreSlashes
				i++
			} else {
				state = stRelative
				i--
			}

		case stPathOrAuthority:
			if c == '/' {
				state, bufStart = stAuthority, i+1
			} else {
				state = stPath
				i--
			}

		case stRelative:
			b := &p.base
			p.setScheme(b.scheme)
			switch {
			case c == '/' || p.special && c == '\\':
				state = stRelativeSlash
			default:
				p.copyAuthority(b)
				p.out = append(p.out, b.path...)
				switch c {
				case '?':
					p.startQuery()
					state, bufStart = stQuery, i+1
				case '#':
					p.copyQuery(b)
					p.startFragment()
					state = stFragment
				case eof:
					p.copyQuery(b)
				default:
					p.shortenPath()
					state = stPath
					i--
				}
			}

		case stRelativeSlash:
			switch {
			case p.special && (c == '/' || c == '\\'):
				state = stSpecialAuthorityIgnoreSlashes
			case c == '/':
				state, bufStart = stAuthority, i+1
			default:
				p.copyAuthority(&p.base)
				state = stPath
				i--
			}

		case stSpecialAuthoritySlashes:
			if c == '/' && strings.HasPrefix(in[i+1:], "/") {
				i++
			} else {
				i--
			}
			state = stSpecialAuthorityIgnoreSlashes

		case stSpecialAuthorityIgnoreSlashes:
			if c != '/' && c != '\\' {
				state, bufStart = stAuthority, i
				i--
			}

		case stAuthority:
			// The standard collects the userinfo up to each '@'; the last
			// '@' before the end of the authority is where the host starts.
			end := i
			for end < len(in) && !p.authorityEnd(int(in[end])) {
				end++
			}
			at := strings.LastIndexByte(in[i:end], '@')
			if at >= 0 {
				at += i
				p.setUserinfo(in[i:at])
				if at+1 == end {
					return errParse("credentials without a host")
				}
				i = at + 1
			}
			state, bufStart, insideBrackets = stHost, i, false
			i--

		case stHost:
			switch {
			case c == ':' && !insideBrackets:
				if i == bufStart {
					return errParse("missing host")
				}
				if err := p.setHost(in[bufStart:i]); err != nil {
					return err
				}
				state, bufStart = stPort, i+1
			case p.authorityEnd(c):
				if p.special && i == bufStart {
					return errParse("missing host")
				}
				if err := p.setHost(in[bufStart:i]); err != nil {
					return err
				}
				state = stPathStart
				i--
			case c == '[':
				insideBrackets = true
			case c == ']':
				insideBrackets = false
			}

		case stPort:
			switch {
			case isDigit(c):
			case p.authorityEnd(c):
				if i > bufStart {
					port, ok := normalPort(in[bufStart:i])
					if !ok {
						return errParse("invalid port " + strconv.Quote(in[bufStart:i]))
					}
					if port != p.defPort {
						p.port = port
					}
				}
				state = stPathStart
				i--
			default:
				end := i
				for end < len(in) && !p.authorityEnd(int(in[end])) {
					end++
				}
				return errParse("invalid port " + strconv.Quote(in[bufStart:end]))
			}

		case stFile:
			p.setScheme("file")
			p.host, p.hasHost, p.hostKind = "", true, hostEmpty
			b := &p.base
			switch {
			case c == '/' || c == '\\':
				state = stFileSlash
			case p.hasBase && b.scheme == "file":
				p.host, p.hostKind = b.host, b.hostKind
				p.out = append(p.out, b.path...)
				switch c {
				case '?':
					p.startQuery()
					state, bufStart = stQuery, i+1
				case '#':
					p.copyQuery(b)
					p.startFragment()
					state = stFragment
				case eof:
					p.copyQuery(b)
				default:
					if !startsWithDriveLetter(in[i:]) {
						p.shortenPath()
					} else {
						p.out = p.out[:0]
					}
					state = stPath
					i--
				}
			default:
				state = stPath
				i--
			}

		case stFileSlash:
			if c == '/' || c == '\\' {
				state, bufStart = stFileHost, i+1
				break
			}
			if b := &p.base; p.hasBase && b.scheme == "file" {
				p.host, p.hostKind = b.host, b.hostKind
				if !startsWithDriveLetter(in[i:]) {
					if first := firstSegment(b.path); isNormalizedDriveLetter(first) {
						p.out = append(p.out, '/')
						p.out = append(p.out, first...)
					}
				}
			}
			state = stPath
			i--

		case stFileHost:
			if c != eof && c != '/' && c != '\\' && c != '?' && c != '#' {
				break
			}
			i--
			buf := in[bufStart : i+1]
			switch {
			case isDriveLetter(buf):
				// The drive letter quirk: the buffer becomes the first
				// path segment.
				p.fileBuf = buf
				state = stPath
			case buf == "":
				p.host, p.hostKind = "", hostEmpty
				state = stPathStart
			default:
				if err := p.setHost(buf); err != nil {
					return err
				}
				if p.host == "localhost" {
					p.host, p.hostKind = "", hostEmpty
				}
				state = stPathStart
			}

		case stPathStart:
			switch {
			case p.special:
				state = stPath
				if c != '/' && c != '\\' {
					i--
				}
			case c == '?':
				p.startQuery()
				state, bufStart = stQuery, i+1
			case c == '#':
				p.startFragment()
				state = stFragment
			case c != eof:
				state = stPath
				if c != '/' {
					i--
				}
			}

		case stPath:
			if p.fileBuf != "" {
				p.out = append(p.out, '/')
				p.segStart, p.inSeg = len(p.out), true
				p.out = append(p.out, p.fileBuf...)
				p.fileBuf = ""
			}
			if c == eof || c == '/' || p.special && c == '\\' || c == '?' || c == '#' {
				p.endSegment(c == '/' || p.special && c == '\\')
				switch c {
				case '?':
					p.startQuery()
					state, bufStart = stQuery, i+1
				case '#':
					p.startFragment()
					state = stFragment
				}
				break
			}
			if !p.inSeg {
				p.out = append(p.out, '/')
				p.segStart, p.inSeg = len(p.out), true
			}
			p.out = appendEncoded(p.out, byte(c), setPath)

		case stOpaquePath:
			switch c {
			case '?':
				p.startQuery()
				state, bufStart = stQuery, i+1
			case '#':
				p.startFragment()
				state = stFragment
			case ' ':
				if rest := in[i+1:]; strings.HasPrefix(rest, "?") || strings.HasPrefix(rest, "#") {
					p.out = append(p.out, "%20"...)
				} else {
					p.out = append(p.out, ' ')
				}
			case eof:
			default:
				p.out = appendEncoded(p.out, byte(c), setC0)
			}

		case stQuery:
			if c == '#' || c == eof {
				set := setQuery
				if p.special {
					set = setSpecialQuery
				}
				for j := bufStart; j < i; j++ {
					p.out = appendEncoded(p.out, in[j], set)
				}
				if c == '#' {
					p.startFragment()
					state = stFragment
				}
			}

		case stFragment:
			if c != eof {
				p.out = appendEncoded(p.out, byte(c), setFragment)
			}
		}
		if i >= len(in) {
			return nil
		}
	}
}

// authorityEnd reports whether c ends an authority, host or port.
func (p *parser) authorityEnd(c int) bool {
	return c == eof || c == '/' || c == '?' || c == '#' || p.special && c == '\\'
}

func (p *parser) setScheme(s string) {
	switch {
	case s == "http" || s == "https" || s == "file":
	case strings.EqualFold(s, "http"):
		s = "http"
	case strings.EqualFold(s, "https"):
		s = "https"
	default:
		s = lowerASCII(s)
	}
	p.scheme = s
	p.defPort, p.special = specialPort(s)
}

// setUserinfo splits the userinfo at its first ':' and percent-encodes it;
// every '@' in it but the last (which is not part of s) is encoded too.
func (p *parser) setUserinfo(s string) {
	pass := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ':' && !pass {
			pass = true
			continue
		}
		if pass {
			p.password = appendEncoded(p.password, c, setUserinfo)
		} else {
			p.username = appendEncoded(p.username, c, setUserinfo)
		}
	}
}

func (p *parser) setHost(s string) error {
	h, kind, err := parseHost(s, !p.special)
	if err != nil {
		return err
	}
	p.host, p.hasHost, p.hostKind = h, true, kind
	return nil
}

// copyAuthority copies the credentials, host and port of b.
func (p *parser) copyAuthority(b *record) {
	p.username = append(p.username[:0], b.username...)
	p.password = append(p.password[:0], b.password...)
	p.host, p.hasHost, p.hostKind, p.port = b.host, b.hasHost, b.hostKind, b.port
}

func (p *parser) copyQuery(b *record) {
	if b.hasQuery {
		p.startQuery()
		p.out = append(p.out, b.query...)
	}
}

func (p *parser) startQuery() {
	p.queryStart = len(p.out)
	p.out = append(p.out, '?')
}

func (p *parser) startFragment() {
	p.fragStart = len(p.out)
	p.out = append(p.out, '#')
}

// shortenPath removes the last segment of the path, which is all of out,
// except a file URL's lone drive letter.
func (p *parser) shortenPath() {
	path := p.out
	if p.scheme == "file" && len(path) == 3 && isNormalizedDriveLetter(string(path[1:])) {
		return
	}
	if i := lastIndexByte(path, '/'); i >= 0 {
		p.out = path[:i]
	}
}

// endSegment ends the path segment in progress (possibly empty) at a
// delimiter; slash reports that the delimiter is a slash.
func (p *parser) endSegment(slash bool) {
	if !p.inSeg {
		p.out = append(p.out, '/')
		p.segStart = len(p.out)
	}
	p.inSeg = false
	seg := p.out[p.segStart:]
	switch {
	case isDoubleDot(seg):
		p.out = p.out[:p.segStart-1]
		p.shortenPath()
		if !slash {
			p.out = append(p.out, '/')
		}
	case isSingleDot(seg):
		p.out = p.out[:p.segStart-1]
		if !slash {
			p.out = append(p.out, '/')
		}
	case p.scheme == "file" && p.segStart == 1 && isDriveLetter(string(seg)):
		seg[1] = ':'
	}
}

// record assembles the href and slices the components out of it.
func (p *parser) record() record {
	r := record{
		scheme: p.scheme, hasHost: p.hasHost, hostKind: p.hostKind, opaque: p.opaque,
		hasQuery: p.queryStart >= 0, hasFragment: p.fragStart >= 0,
	}
	pathEnd := len(p.out)
	switch {
	case p.queryStart >= 0:
		pathEnd = p.queryStart
	case p.fragStart >= 0:
		pathEnd = p.fragStart
	}
	// A path that starts with an empty segment, in a URL without a host,
	// would read as an authority: the standard writes "/." before it.
	dotQuirk := !p.hasHost && !p.opaque && pathEnd >= 2 && p.out[0] == '/' && p.out[1] == '/'
	var b strings.Builder
	b.Grow(len(p.scheme) + 3 + len(p.username) + len(p.password) + 2 + len(p.host) + 1 + len(p.port) + 2 + len(p.out))
	b.WriteString(p.scheme)
	b.WriteByte(':')
	var userStart, userEnd, passStart, passEnd, hostStart, hostEnd, portStart int
	if p.hasHost {
		b.WriteString("//")
		if len(p.username) > 0 || len(p.password) > 0 {
			userStart = b.Len()
			b.Write(p.username)
			userEnd = b.Len()
			if len(p.password) > 0 {
				b.WriteByte(':')
				passStart = b.Len()
				b.Write(p.password)
				passEnd = b.Len()
			}
			b.WriteByte('@')
		}
		hostStart = b.Len()
		b.WriteString(p.host)
		hostEnd = b.Len()
		if p.port != "" {
			b.WriteByte(':')
			portStart = b.Len()
			b.WriteString(p.port)
		}
	} else if dotQuirk {
		b.WriteString("/.")
	}
	pathStart := b.Len()
	b.Write(p.out)
	r.href = b.String()
	h := r.href
	r.scheme = h[:len(p.scheme)]
	r.username, r.password = h[userStart:userEnd], h[passStart:passEnd]
	r.host = h[hostStart:hostEnd]
	if p.port != "" {
		r.port = h[portStart : portStart+len(p.port)]
	}
	r.path = h[pathStart : pathStart+pathEnd]
	if p.queryStart >= 0 {
		end := len(p.out)
		if p.fragStart >= 0 {
			end = p.fragStart
		}
		r.query = h[pathStart+p.queryStart+1 : pathStart+end]
	}
	if p.fragStart >= 0 {
		r.fragment = h[pathStart+p.fragStart+1:]
	}
	return r
}

// normalPort returns the decimal digits s without leading zeros, and
// false when the value exceeds 65535.
func normalPort(s string) (string, bool) {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	if len(s) > 5 {
		return "", false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > 65535 {
		return "", false
	}
	return s, true
}

func isAlpha(c int) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c int) bool { return '0' <= c && c <= '9' }

// isDriveLetter: an ASCII letter followed by ':' or '|'.
func isDriveLetter(s string) bool {
	return len(s) == 2 && isAlpha(int(s[0])) && (s[1] == ':' || s[1] == '|')
}

// isNormalizedDriveLetter: an ASCII letter followed by ':'.
func isNormalizedDriveLetter(s string) bool {
	return len(s) == 2 && isAlpha(int(s[0])) && s[1] == ':'
}

// startsWithDriveLetter implements "starts with a Windows drive letter".
func startsWithDriveLetter(s string) bool {
	if len(s) < 2 || !isDriveLetter(s[:2]) {
		return false
	}
	if len(s) == 2 {
		return true
	}
	switch s[2] {
	case '/', '\\', '?', '#':
		return true
	}
	return false
}

// firstSegment is the first segment of a serialized path ("/a/b" → "a").
func firstSegment(path string) string {
	if path == "" {
		return ""
	}
	s := path[1:]
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s = s[:i]
	}
	return s
}

func isSingleDot(s []byte) bool {
	switch len(s) {
	case 1:
		return s[0] == '.'
	case 3:
		return s[0] == '%' && s[1] == '2' && (s[2] == 'e' || s[2] == 'E')
	}
	return false
}

func isDoubleDot(s []byte) bool {
	switch len(s) {
	case 2:
		return s[0] == '.' && s[1] == '.'
	case 4:
		return s[0] == '.' && isSingleDot(s[1:]) || isSingleDot(s[:3]) && s[3] == '.'
	case 6:
		return isSingleDot(s[:3]) && isSingleDot(s[3:])
	}
	return false
}

func lastIndexByte(b []byte, c byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// trimControlSpace removes leading and trailing C0 controls and spaces.
func trimControlSpace(s string) string {
	start, end := 0, len(s)
	for start < end && s[start] <= ' ' {
		start++
	}
	for end > start && s[end-1] <= ' ' {
		end--
	}
	return s[start:end]
}

// removeTabNewline removes every tab, LF and CR.
func removeTabNewline(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '\t' && c != '\n' && c != '\r' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

package fetch

import (
	"bytes"
	"crypto/tls"
	"maps"
	"net"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Bounds on what one capture records.
const (
	// maxRequestBytes caps the request bytes recorded; a GET is a header
	// only, and one this long is not worth archiving byte for byte.
	maxRequestBytes = 64 << 10
	// recordSlack is read beyond MaxBodyBytes and the header limit: chunk
	// framing, and what the transport's buffered reader reads ahead.
	recordSlack = 64 << 10
)

// recConn is a connection the transport uses, wrapped so that the bytes of
// one exchange can be recorded. The transport calls Read on its readLoop
// goroutine (and, for the body, on the Fetch goroutine) and Write on its
// writeLoop goroutine; the capture it is armed for is swapped atomically,
// and the capture's own mutex decides what is kept.
type recConn struct {
	net.Conn
	tls  uint16 // TLS version when dialTLS made it, else 0
	capt atomic.Pointer[capture]
}

func (c *recConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		if cp := c.capt.Load(); cp != nil {
			cp.recordRead(c, p[:n])
		}
	}
	return n, err
}

// Write records p before writing it: once the bytes are on the wire the
// server may answer, and Fetch may be done with the response (and disarm)
// before this goroutine runs again. Bytes that were not written after all
// are taken back.
func (c *recConn) Write(p []byte) (int, error) {
	cp := c.capt.Load()
	recorded := 0
	if cp != nil {
		recorded = cp.recordWrite(c, p)
	}
	n, err := c.Conn.Write(p)
	if n < recorded {
		cp.unrecordWrite(c, recorded-n)
	}
	if cp != nil && err == nil {
		cp.wroteConn(c)
	}
	return n, err
}

// capture records what the transport did for one request: timings and the
// header fields written (from httptrace hooks, which run on the
// transport's goroutines), and the bytes written and read on the
// connection while it was armed for this request.
type capture struct {
	record    bool // arm recConns; set once, before the trace runs
	mu        sync.Mutex
	start     time.Time
	firstByte time.Time
	ip        string
	tls       uint16        // TLS version of a connection dialTLS made
	fields    []headerField // request header fields in the order written

	conn      *recConn // armed connection; nil when none or disarmed
	wrote     []byte   // request bytes as written
	read      []byte   // response bytes as read
	readMax   int      // stop recording reads past this many bytes
	readsOff  bool     // the body needs no recording (no transfer coding)
	unwrapped bool     // the last attempt's connection was not a recConn

	// onWire, if set, is told once when the request is on the wire
	// (Request.Wrote); wroteReq: the transport has written the whole
	// request to its buffer (httptrace's WroteRequest), wired: onWire was
	// called.
	onWire   func(time.Time)
	wroteReq bool
	wired    bool
}

type headerField struct {
	key    string
	values []string
}

// newCapture returns a capture for one Fetch; record false leaves the
// connection unrecorded (benchmarks use it to measure the recorder's cost).
func newCapture(maxBody int64, record bool) *capture {
	return &capture{
		record:  record,
		start:   time.Now(),
		readMax: int(min(maxBody+maxResponseHeaderBytes+recordSlack+maxBody/64, 1<<62)),
	}
}

func (c *capture) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			rc, _ := info.Conn.(*recConn)
			if !c.record {
				rc = nil
			}
			c.mu.Lock()
			// The transport may retry on a fresh connection after a
			// stale keep-alive one failed: the last attempt wins.
			old := c.conn
			c.start = time.Now()
			c.firstByte = time.Time{}
			c.fields = c.fields[:0]
			c.ip = ""
			if addr := info.Conn.RemoteAddr(); addr != nil {
				if host, _, err := net.SplitHostPort(addr.String()); err == nil {
					c.ip = host
				}
			}
			c.conn = rc
			c.tls = 0
			switch conn := info.Conn.(type) {
			case *recConn:
				c.tls = conn.tls
			case *tls.Conn:
				c.tls = conn.ConnectionState().Version
			}
			c.wrote, c.read = c.wrote[:0], c.read[:0]
			c.readsOff = false
			c.wroteReq = false
			// A connection that is not ours is a TLS session the
			// transport set up inside a proxy tunnel: we only see its
			// ciphertext.
			c.unwrapped = rc == nil
			c.mu.Unlock()
			if old != nil && old != rc {
				old.capt.CompareAndSwap(c, nil)
			}
			if rc != nil {
				// Arm after the reset: bytes recorded from here on are
				// this attempt's. A read the readLoop already had pending
				// reports its bytes when it returns, by which time we
				// are armed; a previous request's bytes were all read
				// before the connection went back to the idle pool.
				rc.capt.Store(c)
			}
		},
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err != nil {
				return
			}
			c.mu.Lock()
			c.wroteReq = true
			// HTTP/2 (not a recConn) flushes its frames before this
			// hook; HTTP/1.1 flushes its buffer after it, on the armed
			// connection (wroteConn).
			fire := c.conn == nil && !c.wired && c.onWire != nil
			c.wired = c.wired || fire
			c.mu.Unlock()
			if fire {
				c.onWire(time.Now())
			}
		},
		GotFirstResponseByte: func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.firstByte = time.Now()
		},
		WroteHeaderField: func(key string, values []string) {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.fields = append(c.fields, headerField{key, append([]string(nil), values...)})
		},
	}
}

func (c *capture) recordRead(from *recConn, p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if from != c.conn || c.readsOff {
		return
	}
	if c.read == nil {
		c.read = make([]byte, 0, max(len(p), 4<<10))
	}
	if room := c.readMax - len(c.read); len(p) > room {
		p = p[:room]
	}
	c.read = append(c.read, p...)
}

// wroteConn is told that a write on from returned: once the transport
// has written the whole request (WroteRequest), the write that follows,
// its buffer's flush, puts the request's last bytes on the wire.
func (c *capture) wroteConn(from *recConn) {
	c.mu.Lock()
	fire := from == c.conn && c.wroteReq && !c.wired && c.onWire != nil
	c.wired = c.wired || fire
	c.mu.Unlock()
	if fire {
		c.onWire(time.Now())
	}
}

// recordWrite records p, or as much of it as the bound allows, and says
// how many bytes that was.
func (c *capture) recordWrite(from *recConn, p []byte) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if from != c.conn {
		return 0
	}
	if c.wrote == nil {
		c.wrote = make([]byte, 0, max(len(p), 512))
	}
	if room := maxRequestBytes - len(c.wrote); len(p) > room {
		p = p[:room]
	}
	c.wrote = append(c.wrote, p...)
	return len(p)
}

// unrecordWrite drops the last n bytes recorded as written: they were
// not written after all.
func (c *capture) unrecordWrite(from *recConn, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if from == c.conn {
		c.wrote = c.wrote[:max(len(c.wrote)-n, 0)]
	}
}

// stopBodyReads stops recording reads: called once the response header
// is parsed and the body has no transfer coding, so the body's wire bytes
// are Body itself and need not be held twice.
func (c *capture) stopBodyReads() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readsOff = true
}

// disarm stops recording. After it returns no connection adds bytes, so
// the recorded bytes are final.
func (c *capture) disarm() {
	c.mu.Lock()
	rc := c.conn
	c.conn = nil
	c.mu.Unlock()
	if rc != nil {
		rc.capt.CompareAndSwap(c, nil)
	}
}

// wire is what capture made of one exchange.
type wire struct {
	start, firstByte time.Time
	ip               string
	tls              string // TLS version of the connection, "tls/1.3"
	request          []byte
	header           []byte
	body             []byte
	reserialized     bool
}

// result returns the captured exchange for resp, whose body Fetch read
// into body (cut if truncated). Call it after disarm. Where the recorded
// bytes do not give an exact capture it falls back: the request rebuilt
// from the header fields written, the response header re-serialized, and
// body as the raw body.
func (c *capture) result(req *http.Request, resp *http.Response, body []byte, truncated bool, absolute bool) wire {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := wire{start: c.start, firstByte: c.firstByte, ip: c.ip, tls: tlsName(c.tls)}
	if resp.ProtoMajor == 2 {
		// An HTTP/2 exchange has no HTTP/1.1 bytes to keep: its HTTP/1.1
		// form is rebuilt from the fields written and the parsed response.
		w.request, w.header, w.body = c.h2Request(req), h2Header(resp), body
		w.reserialized = true
		return w
	}
	var ok bool
	if !c.unwrapped {
		w.request, ok = exactRequest(c.wrote)
	}
	if !ok {
		w.request = c.rebuiltRequest(req, absolute)
		w.reserialized = true
	}
	if !c.unwrapped {
		w.header, w.body, ok = exactResponse(c.read, resp, body, truncated)
	}
	if !ok || c.unwrapped {
		w.header, w.body = rawHeader(resp), body
		w.reserialized = true
	}
	return w
}

// rebuiltRequest is the request message rebuilt from the trace, for when
// the bytes written are not at hand. The request line is rebuilt the way
// net/http writes it; header fields come from WroteHeaderField, so they
// are the exact names, values and order the transport wrote, except
// Proxy-Authorization, which is left out so proxy credentials never reach
// the archive. c.mu is held.
func (c *capture) rebuiltRequest(req *http.Request, absolute bool) []byte {
	var host string
	for _, f := range c.fields {
		if f.key == "Host" && len(f.values) > 0 {
			host = f.values[0]
		}
	}
	target := req.URL.RequestURI()
	if absolute {
		target = req.URL.Scheme + "://" + host + target
	}
	var b strings.Builder
	b.WriteString(req.Method + " " + target + " HTTP/1.1\r\n")
	for _, f := range c.fields {
		if f.key == "Proxy-Authorization" {
			continue
		}
		for _, v := range f.values {
			b.WriteString(f.key + ": " + v + "\r\n")
		}
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}

// h2Request is an HTTP/2 request in HTTP/1.1 form: the request line from
// the :method and :path pseudo-header fields, the :authority as Host, then
// the other fields in the order and the lower case they were written in
// (HTTP/2 field names are lower case on the wire). c.mu is held.
func (c *capture) h2Request(req *http.Request) []byte {
	method, path, authority := req.Method, req.URL.RequestURI(), req.URL.Host
	for _, f := range c.fields {
		if len(f.values) == 0 {
			continue
		}
		switch f.key {
		case ":method":
			method = f.values[0]
		case ":path":
			path = f.values[0]
		case ":authority":
			authority = f.values[0]
		}
	}
	var b strings.Builder
	b.WriteString(method + " " + path + " HTTP/1.1\r\n")
	b.WriteString("host: " + authority + "\r\n")
	for _, f := range c.fields {
		if strings.HasPrefix(f.key, ":") || strings.EqualFold(f.key, "Proxy-Authorization") {
			continue
		}
		for _, v := range f.values {
			b.WriteString(f.key + ": " + v + "\r\n")
		}
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}

// h2Header is an HTTP/2 response header in HTTP/1.1 form: an HTTP/1.1
// status line, and the fields as received (names in lower case, as HTTP/2
// sends them), sorted by name (net/http keeps no order).
func h2Header(resp *http.Response) []byte {
	reason := strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)))
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 " + strconv.Itoa(resp.StatusCode) + " " + reason + "\r\n")
	for _, k := range slices.Sorted(maps.Keys(resp.Header)) {
		name := strings.ToLower(k)
		for _, v := range resp.Header[k] {
			b.WriteString(name + ": " + v + "\r\n")
		}
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

// exactRequest returns the request message in wrote, up to and including
// the empty line, minus any Proxy-Authorization field line; ok is false
// when wrote holds no complete request header.
func exactRequest(wrote []byte) ([]byte, bool) {
	end := bytes.Index(wrote, []byte("\r\n\r\n"))
	if end < 0 || !bytes.Contains(wrote[:bytes.IndexByte(wrote, '\n')], []byte(" HTTP/1.")) {
		return nil, false
	}
	msg := wrote[:end+4]
	out := make([]byte, 0, len(msg))
	for len(msg) > 0 {
		i := bytes.IndexByte(msg, '\n') + 1
		line := msg[:i]
		msg = msg[i:]
		name, _, found := bytes.Cut(line, []byte(":"))
		if found && strings.EqualFold(string(bytes.TrimSpace(name)), "Proxy-Authorization") {
			continue
		}
		out = append(out, line...)
	}
	return out, true
}

// exactResponse splits the bytes read into the final response's header
// block (1xx interim responses dropped) and its body as received. When the
// body has no transfer coding, its wire bytes are body itself, which is
// returned (not copied). A chunked body is cut where its framing ends, or,
// for a truncated body, where the data reached len(body). ok is false when
// the bytes do not hold what resp and body say they should.
func exactResponse(read []byte, resp *http.Response, body []byte, truncated bool) (header, rawBody []byte, ok bool) {
	var rest []byte
	for {
		end, code, ok := headerBlock(read)
		if !ok {
			return nil, nil, false
		}
		if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
			read = read[end:]
			continue
		}
		if code != resp.StatusCode {
			return nil, nil, false
		}
		header, rest = read[:end], read[end:]
		break
	}

	if !chunked(resp) || !bodyAllowed(resp.StatusCode) {
		// Whatever of the body was recorded must agree with it.
		n := min(len(rest), len(body))
		if !bytes.Equal(rest[:n], body[:n]) {
			return nil, nil, false
		}
		return bytes.Clone(header), body, true
	}
	end, ok := chunkedEnd(rest, body, truncated)
	if !ok {
		return nil, nil, false
	}
	return bytes.Clone(header), rest[:end:end], true
}

// bodyAllowed reports whether a response with this status can have a
// body at all (RFC 9110 §6.4.1), whatever its header says.
func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// chunked reports whether resp's body came with chunked transfer coding
// (the only one net/http accepts).
func chunked(resp *http.Response) bool {
	return len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked"
}

// headerBlock finds the response header block at the start of b: a status
// line "HTTP/x.y NNN …" and fields up to the first empty line, lines ending
// in CRLF or a bare LF as received. It returns the offset just past the
// empty line and the status code.
func headerBlock(b []byte) (end, code int, ok bool) {
	if !bytes.HasPrefix(b, []byte("HTTP/")) {
		return 0, 0, false
	}
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return 0, 0, false
	}
	_, after, found := bytes.Cut(b[:nl], []byte(" "))
	if !found || len(after) < 3 {
		return 0, 0, false
	}
	code, err := strconv.Atoi(string(after[:3]))
	if err != nil {
		return 0, 0, false
	}
	for pos := nl + 1; pos < len(b); {
		i := bytes.IndexByte(b[pos:], '\n')
		if i < 0 {
			return 0, 0, false
		}
		line := b[pos : pos+i]
		pos += i + 1
		if len(line) == 0 || (len(line) == 1 && line[0] == '\r') {
			return pos, code, true
		}
	}
	return 0, 0, false
}

// chunkedEnd walks the chunked framing at the start of wire, checking that
// its data is body. For a complete body it returns the offset just past
// the last chunk and trailer section; for a truncated one, the offset
// where the data reached len(body).
func chunkedEnd(wire, body []byte, truncated bool) (int, bool) {
	pos, got := 0, 0
	for {
		if truncated && got == len(body) {
			return pos, true
		}
		i := bytes.IndexByte(wire[pos:], '\n')
		if i < 0 {
			return 0, false
		}
		line := wire[pos : pos+i]
		pos += i + 1
		if j := bytes.IndexByte(line, ';'); j >= 0 {
			line = line[:j] // chunk extensions
		}
		size, err := strconv.ParseUint(string(bytes.Trim(line, " \t\r")), 16, 63)
		if err != nil {
			return 0, false
		}
		if size == 0 {
			if truncated {
				return 0, false
			}
			// Trailer section: fields up to an empty line.
			for {
				i := bytes.IndexByte(wire[pos:], '\n')
				if i < 0 {
					return 0, false
				}
				line := wire[pos : pos+i]
				pos += i + 1
				if len(line) == 0 || (len(line) == 1 && line[0] == '\r') {
					return pos, got == len(body)
				}
			}
		}
		n := int(min(size, uint64(len(wire)-pos)))
		if truncated {
			n = min(n, len(body)-got)
		}
		if got+n > len(body) || !bytes.Equal(wire[pos:pos+n], body[got:got+n]) {
			return 0, false
		}
		pos += n
		got += n
		if uint64(n) < size {
			if truncated && got == len(body) {
				return pos, true
			}
			return 0, false
		}
		switch {
		case bytes.HasPrefix(wire[pos:], []byte("\r\n")):
			pos += 2
		case bytes.HasPrefix(wire[pos:], []byte("\n")):
			pos++
		case truncated && got == len(body) && pos == len(wire):
			return pos, true
		default:
			return 0, false
		}
	}
}

package fakeweb

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"image"
	"image/png"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// streamKind says which hostile body is written piece by piece rather
// than held in response.body.
type streamKind uint8

const (
	streamNone streamKind = iota
	streamDrip
	streamBig
	streamGzipBomb
	streamZstdBomb
)

// errStopped ends a stream when the web is closed.
var errStopped = errors.New("fakeweb: web closed")

// hostileGate answers a request before its resource does, if it must:
// the storm host's 503s and the first failures of each retry page.
func (w *Web) hostileGate(host int, res resource, now time.Time) (response, bool) {
	cfg := w.cfg.HostileConfig
	if host == w.stormHost() {
		if left := w.hostile.stormLeft(now, cfg.StormFor); left > 0 && !res.robots() {
			resp := plain(http.StatusServiceUnavailable)
			if cfg.StormRetryAfter {
				resp.retryAfter = (left + time.Second - 1).Truncate(time.Second)
			}
			return resp, true
		}
	}
	if res.kind != resHostile || !isRetryPage(res.n) || w.hostile.try(host, res.n) > cfg.RetryFailures {
		return response{}, false
	}
	var resp response
	switch res.n {
	case hxRetry429:
		resp = plain(http.StatusTooManyRequests)
		resp.retryAfter = cfg.RetryAfter
	case hxRetry503:
		resp = plain(http.StatusServiceUnavailable)
		resp.retryAfter, resp.retryDate = cfg.RetryAfter, true
	case hxBare429:
		resp = plain(http.StatusTooManyRequests)
	default:
		resp = plain(http.StatusServiceUnavailable)
	}
	return resp, true
}

func isRetryPage(n int) bool {
	return n == hxRetry429 || n == hxRetry503 || n == hxBare429 || n == hxBare503
}

// retryHeader spells a Retry-After of d sent at now, in seconds or as an
// HTTP-date, and returns the time before which the client must not
// come back: the date is rounded up to the second, so that it is never
// sooner than now+d.
func retryHeader(now time.Time, d time.Duration, date bool) (string, time.Time) {
	until := now.Add(d)
	if !date {
		return strconv.Itoa(int(d / time.Second)), until
	}
	t := until.Round(0).Truncate(time.Second)
	if t.Before(until) {
		t = t.Add(time.Second)
	}
	return t.UTC().Format(http.TimeFormat), t
}

// validators gives a page of a hostile host an ETag and a Last-Modified.
func (w *Web) validators(resp *response, host, n int) {
	h := fnv.New64a()
	h.Write(resp.body)
	resp.etag = `"` + strconv.FormatUint(h.Sum64(), 16) + `"`
	resp.lastModified = time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC).
		Add(time.Duration(n)*time.Hour + time.Duration(host)*time.Minute)
}

// notModified decides a conditional GET by RFC 9110 section 13.2.2: an
// If-None-Match, when present, is decided alone (weak comparison, "*"
// matches); else an If-Modified-Since not earlier than Last-Modified.
func notModified(h http.Header, etag string, lastModified time.Time) bool {
	if inm := h.Values("If-None-Match"); len(inm) > 0 {
		for _, v := range inm {
			for tag := range strings.SplitSeq(v, ",") {
				tag = strings.TrimSpace(tag)
				if tag == "*" || strings.TrimPrefix(tag, "W/") == strings.TrimPrefix(etag, "W/") {
					return true
				}
			}
		}
		return false
	}
	ims := h.Get("If-Modified-Since")
	if ims == "" {
		return false
	}
	t, err := http.ParseTime(ims)
	return err == nil && !lastModified.After(t)
}

// hostileResponse computes the answer of hostile resource n of host once
// it has passed hostileGate.
func (w *Web) hostileResponse(host, n int) response {
	name := w.hostName(host)
	spec := hostileSpecs[n]
	abs := func(m int) string { return "http://" + name + hostileSpecs[m].path }
	switch n {
	case hxSlow:
		resp := w.linksPage(host, "A slow page", "<p>This page took its time.</p>\n", spec.links)
		resp.delay = w.cfg.HostileConfig.SlowDelay
		return resp
	case hxHang:
		return response{hang: true}
	case hxDrip:
		return response{status: http.StatusOK, contentType: htmlType, stream: streamDrip, length: -1}
	case hxBig:
		return response{status: http.StatusOK, contentType: htmlType, stream: streamBig, length: bigSize}
	case hxGzipBomb, hxZstdBomb:
		b := w.bombs.get()
		resp := response{status: http.StatusOK, contentType: htmlType, encoding: "gzip", stream: streamGzipBomb,
			length: int64(len(b.gzipHead) + bombUnits*len(b.gzipUnit))}
		if n == hxZstdBomb {
			resp.encoding, resp.stream = "zstd", streamZstdBomb
			resp.length = int64(len(b.zstdHead) + bombUnits*len(b.zstdUnit))
		}
		return resp
	case hxChain0:
		return redirectTo(http.StatusMovedPermanently, abs(hxChain1))
	case hxChain1:
		return redirectTo(http.StatusFound, hostileSpecs[hxChain2].path) // root-relative
	case hxChain2:
		return redirectTo(http.StatusPermanentRedirect, abs(hxChainEnd))
	case hxLoopA:
		return redirectTo(http.StatusFound, abs(hxLoopB))
	case hxLoopB:
		return redirectTo(http.StatusFound, abs(hxLoopA))
	case hxLoopSelf:
		return redirectTo(http.StatusMovedPermanently, abs(hxLoopSelf))
	case hxCross:
		return redirectTo(http.StatusMovedPermanently, "http://"+w.hostName(w.crossHost(host))+hostileSpecs[hxLanding].path)
	case hxRelative:
		// Relative to /x/relative: /x/relative-end.
		return redirectTo(http.StatusTemporaryRedirect, strings.TrimPrefix(hostileSpecs[hxRelativeEnd].path, hostilePrefix))
	case hx404:
		return plain(http.StatusNotFound)
	case hx410:
		return plain(http.StatusGone)
	case hx500:
		return plain(http.StatusInternalServerError)
	case hxPDF, hxPNG, hxJSON, hxText:
		return w.hostileFile(host, n)
	case hxUntyped:
		resp := w.linksPage(host, "Served without a Content-Type", "<p>Sniff me.</p>\n", spec.links)
		resp.untyped = true
		return resp
	case hxMalformed:
		return malformedPage(name)
	case hxBigTail:
		return leafPage(name, "Beyond ten mebibytes", "<p>Only the far end of a very big page links here.</p>\n")
	}
	if k := n - hxCharset; k >= 0 && k < len(charsetPages) {
		return w.charsetPage(host, k)
	}
	return w.linksPage(host, "Hostile web: "+spec.name, "<p>A page of the hostile web.</p>\n", spec.links)
}

// linksPage is a leaf page that also links to hostile resources of host.
func (w *Web) linksPage(host int, title, text string, links []int) response {
	var b strings.Builder
	b.WriteString(text)
	if len(links) > 0 {
		b.WriteString("<p>")
		for _, m := range links {
			b.WriteString(`<a href="` + hostileSpecs[m].path + `">` + hostileSpecs[m].name + "</a> ")
		}
		b.WriteString("</p>\n")
	}
	return leafPage(w.hostName(host), title, b.String())
}

// redirectTo answers status with Location loc, as written.
func redirectTo(status int, loc string) response {
	body := "<!DOCTYPE html>\n<title>" + http.StatusText(status) + "</title>\n<a href=\"" + loc + "\">" + http.StatusText(status) + "</a>\n"
	return response{status: status, contentType: htmlType, location: loc, body: []byte(body)}
}

// hostileFile answers the non-HTML files. The URLs in them are not links:
// a crawler that reads them asks for pages that do not exist.
func (w *Web) hostileFile(host, n int) response {
	never := "http://h0" + w.dotDomain + "/never-follow-me"
	own := "http://" + w.hostName(host) + hostilePrefix + "never-follow-"
	var ct, body string
	switch n {
	case hxPDF:
		ct = pdfType
		body = "%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" +
			"2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n" +
			"3 0 obj\n<< /Type /Action /S /URI /URI (" + never + ") >>\nendobj\n" +
			"trailer\n<< /Root 1 0 R >>\n%%EOF\n"
	case hxPNG:
		var b bytes.Buffer
		// Encoding a tiny image into a buffer cannot fail.
		_ = png.Encode(&b, image.NewGray(image.Rect(0, 0, 2, 2)))
		return response{status: http.StatusOK, contentType: "image/png", body: b.Bytes()}
	case hxJSON:
		ct = "application/json"
		body = `{"title": "Not a page", "links": ["` + never + `", "` + own + `json"], "html": "<a href=\"` + own + `json-html\">x</a>"}` + "\n"
	default:
		ct = plainType
		body = "Plain text is not HTML. See " + never + " and " + own + "text,\n" +
			"or <a href=\"" + own + "text-html\">this</a>, which is no link either.\n"
	}
	return response{status: http.StatusOK, contentType: ct, body: []byte(body)}
}

// charsetPage renders charset page k: markup in its legacy charset with
// one link whose path has non-ASCII text, and one whose query has.
func (w *Web) charsetPage(host, k int) response {
	cp := charsetPages[k]
	path, query := hostileSpecs[hxCharsetTarget+2*k].path, hostileSpecs[hxCharsetTarget+2*k+1]
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html>\n<head>\n")
	ct := "text/html"
	switch {
	case cp.http:
		ct += "; charset=" + cp.label
	case cp.equiv:
		b.WriteString(`<meta http-equiv="Content-Type" content="text/html; charset=` + cp.label + "\">\n")
	default:
		b.WriteString(`<meta charset="` + cp.label + "\">\n")
	}
	b.WriteString("<title>" + cp.pathWord + " - " + w.hostName(host) + "</title>\n</head>\n<body>\n<h1>" + cp.pathWord + "</h1>\n")
	b.WriteString(`<p><a href="` + path + `">` + cp.pathWord + "</a></p>\n")
	b.WriteString(`<p><a href="` + query.path + "?q=" + cp.queryWrd + `">` + cp.queryWrd + "</a></p>\n")
	b.WriteString("<p><a href=\"/\">Home</a></p>\n</body>\n</html>\n")
	return response{status: http.StatusOK, contentType: ct, body: []byte(mustEncode(cp.enc, b.String()))}
}

// malformedPage is tag soup whose links an HTML5 tokenizer still finds:
// all before the unterminated comment that ends it.
func malformedPage(name string) response {
	body := "<!DOCTYPE html>\n<html><head><title>Malformed - " + name + "</title>\n<body>\n" +
		"<div class=broken><p>Unclosed paragraph <b>bold <i>italic\n" +
		"<a href=" + hostileSpecs[hxMal0].path + " class=first>zero</a>\n" +
		"<a\nclass=\"second\"\nhref=\"" + hostileSpecs[hxMal1].path + "\"\ntitle=\"split\nacross lines\">one</a>\n" +
		"<p>A NUL byte: \x00 here.\n" +
		"</html>\n" +
		"<p>After a stray end tag: <a href='" + hostileSpecs[hxMal2].path + "'>two</a>\n" +
		"<table><tr><td>cell<td><a href=/>home</a>\n" +
		"<!-- unterminated comment <a href=\"" + hostilePrefix + "never-follow-comment\">never</a>\n"
	return response{status: http.StatusOK, contentType: htmlType, body: []byte(body)}
}

// writeHostileLinks writes the links of a hostile host's home page.
func writeHostileLinks(p *pageWriter) {
	p.s("<ul class=\"hostile\">\n")
	for _, s := range hostileSpecs {
		if s.home {
			p.s(`<li><a href="`, s.path, `">`, s.name, "</a></li>\n")
		}
	}
	p.s("</ul>\n")
}

// hostileLinks returns the links of hostile page n of host, in the ground
// truth's terms.
func hostileLinks(host, n int) []target {
	var out []target
	for _, m := range hostileSpecs[n].links {
		out = append(out, target{host: host, kind: resHostile, n: m})
	}
	return append(out, target{host: host, kind: resPage})
}

// writeStream writes the body of a streamed hostile resource. A client
// that goes away ends it; so does Close, which drops the connection.
func (w *Web) writeStream(ctx context.Context, rw http.ResponseWriter, host int, kind streamKind) {
	rc := http.NewResponseController(rw)
	if !w.streams.add(rc) {
		panic(http.ErrAbortHandler)
	}
	defer w.streams.remove(rc)
	var err error
	switch kind {
	case streamDrip:
		err = w.drip(ctx, rw, rc)
	case streamBig:
		err = w.writeBig(rw, host)
	case streamGzipBomb:
		b := w.bombs.get()
		err = w.writeBomb(rw, b.gzipHead, b.gzipUnit)
	case streamZstdBomb:
		b := w.bombs.get()
		err = w.writeBomb(rw, b.zstdHead, b.zstdUnit)
	}
	if errors.Is(err, errStopped) {
		panic(http.ErrAbortHandler)
	}
	// Any other error means the client went away.
}

func (w *Web) stopped() bool {
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}

const (
	dripHead = "<!DOCTYPE html>\n<html><head><title>Drip</title></head><body>\n<p>"
	dripTail = "</p>\n</body></html>\n"
)

// drip sends a few bytes every DripInterval for DripFor.
func (w *Web) drip(ctx context.Context, rw io.Writer, rc *http.ResponseController) error {
	cfg := w.cfg.HostileConfig
	if _, err := io.WriteString(rw, dripHead); err != nil {
		return err
	}
	if err := rc.Flush(); err != nil {
		return err
	}
	tick := time.NewTicker(cfg.DripInterval)
	defer tick.Stop()
	end := time.NewTimer(cfg.DripFor)
	defer end.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-w.stop:
			return errStopped
		case <-end.C:
			_, err := io.WriteString(rw, dripTail)
			return err
		case <-tick.C:
			if _, err := io.WriteString(rw, dripBytes); err != nil {
				return err
			}
			if err := rc.Flush(); err != nil {
				return err
			}
		}
	}
}

// bigParts are the fixed pieces of /x/big of host; filler text makes up
// the rest of its bigSize bytes.
func (w *Web) bigParts(host int) (head, tailLink, end string) {
	head = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>A very big page - " + w.hostName(host) +
		"</title>\n</head>\n<body>\n<h1>A very big page</h1>\n<p><a href=\"" + hostileSpecs[hxBigNext].path +
		"\">Read on</a> <a href=\"/\">Home</a></p>\n<p>"
	tailLink = "</p>\n<p><a href=\"" + hostileSpecs[hxBigTail].path + "\">Beyond ten mebibytes</a></p>\n<p>"
	return head, tailLink, "</p>\n</body>\n</html>\n"
}

// writeBig streams /x/big: head, filler up to bigTailAt, a link no
// correct crawl reads, filler, end.
func (w *Web) writeBig(rw io.Writer, host int) error {
	head, tailLink, end := w.bigParts(host)
	var fb strings.Builder
	for i := 0; fb.Len() < 32<<10; i++ {
		fb.WriteString(words[i*7%len(words)])
		if i%12 == 11 {
			fb.WriteByte('\n')
		} else {
			fb.WriteByte(' ')
		}
	}
	filler := []byte(fb.String())
	fill := func(n int) error {
		for n > 0 {
			if w.stopped() {
				return errStopped
			}
			k := min(n, len(filler))
			if _, err := rw.Write(filler[:k]); err != nil {
				return err
			}
			n -= k
		}
		return nil
	}
	for _, part := range []struct {
		text string
		fill int
	}{
		{head, bigTailAt - len(head)},
		{tailLink, bigSize - bigTailAt - len(tailLink) - len(end)},
		{end, 0},
	} {
		if _, err := io.WriteString(rw, part.text); err != nil {
			return err
		}
		if err := fill(part.fill); err != nil {
			return err
		}
	}
	return nil
}

// writeBomb writes head and then unit bombUnits times: members of one
// gzip file, or frames of one zstd stream, which decoders concatenate.
func (w *Web) writeBomb(rw io.Writer, head, unit []byte) error {
	if _, err := rw.Write(head); err != nil {
		return err
	}
	for range bombUnits {
		if w.stopped() {
			return errStopped
		}
		if _, err := rw.Write(unit); err != nil {
			return err
		}
	}
	return nil
}

// bombCache holds the compressed pieces of the bombs, made on first use:
// a head that decompresses to the start of an HTML page, and a unit that
// decompresses to bombUnit spaces, for gzip and for zstd.
type bombCache struct {
	once                                   sync.Once
	gzipHead, gzipUnit, zstdHead, zstdUnit []byte
}

const bombPrefix = "<!DOCTYPE html>\n<html><head><title>Bomb</title></head><body>\n<p>"

func (c *bombCache) get() *bombCache {
	c.once.Do(func() {
		unit := bytes.Repeat([]byte{' '}, bombUnit)
		gz := func(b []byte) []byte {
			var buf bytes.Buffer
			// Compressing into a buffer at a valid level cannot fail.
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			_, _ = zw.Write(b)
			_ = zw.Close()
			return buf.Bytes()
		}
		c.gzipHead, c.gzipUnit = gz([]byte(bombPrefix)), gz(unit)
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedBestCompression))
		if err != nil {
			panic(fmt.Sprintf("fakeweb: zstd: %v", err)) // only bad options fail
		}
		c.zstdHead = enc.EncodeAll([]byte(bombPrefix), nil)
		c.zstdUnit = enc.EncodeAll(unit, nil)
		_ = enc.Close()
	})
	return c
}

// streamSet tracks the streams in progress, so that Close can fail their
// writes at once even when a client has stopped reading.
type streamSet struct {
	mu     sync.Mutex
	closed bool
	m      map[*http.ResponseController]struct{}
}

func (s *streamSet) add(rc *http.ResponseController) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.m == nil {
		s.m = map[*http.ResponseController]struct{}{}
	}
	s.m[rc] = struct{}{}
	return true
}

func (s *streamSet) remove(rc *http.ResponseController) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, rc)
}

// close makes every write of every stream, now and later, fail.
func (s *streamSet) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for rc := range s.m {
		// Fails only if the connection does not support deadlines; the
		// stream then ends at its next check of the web's stop.
		_ = rc.SetWriteDeadline(time.Now())
	}
}

package fakeweb

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

const controlPrefix = "/_fakeweb/"

// Handler returns the handler of the whole web: forward proxy, origin of
// every virtual host and control endpoints, told apart per request:
//
//   - an absolute request-URI ("GET http://h3.fake.test/p/7") is a proxy
//     request, served as the virtual host it names;
//   - otherwise a Host header naming a virtual host ("h3.fake.test",
//     any case, optional ":80") is an origin request, served likewise;
//   - CONNECT is answered 405: the proxy speaks plain http only;
//   - a host under the domain that does not exist answers 502, as a proxy
//     that cannot resolve it would;
//   - any other host gets the control endpoints: "/" (a short help text),
//     GET /_fakeweb/seeds, GET /_fakeweb/report, GET /_fakeweb/requests
//     and POST /_fakeweb/reset. A proxy request reaches them only for a
//     path under /_fakeweb/ (other hosts answer 502).
//
// Every request but a control one is logged. Only GET and HEAD are served.
func (w *Web) Handler() http.Handler { return http.HandlerFunc(w.serveHTTP) }

func (w *Web) serveHTTP(rw http.ResponseWriter, r *http.Request) {
	connect := r.Method == http.MethodConnect
	proxy := r.URL.IsAbs() || connect
	authority := r.Host
	if r.URL.Host != "" {
		authority = r.URL.Host
	}
	host, virtual := w.lookupHost(authority)
	reqPath := r.URL.Path
	if reqPath == "" {
		reqPath = "/"
	}
	if !virtual && !connect && !w.inDomain(authority) && (!proxy || strings.HasPrefix(reqPath, controlPrefix)) {
		w.serveControl(rw, r, reqPath)
		return
	}

	name := canonicalAuthority(authority)
	if virtual {
		name = w.hostName(host)
	}
	rawURL := r.RequestURI
	if !r.URL.IsAbs() {
		scheme := "http://"
		if r.TLS != nil {
			scheme = "https://"
		}
		rawURL = scheme + r.Host + r.RequestURI
	}
	var arrival time.Time
	if !proxy && w.cfg.Now == nil { // kernel times are wall-clock times
		arrival = arrived(r)
	}
	if w.enter != nil {
		w.enter(r)
	}
	e := w.log.begin(Request{
		Arrived:   arrival,
		Method:    r.Method,
		Host:      name,
		Path:      reqPath,
		RawURL:    rawURL,
		UserAgent: r.UserAgent(),
		Proxy:     proxy,
		Proto:     r.Proto,
		Local:     localIP(r, proxy),
		Conditional: virtual && (w.cfg.Hostile || w.cfg.ConditionalRobots || w.cfg.Changing) &&
			(len(r.Header.Values("If-None-Match")) > 0 || r.Header.Get("If-Modified-Since") != ""),
	})
	defer e.finish(0) // only counts if the handler gives up without answering

	var resp response
	switch {
	case connect:
		resp = plain(http.StatusMethodNotAllowed)
	case !virtual:
		resp = plain(http.StatusBadGateway)
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		resp = plain(http.StatusMethodNotAllowed)
	default:
		res := w.resolveQuery(host, w.clean(reqPath), r.URL.RawQuery)
		if res.kind == resRobots && w.kind(host) == RobotsFlaky && w.flaky.fail(host, w.cfg.FlakyRobotsFailures) {
			resp = plain(http.StatusServiceUnavailable)
			break
		}
		if w.cfg.Hostile {
			var gated bool
			if resp, gated = w.hostileGate(host, res, w.now()); gated {
				break
			}
		}
		resp = w.respond(host, res, w.reqInfo(reqPath, r.URL.RawQuery))
		if resp.etag != "" && notModifiedResp(r.Header, resp) {
			resp = response{status: http.StatusNotModified, etag: resp.etag, lastModified: resp.lastModified, version: resp.version}
		}
	}
	if d := w.cfg.Latency + resp.delay; resp.hang || d > 0 {
		if !w.wait(r.Context(), d, resp.hang) {
			// Dropping the connection is the only way not to answer:
			// returning normally would send an empty 200.
			panic(http.ErrAbortHandler)
		}
	}
	var until time.Time
	if resp.retryAfter > 0 {
		resp.retryHeader, until = retryHeader(w.now(), resp.retryAfter, resp.retryDate)
	}
	e.version = resp.version
	e.finishUntil(resp.status, until)
	head := r.Method == http.MethodHead
	resp.write(rw, head)
	if resp.stream != streamNone && !head {
		w.writeStream(r.Context(), rw, host, resp.stream)
	}
}

// wait sleeps for d, or forever, until ctx is done or the web is closed.
// It reports whether the sleep ran its course.
func (w *Web) wait(ctx context.Context, d time.Duration, forever bool) bool {
	var timeout <-chan time.Time
	if !forever {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
		return true
	case <-ctx.Done():
		return false
	case <-w.stop:
		return false
	}
}

func (resp response) write(rw http.ResponseWriter, head bool) {
	h := rw.Header()
	if resp.etag != "" {
		h.Set("ETag", resp.etag)
		h.Set("Last-Modified", resp.lastModified.UTC().Format(http.TimeFormat))
	}
	if resp.status == http.StatusNotModified {
		rw.WriteHeader(resp.status)
		return
	}
	switch {
	case resp.untyped:
		// A nil entry keeps the server from sniffing one.
		h["Content-Type"] = nil
	default:
		h.Set("Content-Type", resp.contentType)
	}
	switch {
	case resp.chunked:
	case resp.stream == streamNone:
		h.Set("Content-Length", strconv.Itoa(len(resp.body)))
	case resp.length >= 0:
		h.Set("Content-Length", strconv.FormatInt(resp.length, 10))
	}
	if resp.encoding != "" {
		h.Set("Content-Encoding", resp.encoding)
	}
	if resp.retryHeader != "" {
		h.Set("Retry-After", resp.retryHeader)
	}
	if resp.location != "" {
		h.Set("Location", resp.location)
	}
	if resp.robotsTag != "" {
		h.Set("X-Robots-Tag", resp.robotsTag)
	}
	if resp.status == http.StatusMethodNotAllowed {
		h.Set("Allow", "GET, HEAD")
	}
	rw.WriteHeader(resp.status)
	if head || resp.stream != streamNone {
		return
	}
	body := resp.body
	if resp.chunked {
		// Flushing part of the body before the rest makes the server send
		// it chunked, whatever its size.
		half := len(body) / 2
		_, _ = rw.Write(body[:half])
		_ = http.NewResponseController(rw).Flush()
		body = body[half:]
	}
	// An error means the client went away; the log already has the
	// answer we meant to give.
	_, _ = rw.Write(body)
}

func (w *Web) serveControl(rw http.ResponseWriter, r *http.Request, p string) {
	read := r.Method == http.MethodGet || r.Method == http.MethodHead
	switch {
	case p == "/" && read:
		w.writeHelp(rw)
	case p == controlPrefix+"seeds" && read:
		writeJSON(rw, http.StatusOK, w.Seeds())
	case p == controlPrefix+"requests" && read:
		writeJSON(rw, http.StatusOK, w.Requests())
	case p == controlPrefix+"report" && read:
		j, err := parseJudge(r.URL.Query())
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(rw, http.StatusOK, w.Report(j))
	case p == controlPrefix+"reset" && r.Method == http.MethodPost:
		w.Reset()
		rw.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(rw, r)
	}
}

func (w *Web) writeHelp(rw http.ResponseWriter) {
	rw.Header().Set("Content-Type", plainType)
	// Errors mean the client went away.
	_, _ = fmt.Fprintf(rw, `godwit fakeweb: %d hosts (h0..h%d.%s), %d pages each.

Use this address as an HTTP proxy (plain http only; CONNECT is refused),
or send requests here with a Host header naming a virtual host.

GET  /_fakeweb/seeds       seed URLs (JSON)
GET  /_fakeweb/report      the server-side judgment (JSON); parameters:
                           delay=1s max_depth=3 tolerance=0s seed=URL (repeatable)
                           revisits=true freshness_from=RFC3339 freshness_to=RFC3339
GET  /_fakeweb/requests    the request log (JSON)
POST /_fakeweb/reset       clear the request log
`, w.cfg.Hosts, w.cfg.Hosts-1, w.cfg.Domain, w.cfg.PagesPerHost)
}

// parseJudge reads a Judge from report query parameters.
func parseJudge(q url.Values) (Judge, error) {
	var j Judge
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{{"delay", &j.Delay}, {"tolerance", &j.Tolerance}} {
		s := q.Get(d.name)
		if s == "" {
			continue
		}
		v, err := time.ParseDuration(s)
		if err != nil || v < 0 {
			return Judge{}, fmt.Errorf("fakeweb: %s=%q is not a non-negative duration such as 1s or 250ms", d.name, s)
		}
		*d.dst = v
	}
	if s := q.Get("max_depth"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return Judge{}, fmt.Errorf("fakeweb: max_depth=%q is not a non-negative integer", s)
		}
		j.MaxDepth = v
	}
	j.Seeds = q["seed"]
	if s := q.Get("revisits"); s != "" {
		v, err := strconv.ParseBool(s)
		if err != nil {
			return Judge{}, fmt.Errorf("fakeweb: revisits=%q is not a boolean", s)
		}
		j.Revisits = v
	}
	for _, d := range []struct {
		name string
		dst  *time.Time
	}{{"freshness_from", &j.FreshnessFrom}, {"freshness_to", &j.FreshnessTo}} {
		s := q.Get(d.name)
		if s == "" {
			continue
		}
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return Judge{}, fmt.Errorf("fakeweb: %s=%q is not an RFC 3339 time", d.name, s)
		}
		*d.dst = v
	}
	return j, nil
}

func writeJSON(rw http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(rw, "fakeweb: "+err.Error(), http.StatusInternalServerError)
		return
	}
	b = append(b, '\n')
	rw.Header().Set("Content-Type", "application/json")
	rw.Header().Set("Content-Length", strconv.Itoa(len(b)))
	rw.WriteHeader(status)
	// An error means the client went away.
	_, _ = rw.Write(b)
}

// localIP is the IP address a direct request arrived on ("" through the
// proxy, or when the server does not say).
func localIP(r *http.Request, proxy bool) string {
	if proxy {
		return ""
	}
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return ""
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return ""
	}
	return ap.Addr().Unmap().String()
}

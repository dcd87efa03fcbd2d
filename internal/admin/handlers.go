package admin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
)

//go:embed openapi.json
var openAPIDoc []byte

// Limits on what one request may ask.
const (
	defaultHostsLimit = 50
	maxHostsLimit     = 1000
	maxSeeds          = 10000
	maxURLLength      = 8192
)

// hostSorts are the orders GET /api/hosts accepts.
var hostSorts = map[string]bool{"queued": true, "fetched": true, "errors": true}

// Action endpoints (policy, block, unblock, recrawl, pause, resume) answer
// 204 No Content; the dashboard reads the new state with a GET.

func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	st := s.b.Status()
	if st.Errors == nil {
		st.Errors = map[string]int64{}
	}
	if st.Rate == nil {
		st.Rate = []RatePoint{}
	}
	if st.TopHosts == nil {
		st.TopHosts = []HostRequests{}
	}
	if st.Recrawl != nil {
		rc := *st.Recrawl // the backend's, perhaps shared: not ours to change
		rc.NotModifiedShare = 0
		if rc.Revisits > 0 {
			rc.NotModifiedShare = float64(rc.NotModified) / float64(rc.Revisits)
		}
		st.Recrawl = &rc
	}
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) addSeeds(w http.ResponseWriter, r *http.Request) {
	var req SeedsRequest
	if !decode(w, r, &req) {
		return
	}
	switch {
	case len(req.URLs) == 0:
		writeError(w, http.StatusBadRequest, "urls: at least one URL is required")
		return
	case len(req.URLs) > maxSeeds:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("urls: at most %d URLs per request", maxSeeds))
		return
	case req.Priority < 0:
		writeError(w, http.StatusBadRequest, "priority: must not be negative")
		return
	}
	res, err := s.b.AddSeeds(r.Context(), req.URLs, req.Priority)
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	if res.Rejected == nil {
		res.Rejected = []Rejection{}
	}
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) listHosts(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	sort := q.Get("sort")
	if sort == "" {
		sort = "queued"
	}
	if !hostSorts[sort] {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("sort: %q is not one of queued, fetched, errors", sort))
		return
	}
	limit := defaultHostsLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxHostsLimit {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("limit: %q is not a number from 1 to %d", v, maxHostsLimit))
			return
		}
		limit = n
	}
	hosts, err := s.b.Hosts(r.Context(), sort, limit)
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	if hosts == nil {
		hosts = []Host{}
	}
	writeJSON(w, http.StatusOK, hosts)
}

func (s *Server) host(w http.ResponseWriter, r *http.Request) {
	name, ok := hostParam(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	if by := r.Header.Get(ForwardedHeader); by != "" {
		ctx = context.WithValue(ctx, forwardedKey{}, by)
	}
	h, err := s.b.Host(ctx, name)
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, h)
}

func (s *Server) setPolicy(w http.ResponseWriter, r *http.Request) {
	name, ok := hostParam(w, r)
	if !ok {
		return
	}
	var p HostPolicy
	if !decode(w, r, &p) {
		return
	}
	switch {
	case p.DelayMS == nil && p.MaxPages == nil:
		writeError(w, http.StatusBadRequest, "empty policy: set delay_ms or max_pages (DELETE the policy to clear it)")
		return
	case p.DelayMS != nil && *p.DelayMS < 0:
		writeError(w, http.StatusBadRequest, "delay_ms: must not be negative")
		return
	case p.MaxPages != nil && *p.MaxPages < 0:
		writeError(w, http.StatusBadRequest, "max_pages: must not be negative")
		return
	}
	s.act(w, r, func() error { return s.b.SetHostPolicy(r.Context(), name, p) }, "set policy", name)
}

func (s *Server) clearPolicy(w http.ResponseWriter, r *http.Request) {
	if name, ok := hostParam(w, r); ok {
		s.act(w, r, func() error { return s.b.ClearHostPolicy(r.Context(), name) }, "clear policy", name)
	}
}

func (s *Server) block(w http.ResponseWriter, r *http.Request) {
	if name, ok := hostParam(w, r); ok {
		s.act(w, r, func() error { return s.b.Block(r.Context(), name) }, "block", name)
	}
}

func (s *Server) unblock(w http.ResponseWriter, r *http.Request) {
	if name, ok := hostParam(w, r); ok {
		s.act(w, r, func() error { return s.b.Unblock(r.Context(), name) }, "unblock", name)
	}
}

func (s *Server) setRecrawl(w http.ResponseWriter, r *http.Request) {
	var req RecrawlRequest
	if !decode(w, r, &req) {
		return
	}
	switch {
	case req.RevisitShare == nil:
		writeError(w, http.StatusBadRequest, "revisit_share: required (a number from 0 to 1)")
		return
	case !(*req.RevisitShare >= 0 && *req.RevisitShare <= 1):
		writeError(w, http.StatusBadRequest, fmt.Sprintf("revisit_share: %g is not a number from 0 to 1", *req.RevisitShare))
		return
	}
	share := *req.RevisitShare
	s.act(w, r, func() error { return s.b.SetRevisitShare(r.Context(), share) }, "set revisit share", "", "share", share)
}

func (s *Server) pause(w http.ResponseWriter, r *http.Request) {
	s.act(w, r, func() error { s.b.Pause(); return nil }, "pause", "")
}

func (s *Server) resume(w http.ResponseWriter, r *http.Request) {
	s.act(w, r, func() error { s.b.Resume(); return nil }, "resume", "")
}

// act runs an operator action, logs it (actions change the crawl, so they
// are logged at Info, with attrs) and answers 204.
func (s *Server) act(w http.ResponseWriter, r *http.Request, f func() error, what, host string, attrs ...any) {
	if err := f(); err != nil {
		s.backendError(w, r, err)
		return
	}
	s.o.Logger.Info("admin action", append([]any{"action", what, "host", host, "remote", r.RemoteAddr}, attrs...)...)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) url(w http.ResponseWriter, r *http.Request) {
	raw := r.URL.Query().Get("url")
	switch {
	case raw == "":
		writeError(w, http.StatusBadRequest, "url: the url parameter is required")
		return
	case len(raw) > maxURLLength:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("url: longer than %d bytes", maxURLLength))
		return
	}
	info, err := s.b.URL(r.Context(), raw)
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	info.MeanChangeIntervalSeconds = 0
	if info.ChangeRate > 0 {
		info.MeanChangeIntervalSeconds = 1 / info.ChangeRate
	}
	writeJSON(w, http.StatusOK, info)
}

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(openAPIDoc)
}

func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	if s.o.Metrics == nil {
		writeError(w, http.StatusNotFound, "metrics are not enabled")
		return
	}
	s.o.Metrics.ServeHTTP(w, r)
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	if s.o.UI == nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "godwit admin: the dashboard is not built into this binary.\nThe API is at /api/ (described by /api/openapi.json).\n")
		return
	}
	s.serveFile(w, r, "index.html")
}

func (s *Server) static(w http.ResponseWriter, r *http.Request) {
	if s.o.UI == nil {
		writeError(w, http.StatusNotFound, "the dashboard is not built into this binary")
		return
	}
	s.serveFile(w, r, r.PathValue("path"))
}

// serveFile serves one file of the UI (never a directory listing).
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, name string) {
	if !fs.ValidPath(name) {
		writeError(w, http.StatusNotFound, "no such file")
		return
	}
	data, err := fs.ReadFile(s.o.UI, name)
	if err != nil {
		// A directory, or missing: either way not a file to serve.
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such file: %s", name))
		return
	}
	// The dashboard's files change only with the binary; they may be
	// revalidated but never cached across a restart blindly.
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}

// hostParam is the {host} of the path, checked for plausibility; the
// backend decides whether it knows it.
func hostParam(w http.ResponseWriter, r *http.Request) (string, bool) {
	h := strings.ToLower(r.PathValue("host"))
	if h == "" || len(h) > 261 || strings.ContainsFunc(h, func(c rune) bool {
		return c == '/' || c == '?' || c == '#' || c == '@' || unicode.IsSpace(c) || unicode.IsControl(c)
	}) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("host: %q is not a host name", h))
		return "", false
	}
	return h, true
}

// decode reads r's JSON body into v: required, at most maxBody bytes, no
// unknown fields, one value.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if r.ContentLength == 0 {
		writeError(w, http.StatusBadRequest, "a JSON body is required")
		return false
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	} else if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errors.New("unexpected data after the JSON value")
		}
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("body larger than %d bytes", mbe.Limit))
			return false
		}
		if errors.Is(err, io.EOF) {
			err = errors.New("empty body")
		}
		writeError(w, http.StatusBadRequest, "bad JSON body: "+err.Error())
		return false
	}
	return true
}

// backendError answers err, classified: ErrNotFound 404, ErrInvalid 400,
// anything else 500 (and logged).
func (s *Server) backendError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, ErrInvalid):
		writeError(w, http.StatusBadRequest, err.Error())
	default:
		s.o.Logger.Error("admin request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// errorCodes are the envelope's codes by HTTP status.
var errorCodes = map[int]string{
	http.StatusBadRequest:          "bad_request",
	http.StatusUnauthorized:        "unauthorized",
	http.StatusForbidden:           "forbidden",
	http.StatusNotFound:            "not_found",
	http.StatusMethodNotAllowed:    "method_not_allowed",
	http.StatusInternalServerError: "internal",
}

func writeError(w http.ResponseWriter, status int, msg string) {
	var e ErrorBody
	e.Error.Code = errorCodes[status]
	if e.Error.Code == "" {
		e.Error.Code = "internal"
	}
	e.Error.Message = msg
	writeJSON(w, status, e)
}

package fakeweb

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// TestBombSizes checks that each bomb decompresses to about 1 GiB, from
// its pieces: decompressing the whole of it is too slow for a test.
func TestBombSizes(t *testing.T) {
	w, err := New(Config{Hosts: 1, Hostile: true})
	if err != nil {
		t.Fatal(err)
	}
	b := w.bombs.get()
	dz, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer dz.Close()
	ungzip := func(p []byte) ([]byte, error) {
		zr, err := gzip.NewReader(bytes.NewReader(p))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(zr)
	}
	unzstd := func(p []byte) ([]byte, error) { return dz.DecodeAll(p, nil) }
	for _, c := range []struct {
		name       string
		head, unit []byte
		decode     func([]byte) ([]byte, error)
		stream     streamKind
		n          int
	}{
		{"gzip", b.gzipHead, b.gzipUnit, ungzip, streamGzipBomb, hxGzipBomb},
		{"zstd", b.zstdHead, b.zstdUnit, unzstd, streamZstdBomb, hxZstdBomb},
	} {
		head, err1 := c.decode(c.head)
		unit, err2 := c.decode(c.unit)
		if err1 != nil || err2 != nil || string(head) != bombPrefix || len(unit) != bombUnit || len(bytes.Trim(unit, " ")) != 0 {
			t.Errorf("%s: head %q (%v), unit of %d bytes (%v)", c.name, head, err1, len(unit), err2)
		}
		two, err := c.decode(append(append([]byte(nil), c.unit...), c.unit...))
		if err != nil || len(two) != 2*bombUnit {
			t.Errorf("%s: two units concatenated decode to %d bytes (%v), want %d", c.name, len(two), err, 2*bombUnit)
		}
		resp := w.hostileResponse(0, c.n)
		if want := int64(len(c.head) + bombUnits*len(c.unit)); resp.length != want || resp.stream != c.stream || resp.length > 2<<20 {
			t.Errorf("%s: response of %d bytes, stream %d; want %d bytes", c.name, resp.length, resp.stream, want)
		}
		t.Logf("%s bomb: %d bytes decompress to %d", c.name, resp.length, len(head)+bombUnits*bombUnit)
	}
}

func TestNotModified(t *testing.T) {
	lm := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return lm.Add(d).Format(http.TimeFormat) }
	const etag = `"abc"`
	tests := []struct {
		inm, ims string
		want     bool
	}{
		{"", "", false},
		{etag, "", true},
		{`W/"abc"`, "", true},
		{`"x", "abc"`, "", true},
		{"*", "", true},
		{`"abcd"`, "", false},
		{`"x"`, at(time.Hour), false}, // If-None-Match decides alone
		{etag, at(-time.Hour), true},
		{"", at(0), true},
		{"", at(time.Second), true},
		{"", at(-time.Second), false},
		{"", "not a date", false},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.inm != "" {
			h.Set("If-None-Match", tt.inm)
		}
		if tt.ims != "" {
			h.Set("If-Modified-Since", tt.ims)
		}
		if got := notModified(h, etag, lm); got != tt.want {
			t.Errorf("notModified(If-None-Match %q, If-Modified-Since %q) = %v, want %v", tt.inm, tt.ims, got, tt.want)
		}
	}
}

func TestRetryHeader(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 600_000_000, time.UTC)
	if h, until := retryHeader(now, 2*time.Second, false); h != "2" || !until.Equal(now.Add(2*time.Second)) {
		t.Errorf("retryHeader(seconds) = %q, %v", h, until)
	}
	h, until := retryHeader(now, 2*time.Second, true)
	if want := time.Date(2026, 1, 2, 3, 4, 8, 0, time.UTC); h != want.Format(http.TimeFormat) || !until.Equal(want) {
		t.Errorf("retryHeader(date) = %q, %v; want %v rounded up", h, until, want)
	}
}

// TestHostileTruth checks what the ground truth holds of the hostile web.
func TestHostileTruth(t *testing.T) {
	w, err := New(Config{Hosts: 4, PagesPerHost: 5, Hostile: true, HostileConfig: HostileConfig{Every: 2},
		Robots: []RobotsKind{RobotsAllow, RobotsAllow, RobotsServerError, RobotsAllow}})
	if err != nil {
		t.Fatal(err)
	}
	tr := w.truth(w.Seeds(), 0)
	depth := func(host, n int) int32 { return tr.hostile[host*numHostile+n] }
	for n, s := range hostileSpecs {
		d := depth(0, n)
		switch {
		case s.role == hostileOutside || n == hxLanding: // h3, before h0, is not hostile
			if d >= 0 {
				t.Errorf("h0 %s is in the ground truth", s.path)
			}
		case d < 0:
			t.Errorf("h0 %s is not in the ground truth", s.path)
		case s.home && d != 1:
			t.Errorf("h0 %s has depth %d, want 1", s.path, d)
		}
		if i, ok := w.slot(0, resHostile, n); ok != (s.role == hostilePage) || ok && tr.pages[i] != d {
			t.Errorf("h0 %s: slot %d, %v, depth %d; want a slot of depth %d for pages only", s.path, i, ok, tr.pages[i], d)
		}
		if d := depth(1, n); d >= 0 && n != hxLanding {
			t.Errorf("h1, not hostile, has %s in the ground truth", s.path)
		}
		// h2 is hostile but unavailable.
		if d := depth(2, n); d >= 0 {
			t.Errorf("h2, whose robots.txt fails, has %s in the ground truth", s.path)
		}
	}
	for _, c := range []struct {
		n    int
		want int32
	}{{hxSlowNext, 2}, {hxChainEnd, 1}, {hxRelativeEnd, 1}, {hxSniffed, 2}, {hxMal2, 2}, {hxCharsetTarget + 7, 2}, {hxLoopB, 1}} {
		if d := depth(0, c.n); d != c.want {
			t.Errorf("h0 %s has depth %d, want %d", hostileSpecs[c.n].path, d, c.want)
		}
	}
	if d := depth(1, hxLanding); d != 1 {
		t.Errorf("h1 /x/landing (h0's cross-host redirect) has depth %d, want 1", d)
	}
	// h3's cross-host redirect lands on h0.
	if d := depth(3, hxLanding); d >= 0 {
		t.Errorf("h3 /x/landing has depth %d, want none", d)
	}
	// h0, h1 and h3 are available; h0's hostile pages but its landing,
	// and h1's landing.
	if want := 3*5 + len(hostilePageList); tr.reachable != want {
		t.Errorf("reachable %d, want %d", tr.reachable, want)
	}
	// Depth limits cut the hostile pages like any others.
	if tr := w.truth(w.Seeds(), 1); tr.hostile[hxSlowNext] >= 0 || tr.hostile[hxSlow] != 1 || tr.hostile[hxChainEnd] != 1 {
		t.Errorf("with MaxDepth 1: slow-next %d, slow %d, chain end %d", tr.hostile[hxSlowNext], tr.hostile[hxSlow], tr.hostile[hxChainEnd])
	}
}

// TestHostileOffServesNothing checks the hostile paths are 404 without
// Config.Hostile (the golden test pins the rest).
func TestHostileOffServesNothing(t *testing.T) {
	w, err := New(Config{Hosts: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range hostileSpecs {
		rec := httptest.NewRecorder()
		w.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://h0.fake.test"+s.path, nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("GET %s without Hostile = %d, want 404", s.path, rec.Code)
		}
	}
}

func TestHostileDefaultsAndValidate(t *testing.T) {
	var off Config
	off.Default()
	if off.HostileConfig != (HostileConfig{}) {
		t.Errorf("Default() without Hostile filled HostileConfig: %+v", off.HostileConfig)
	}
	on := Config{Hostile: true, Hosts: 40}
	on.Default()
	want := HostileConfig{Every: 1, SlowDelay: 1500 * time.Millisecond, DripInterval: 100 * time.Millisecond,
		DripFor: time.Minute, RetryFailures: 1, RetryAfter: 2 * time.Second, StormHost: 39, StormFor: 3 * time.Second}
	if on.HostileConfig != want {
		t.Errorf("Default() = %+v, want %+v", on.HostileConfig, want)
	}
	if err := on.Validate(); err != nil {
		t.Errorf("Validate() of the defaults = %v", err)
	}
	for _, tt := range []struct {
		name string
		h    HostileConfig
		want string
	}{
		{"every", HostileConfig{Every: -1}, "every"},
		{"slow", HostileConfig{SlowDelay: -time.Second}, "slow delay"},
		{"retry after", HostileConfig{RetryAfter: 1500 * time.Millisecond}, "retry after"},
		{"retry failures", HostileConfig{RetryFailures: -2}, "retry failures"},
		{"storm host", HostileConfig{StormHost: 40}, "storm host"},
	} {
		c := Config{Hostile: true, Hosts: 40, HostileConfig: tt.h}
		c.Default()
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate(%+v) = %v, want an error about %q", tt.name, tt.h, err, tt.want)
		}
	}
	// Off, nothing of it is checked.
	c := Config{HostileConfig: HostileConfig{Every: -1}}
	c.Default()
	if err := c.Validate(); err != nil {
		t.Errorf("Validate() without Hostile = %v", err)
	}
}

// TestReportJSONWithoutHostile checks that a report of a web without the
// hostile feature serializes as it did before it existed.
func TestReportJSONWithoutHostile(t *testing.T) {
	w, err := New(Config{Hosts: 2})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(w.Report(Judge{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"hostile", "retry_after", "conditional", "not_modified", "charset"} {
		if strings.Contains(string(b), k) {
			t.Errorf("report JSON has %q: %s", k, b)
		}
	}
}

// TestHostileRedirectsAgree checks that the ground truth's idea of each
// redirect is where the server sends it.
func TestHostileRedirectsAgree(t *testing.T) {
	w, err := New(Config{Hosts: 3, Hostile: true, HostileConfig: HostileConfig{StormHost: -1}})
	if err != nil {
		t.Fatal(err)
	}
	for n, s := range hostileSpecs {
		if s.role != hostileRedirect {
			continue
		}
		from := "http://h2.fake.test" + s.path
		rec := httptest.NewRecorder()
		w.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, from, nil))
		loc, err := url.Parse(from)
		if err == nil {
			loc, err = loc.Parse(rec.Header().Get("Location"))
		}
		to := w.hostileTarget(2, n)
		if want := "http://" + w.hostName(to.host) + hostileSpecs[to.n].path; err != nil || loc.String() != want {
			t.Errorf("GET %s = %d to %v (%v), want %s", from, rec.Code, loc, err, want)
		}
	}
}

package fakeweb

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"hash"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt from the current web")

// goldenConfigs are webs whose every response is pinned by
// testdata/golden.txt: the bytes other tests and the crawler's end-to-end
// tests were written against. A feature added to the web must leave them
// unchanged while it is off.
var goldenConfigs = []struct {
	name string
	cfg  Config
}{
	{"all-kinds", Config{Hosts: 6, PagesPerHost: 30, Robots: goldenKinds, Seed: 42}},
	{"default", Config{}},
	{"traps", Config{Hosts: 4, PagesPerHost: 20, Seed: 3, Traps: AllTraps(), Robots: goldenKinds[:3]}},
	{"tree", Config{Hosts: 2, PagesPerHost: 15, LinksPerPage: 2, CrossHostShare: -1, RedirectShare: -1}},
	{"big", Config{Hosts: 3, PagesPerHost: 40, PageSize: 20000, LinksPerPage: 20, RedirectShare: 0.2, CrossHostShare: 0.3,
		Seed: -7, Robots: goldenKinds[1:3], CrawlDelay: 1500 * time.Millisecond}},
	{"sessions", Config{Hosts: 3, PagesPerHost: 12, Seed: 9, Traps: Traps{SessionIDs: true, BaseHref: true}}},
}

// goldenKinds are the robots.txt kinds that existed when the golden file
// was first written.
var goldenKinds = []RobotsKind{RobotsAllow, RobotsDisallow, RobotsCrawlDelay, RobotsNotFound, RobotsServerError, RobotsHang}

// goldenDigest hashes the status, headers and body of every GET and HEAD
// answer for a fixed list of URLs on every host, and Page for each.
func goldenDigest(t *testing.T, cfg Config) string {
	t.Helper()
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := w.Handler()
	sum := sha256.New()
	for host := range w.cfg.Hosts {
		if w.kind(host) == RobotsHang {
			continue
		}
		base := "http://" + w.hostName(host)
		// Paths new features answer must stay 404 while they are off.
		paths := []string{"/robots.txt", "/", "/nope", "/p/0", "/private", "/sitemap.xml", "/sitemap_index.xml",
			"/robots-real.txt", "/orphan/0", "/nofollow/0", "/w/1",
			"/calendar/2026/11/", "/docs/a/b/", "/search?q=tide&lang=en&sort=relevance&view=list", "/hidden/0/comment", "/5",
			"/p/3;jsessionid=abc", "/p/3?sid=x", "/p/1?utm_source=news"}
		for n := 1; n < w.cfg.PagesPerHost; n++ {
			paths = append(paths, "/p/"+strconv.Itoa(n), "/r/"+strconv.Itoa(n))
		}
		for n := range w.cfg.PagesPerHost {
			paths = append(paths, "/private/"+strconv.Itoa(n))
		}
		for _, p := range paths {
			for _, m := range []string{http.MethodGet, http.MethodHead} {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(m, base+p, nil))
				writeAnswer(sum, m+" "+base+p, rec)
			}
			if body, ok := w.Page(base + p); ok {
				sum.Write(body)
			}
		}
	}
	return hex.EncodeToString(sum.Sum(nil))
}

func writeAnswer(sum hash.Hash, what string, rec *httptest.ResponseRecorder) {
	hdr := rec.Result().Header
	fmt.Fprintf(sum, "%s %d\n", what, rec.Code)
	for _, k := range slices.Sorted(maps.Keys(hdr)) {
		fmt.Fprintf(sum, "%s: %s\n", k, strings.Join(hdr[k], ", "))
	}
	sum.Write(rec.Body.Bytes())
}

// TestGolden pins the bytes of webs with no new feature enabled. Run
// "go test -run TestGolden -update" only when a change to existing pages
// is intended, and say so: the crawler's end-to-end tests see them too.
func TestGolden(t *testing.T) {
	file := filepath.Join("testdata", "golden.txt")
	got := map[string]string{}
	var lines []string
	for _, g := range goldenConfigs {
		got[g.name] = goldenDigest(t, g.cfg)
		lines = append(lines, g.name+" "+got[g.name])
	}
	if *update {
		if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	for s := bufio.NewScanner(f); s.Scan(); {
		name, digest, _ := strings.Cut(s.Text(), " ")
		want[name] = digest
	}
	for _, g := range goldenConfigs {
		if got[g.name] != want[g.name] {
			t.Errorf("web %q answers differently from %s (digest %s, want %s)", g.name, file, got[g.name], want[g.name])
		}
	}
}

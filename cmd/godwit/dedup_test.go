package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// TestCrawlDeduplicates is the archive issue's end-to-end test: a web with
// byte-identical pages on every host (one always gzip-encoded, one always
// chunked), clusters of near-duplicate articles among distinct ones, and
// robots.txt answering 304 to conditional refetches. The crawl must store
// each identical payload once and write revisits that refer to it, archive
// 304s as server-not-modified revisits of the robots.txt they confirm, and
// find the near-duplicates: precision and recall against the web's labels.
func TestCrawlDeduplicates(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 4, PagesPerHost: 8, LinksPerPage: 3, PageSize: 600, Seed: 3,
		Duplicates: true, ConditionalRobots: true})
	s := testSettings(t, addr)
	s.Robots.TTL = 150 * time.Millisecond // robots.txt is refetched, conditionally, during the crawl
	res := crawlInProcess(t, s, web.Seeds())
	rep := web.Report(fakeweb.Judge{Delay: s.Delay})
	checkReport(t, rep)
	if rep.RobotsNotModified == 0 {
		t.Error("no robots.txt refetch was answered 304: the test does not test server-not-modified revisits")
	}

	// Read the archive.
	type capture struct{ id, typ, profile, refersTo, uri, digest string }
	var caps []capture
	byID := map[string]capture{}
	near := map[string]string{} // page → the page it is a near-duplicate of
	files, _ := filepath.Glob(filepath.Join(res.WARCDir, "*.warc.gz"))
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := warc.NewReader(fh)
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, err := rd.Next()
			if err != nil {
				break
			}
			h := &rec.Header
			c := capture{id: h.Get(warc.FieldRecordID), typ: rec.Type, profile: h.Get(warc.FieldProfile),
				refersTo: h.Get(warc.FieldRefersTo), uri: h.Get(warc.FieldTargetURI), digest: h.Get(warc.FieldPayloadDigest)}
			if rec.Type == warc.TypeMetadata {
				fields, _ := warc.ParseFields(rec.Block)
				for _, fl := range fields {
					if fl.Name == "near-duplicate-of" {
						near[c.uri] = fl.Value
					}
				}
			}
			caps = append(caps, c)
			byID[c.id] = c
		}
		fh.Close()
	}

	// Identical payloads: each digest stored once in a response; every
	// other capture of it a revisit of that response.
	stored := map[string]string{} // digest → record ID of its response
	var revisits, notModified int
	for _, c := range caps {
		if c.typ == warc.TypeResponse && c.digest != "" {
			if _, ok := stored[c.digest]; !ok {
				stored[c.digest] = c.id
			}
		}
	}
	for _, c := range caps {
		if c.typ != warc.TypeRevisit {
			continue
		}
		orig, ok := byID[c.refersTo]
		switch {
		case !ok:
			t.Errorf("revisit of %s refers to %s, not in the files", c.uri, c.refersTo)
		case orig.typ != warc.TypeResponse:
			t.Errorf("revisit of %s refers to a %s record, want a response", c.uri, orig.typ)
		case c.profile == warc.ProfileIdenticalPayloadDigest:
			revisits++
			if orig.digest != c.digest || stored[c.digest] != orig.id {
				t.Errorf("revisit of %s (%s) refers to %s (%s), not the first capture of the payload", c.uri, c.digest, orig.uri, orig.digest)
			}
		case c.profile == warc.ProfileServerNotModified:
			notModified++
			if orig.uri != c.uri {
				t.Errorf("304 revisit of %s refers to a capture of %s", c.uri, orig.uri)
			}
		}
	}
	// /d/exact/0 and /d/exact/2 are one payload on 4 hosts, /d/exact/1
	// (gzip) another: 8 + 4 captures, 2 stored.
	if revisits < 10 {
		t.Errorf("%d identical-payload revisits, want at least 10", revisits)
	}
	if notModified == 0 || int64(notModified) != res.Dedup.NotModified {
		t.Errorf("%d server-not-modified revisits in the files, %d counted", notModified, res.Dedup.NotModified)
	}
	for _, c := range caps {
		if c.typ == warc.TypeResponse && c.digest != "" && stored[c.digest] != c.id && strings.Contains(c.uri, "/d/exact/") {
			t.Errorf("%s stored again although its payload was stored before", c.uri)
		}
	}

	// Near-duplicates, judged by the web's labels.
	cluster := map[string]string{}
	for _, l := range web.ContentLabels() {
		cluster[l.URL] = l.Cluster
	}
	var flagged, right int
	for page, of := range near {
		if cluster[page] == "" {
			continue // not a labelled page
		}
		flagged++
		if cluster[page] == cluster[of] {
			right++
		} else {
			t.Logf("false near-duplicate: %s (%s) of %s (%s)", page, cluster[page], of, cluster[of])
		}
	}
	// Every near-cluster member but the first fetched should be flagged.
	seen := map[string]bool{}
	var shouldFlag, found int
	for _, c := range caps {
		if c.typ != warc.TypeResponse || !strings.Contains(c.uri, "/d/near/") {
			continue
		}
		cl := cluster[c.uri]
		if seen[cl] {
			shouldFlag++
			if near[c.uri] != "" {
				found++
			}
		}
		seen[cl] = true
	}
	precision, recall := ratio(right, flagged), ratio(found, shouldFlag)
	t.Logf("identical-payload revisits %d, server-not-modified revisits %d; near-duplicates: %d flagged, precision %.2f, recall %.2f (%d of %d)",
		revisits, notModified, flagged, precision, recall, found, shouldFlag)
	if shouldFlag == 0 || precision < 0.9 || recall < 0.8 {
		t.Errorf("near-duplicate precision %.2f, recall %.2f; want at least 0.9 and 0.8", precision, recall)
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

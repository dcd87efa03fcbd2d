package render

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestReadSignals(t *testing.T) {
	article := "<p>" + strings.Repeat("Plenty of words in a static article. ", 30) + "</p>"
	for _, tc := range []struct {
		name string
		page string
		want []string
	}{
		{"static", `<html><body>` + article + `<a href="/x">x</a><script>var a=1</script></body></html>`, nil},
		{"empty root", `<html><body><div id="root"></div><script src="/app.js"></script></body></html>`,
			[]string{"empty-app-root", "thin-text"}},
		{"app-root", `<app-root></app-root>` + article + `<script src="/main.js"></script>`, []string{"empty-app-root"}},
		{"filled root", `<div id="app"><p>` + article + `</p></div><script src="/a.js"></script>`, nil},
		{"noscript", article + `<noscript>You need to enable JavaScript to run this app.</noscript>`, []string{"noscript"}},
		{"script heavy", article + `<script>` + strings.Repeat("x=1;", 2000) + `</script>`, []string{"script-heavy"}},
		{"nested root", `<div id="root"><div><span></span></div></div><script src="/a.js"></script>` + article, nil},
	} {
		got := Read([]byte(tc.page)).Reasons(0)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: reasons %q, want %q (signals %+v)", tc.name, got, tc.want, Read([]byte(tc.page)))
		}
	}
	// Far fewer links than the host's rendered pages had.
	s := Read([]byte(article + `<a href="/1">1</a>`))
	if got := s.Reasons(20); !slices.Equal(got, []string{"few-links"}) {
		t.Errorf("few links: %q", got)
	}
}

func TestSelectorLearns(t *testing.T) {
	shell := Read([]byte(`<div id="root"></div><script src="/app.js"></script>`))
	full := Read([]byte(`<div id="root"><a href="/a">a</a><a href="/b">b</a>` + strings.Repeat("<p>text text text</p>", 30) + `</div>`))
	static := Read([]byte(`<p>` + strings.Repeat("words ", 100) + `</p><script src="/x.js"></script>`))
	sel := NewSelector(Auto, 3, 1)

	// An SPA host: three renders that found links make it a host whose
	// every page is rendered, signals or not.
	for i := 0; i < 3; i++ {
		// The first for its signals; the next to confirm a host whose
		// renders have all paid.
		want := "empty-app-root"
		if i > 0 {
			want = "host-paying"
		}
		if ok, why := sel.Decide("spa", shell); !ok || why[0] != want {
			t.Fatalf("spa page %d: %v %q, want %s first", i, ok, why, want)
		}
		sel.Learn("spa", shell, full, 2)
	}
	if r, _ := sel.Host("spa"); r.Verdict != Pays || r.Found != 3 || r.NewLinks != 6 {
		t.Fatalf("spa host: %+v", r)
	}
	if ok, why := sel.Decide("spa", full); !ok || why[0] != "host-pays" {
		t.Errorf("a page of a paying host without signals: %v %q", ok, why)
	}

	// A static host whose thin pages fool the trigger: after three renders
	// that found nothing, none more.
	thin := Read([]byte(`<p>short</p><script src="/x.js"></script>`))
	for i := 0; i < 3; i++ {
		if ok, _ := sel.Decide("static", thin); !ok {
			t.Fatalf("static page %d not tried", i)
		}
		sel.Learn("static", thin, thin, 0)
	}
	if ok, _ := sel.Decide("static", thin); ok {
		t.Errorf("a host where rendering found nothing is still rendered")
	}
	if r, _ := sel.Host("static"); r.Verdict != Useless || r.Rendered != 3 {
		t.Errorf("static host: %+v", r)
	}
	if ok, _ := sel.Decide("other", static); ok {
		t.Errorf("a static page without signals was picked")
	}
}

func TestSelectorShare(t *testing.T) {
	shell := Read([]byte(`<div id="root"></div><script src="/app.js"></script>`))
	sel := NewSelector(Auto, 3, 0.2)
	granted := 0
	full := Read([]byte(`<div id="root"><a href="/a">a</a><a href="/b">b</a></div>`))
	for i := 0; i < 100; i++ {
		if ok, _ := sel.Decide("spa", shell); ok {
			granted++
			sel.Learn("spa", shell, full, 2)
		}
	}
	// The share bounds exploring: the first render found the shell's
	// content, so the next ones confirm rather than explore; after three
	// the host pays, and every page of it is rendered.
	if r, _ := sel.Host("spa"); granted != 100 || r.Verdict != Pays {
		t.Errorf("granted %d of 100 pages of a host whose renders pay (verdict %s), want all", granted, r.Verdict)
	}
	// Pages of hosts not known to pay stay within the share: a thin page
	// on each of 100 hosts, none of which pays.
	sel = NewSelector(Auto, 3, 0.2)
	thin := Read([]byte(`<div id="app"></div><script src="/a.js"></script>`))
	granted = 0
	for i := 0; i < 100; i++ {
		if ok, _ := sel.Decide(fmt.Sprint("h", i), thin); ok {
			granted++
		}
	}
	if granted > 23 || granted < 21 {
		t.Errorf("granted %d of 100 exploring renders at share 0.2 and k 3, want 0.2 × 100 + 3", granted)
	}
	never := NewSelector(Never, 3, 1)
	if ok, _ := never.Decide("spa", shell); ok {
		t.Errorf("never rendered")
	}
	always := NewSelector(Always, 3, 1)
	if ok, _ := always.Decide("x", Read([]byte("<p>static</p>"))); !ok {
		t.Errorf("always did not render")
	}
}

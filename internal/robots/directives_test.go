package robots

import (
	"strings"
	"testing"
	"time"
)

func date(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParseMeta(t *testing.T) {
	tests := []struct {
		content string
		want    Directives
	}{
		{"", Directives{}},
		{"all", Directives{}},
		{"index, follow", Directives{}},
		{"noindex", Directives{NoIndex: true}},
		{"NOINDEX,NOFOLLOW", Directives{NoIndex: true, NoFollow: true}},
		{"  NoIndex ,\tnofollow  ", Directives{NoIndex: true, NoFollow: true}},
		{"none", Directives{NoIndex: true, NoFollow: true}},
		{"None, index, follow", Directives{NoIndex: true, NoFollow: true}}, // restrictions are never undone
		{"noarchive", Directives{NoArchive: true}},
		{"nocache", Directives{NoArchive: true}},
		{"nosnippet, noimageindex", Directives{NoSnippet: true, NoImageIndex: true}},
		{"max-snippet:0", Directives{NoSnippet: true}},
		{"max-snippet: 20, max-image-preview: large, max-video-preview:-1", Directives{}},
		{"noindex nofollow", Directives{NoIndex: true, NoFollow: true}},
		{"noindex;nofollow", Directives{NoIndex: true, NoFollow: true}},
		{`"noindex, nofollow"`, Directives{NoIndex: true, NoFollow: true}},
		{"noindexx, no-follow, follow-not, notranslate, indexifembedded", Directives{}},
		{",,noindex,,", Directives{NoIndex: true}},
		{"godwit: noindex", Directives{}}, // agent scoping is for headers only
		{"unavailable_after: 2020-09-21", Directives{UnavailableAfter: date("2020-09-21T00:00:00Z")}},
		{"noindex, unavailable_after: 25 Jun 2010 15:00:00 PST, nofollow",
			Directives{NoIndex: true, NoFollow: true, UnavailableAfter: date("2010-06-25T23:00:00Z")}},
		{"unavailable_after: not a date", Directives{}},
	}
	for _, tt := range tests {
		if got := ParseMeta(tt.content); got != tt.want {
			t.Errorf("ParseMeta(%q) = %+v, want %+v", tt.content, got, tt.want)
		}
	}
}

func TestParseXRobotsTag(t *testing.T) {
	tests := []struct {
		values []string
		agent  string
		want   Directives
	}{
		{nil, "godwit", Directives{}},
		{[]string{"noindex, nofollow"}, "godwit", Directives{NoIndex: true, NoFollow: true}},
		{[]string{"noindex", "nofollow"}, "godwit", Directives{NoIndex: true, NoFollow: true}},
		{[]string{"godwit: noarchive"}, "godwit", Directives{NoArchive: true}},
		{[]string{"GodWit:NoArchive"}, "godwit", Directives{NoArchive: true}},
		{[]string{"godwit: noarchive"}, "GODWIT", Directives{NoArchive: true}},
		{[]string{"otherbot: noindex"}, "godwit", Directives{}},
		{[]string{"otherbot: noindex, nofollow"}, "godwit", Directives{}}, // the scope runs to the end of the value
		{[]string{"otherbot: noindex", "nofollow"}, "godwit", Directives{NoFollow: true}},
		{[]string{"noindex, otherbot: nofollow"}, "godwit", Directives{NoIndex: true}},
		{[]string{"otherbot: noindex, godwit: nofollow, noarchive"}, "godwit", Directives{NoFollow: true, NoArchive: true}},
		{[]string{"godwit-news: noindex"}, "godwit", Directives{}},
		{[]string{"godwit/1.0: noindex"}, "godwit", Directives{}}, // not a product token: ignored
		{[]string{"none"}, "godwit", Directives{NoIndex: true, NoFollow: true}},
		{[]string{"godwit: none", "otherbot: all"}, "godwit", Directives{NoIndex: true, NoFollow: true}},
		{[]string{"unavailable_after: 25 Jun 2010 15:00:00 PST"}, "godwit",
			Directives{UnavailableAfter: date("2010-06-25T23:00:00Z")}},
		{[]string{"unavailable_after: Fri, 25 Jun 2010 15:00:00 GMT, noindex"}, "godwit",
			Directives{NoIndex: true, UnavailableAfter: date("2010-06-25T15:00:00Z")}},
		{[]string{"godwit: unavailable_after: Friday, 25-Jun-10 15:00:00 EST"}, "godwit",
			Directives{UnavailableAfter: date("2010-06-25T20:00:00Z")}},
		{[]string{"otherbot: unavailable_after: 2010-06-25"}, "godwit", Directives{}},
		{[]string{"unavailable_after: 2030-01-01T00:00:00+01:00", "unavailable_after: 2031-01-01"}, "godwit",
			Directives{UnavailableAfter: date("2029-12-31T23:00:00Z")}},
		{[]string{"max-snippet: 0", "max-image-preview: none"}, "godwit", Directives{NoSnippet: true}},
		{[]string{"godwit: max-snippet: 0"}, "godwit", Directives{NoSnippet: true}},
		{[]string{"weird value: noindex"}, "godwit", Directives{}},
		{[]string{"noindex", "godwit:"}, "godwit", Directives{NoIndex: true}},
		{[]string{"godwit: noindex"}, "", Directives{}},
	}
	for _, tt := range tests {
		if got := ParseXRobotsTag(tt.values, tt.agent); got != tt.want {
			t.Errorf("ParseXRobotsTag(%q, %q) = %+v, want %+v", tt.values, tt.agent, got, tt.want)
		}
	}
}

func TestParseDate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"25 Jun 2010 15:00:00 PST", "2010-06-25T23:00:00Z"},
		{"25 Jun 2010 15:00:00 PDT", "2010-06-25T22:00:00Z"},
		{"Fri, 25 Jun 2010 15:00:00 GMT", "2010-06-25T15:00:00Z"},
		{"Friday, 25-Jun-10 15:00:00 GMT", "2010-06-25T15:00:00Z"},
		{"25-Aug-2007 15:00:00 EST", "2007-08-25T20:00:00Z"},
		{"25 Jun 10 15:00 +0200", "2010-06-25T13:00:00Z"},
		{"25 Jun 2010 15:00:00 -07:30", "2010-06-25T22:30:00Z"},
		{"Fri Jun 25 15:00:00 2010", "2010-06-25T15:00:00Z"},
		{"25 June 2010", "2010-06-25T00:00:00Z"},
		{"June 25, 2010", "2010-06-25T00:00:00Z"},
		{"2010-06-25", "2010-06-25T00:00:00Z"},
		{"2010-06-25T15:00:00Z", "2010-06-25T15:00:00Z"},
		{"2010-06-25T15:00:00.5+02:00", "2010-06-25T13:00:00.5Z"},
		{"2010-06-25T15:00", "2010-06-25T15:00:00Z"},
		{"2010-06-25 15:00:00", "2010-06-25T15:00:00Z"},
		{"25 Jun 2010 15:00:00 CEST", "2010-06-25T15:00:00Z"}, // unknown zone: UTC
		{"", ""},
		{"Fri", ""},
		{"tomorrow", ""},
		{"2010-13-45", ""},
		{"25 Jun 2010 15:00:00 +2", ""},
	}
	for _, tt := range tests {
		got, ok := parseDate(tt.in)
		if tt.want == "" {
			if ok {
				t.Errorf("parseDate(%q) = %v, want failure", tt.in, got)
			}
			continue
		}
		if want, _ := time.Parse(time.RFC3339Nano, tt.want); !ok || !got.Equal(want) {
			t.Errorf("parseDate(%q) = %v, %v; want %v", tt.in, got, ok, want)
		}
	}
}

func TestDirectivesMerge(t *testing.T) {
	a := Directives{NoIndex: true, UnavailableAfter: date("2030-01-01T00:00:00Z")}
	b := Directives{NoFollow: true, NoArchive: true, UnavailableAfter: date("2029-01-01T00:00:00Z")}
	want := Directives{NoIndex: true, NoFollow: true, NoArchive: true, UnavailableAfter: date("2029-01-01T00:00:00Z")}
	if got := a.Merge(b); got != want {
		t.Errorf("Merge = %+v, want %+v", got, want)
	}
	if got := b.Merge(a); got != want {
		t.Errorf("Merge is not symmetric: %+v, want %+v", got, want)
	}
	if got := a.Merge(Directives{}); got != a {
		t.Errorf("Merge with the zero value = %+v, want %+v", got, a)
	}
	if got := (Directives{}).Merge(Directives{NoSnippet: true, NoImageIndex: true}); got != (Directives{NoSnippet: true, NoImageIndex: true}) {
		t.Errorf("Merge = %+v", got)
	}
}

func FuzzParseDirectives(f *testing.F) {
	f.Add("noindex, godwit: nofollow, unavailable_after: Fri, 25 Jun 2010 15:00:00 PST", "godwit")
	f.Add("max-snippet:0,none;x: y: z", "x")
	f.Add("unavailable_after: 2010-06-25T15:00:00+02:00", "")
	f.Fuzz(func(t *testing.T, value, agent string) {
		m := ParseMeta(value)
		h := ParseXRobotsTag([]string{value}, agent)
		// Without a colon there are no user-agent tokens, and the two
		// readings agree.
		if !strings.Contains(value, ":") && m != h {
			t.Fatalf("ParseMeta(%q) = %+v but ParseXRobotsTag = %+v", value, m, h)
		}
		if m.Merge(m) != m || h.Merge(h) != h {
			t.Fatalf("Merge is not idempotent on %q", value)
		}
		if m.Merge(h) != h.Merge(m) {
			t.Fatalf("Merge is not symmetric on %q", value)
		}
		// A second header naming no agent only adds.
		if g := ParseXRobotsTag([]string{value, "noindex"}, agent); !g.NoIndex || g.Merge(h) != g {
			t.Fatalf("ParseXRobotsTag(%q, noindex) = %+v, loses %+v", value, g, h)
		}
	})
}

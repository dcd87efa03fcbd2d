package extract

import (
	"testing"

	"github.com/godwit-crawler/godwit/internal/robots"
)

func TestMetaRobots(t *testing.T) {
	tests := []struct {
		name   string
		html   string
		agents []string
		want   robots.Directives
	}{
		{
			name: "none",
			html: `<html><head><meta charset="utf-8"><meta name="description" content="noindex"></head></html>`,
			want: robots.Directives{},
		},
		{
			name: "robots in head",
			html: `<head><meta name="robots" content="noindex, nofollow"></head>`,
			want: robots.Directives{NoIndex: true, NoFollow: true},
		},
		{
			name: "upper case tag, attributes and values",
			html: `<HEAD><META NAME="ROBOTS" CONTENT="NOARCHIVE"></HEAD>`,
			want: robots.Directives{NoArchive: true},
		},
		{
			name: "content with spaces, unquoted name, self-closing",
			html: `<meta name=robots content="  noindex ,   nosnippet  " />`,
			want: robots.Directives{NoIndex: true, NoSnippet: true},
		},
		{
			name: "several tags are merged",
			html: `<meta name="robots" content="noindex"><meta name="robots" content="nofollow"><meta name="robots" content="all">`,
			want: robots.Directives{NoIndex: true, NoFollow: true},
		},
		{
			name:   "agent-specific tag adds to robots",
			html:   `<meta name="robots" content="nosnippet"><meta name="GodWit" content="noarchive">`,
			agents: []string{"godwit"},
			want:   robots.Directives{NoSnippet: true, NoArchive: true},
		},
		{
			name:   "other agents' tags do not apply",
			html:   `<meta name="googlebot" content="noindex"><meta name="godwit-news" content="nofollow"><meta name="godwit" content="noarchive">`,
			agents: []string{"godwit"},
			want:   robots.Directives{NoArchive: true},
		},
		{
			name: "agent tag ignored when no agents are given",
			html: `<meta name="godwit" content="noindex">`,
			want: robots.Directives{},
		},
		{
			name:   "several agents",
			html:   `<meta name="godwit" content="noindex"><meta name="archivebot" content="noarchive">`,
			agents: []string{"godwit", "archivebot"},
			want:   robots.Directives{NoIndex: true, NoArchive: true},
		},
		{
			name: "outside head: honoured anywhere",
			html: `<html><head><title>t</title></head><body><p>text</p><meta name="robots" content="noindex"></body></html>`,
			want: robots.Directives{NoIndex: true},
		},
		{
			name: "inside noscript: honoured",
			html: `<head><noscript><meta name="robots" content="nofollow"></noscript></head>`,
			want: robots.Directives{NoFollow: true},
		},
		{
			name: "in comments, scripts and raw text: not markup",
			html: `<!-- <meta name="robots" content="noindex"> --><script>document.write('<meta name="robots" content="nofollow">')</script>
				<textarea><meta name="robots" content="noarchive"></textarea><title><meta name="robots" content="nosnippet"></title>`,
			want: robots.Directives{},
		},
		{
			name: "name with spaces around it",
			html: `<meta name=" robots " content="noindex">`,
			want: robots.Directives{NoIndex: true},
		},
		{
			name: "first of repeated attributes wins",
			html: `<meta name="robots" name="x" content="noindex" content="nofollow">`,
			want: robots.Directives{NoIndex: true},
		},
		{
			name: "missing content, http-equiv",
			html: `<meta name="robots"><meta http-equiv="X-Robots-Tag" content="noindex"><meta content="nofollow">`,
			want: robots.Directives{},
		},
		{
			name: "not robots by Unicode folding",
			html: "<meta name=\"robot\u017f\" content=\"noindex\">",
			want: robots.Directives{},
		},
		{
			name: "none",
			html: `<meta name="robots" content="none">`,
			want: robots.Directives{NoIndex: true, NoFollow: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := HTML(page, []byte(tt.html), &Options{Agents: tt.agents})
			if err != nil {
				t.Fatal(err)
			}
			if d.Robots != tt.want {
				t.Errorf("HTML(%q) with agents %q: Robots = %+v, want %+v", tt.html, tt.agents, d.Robots, tt.want)
			}
		})
	}
}

func TestHasRel(t *testing.T) {
	tests := []struct {
		html  string
		token string
		want  bool
	}{
		{`<a href="/x" rel="nofollow">`, "nofollow", true},
		{`<a href="/x" rel="NOFOLLOW">`, "nofollow", true},
		{`<a href="/x" rel="nofollow">`, "NoFollow", true},
		{`<a href="/x" rel="ugc nofollow">`, "nofollow", true},
		{`<a href="/x" rel="sponsored	nofollow">`, "nofollow", true},
		{"<a href=\"/x\" rel=\"ugc\nNoFollow\fnoopener\">", "nofollow", true},
		{`<a href="/x" rel="  nofollow  ">`, "nofollow", true},
		{`<a href="/x" rel="ugc  sponsored">`, "nofollow", false}, // hints, not nofollow
		{`<a href="/x" rel="nofollowing">`, "nofollow", false},
		{`<a href="/x" rel="no-follow">`, "nofollow", false},
		{`<a href="/x" rel="ugc,nofollow">`, "nofollow", true}, // Google accepts commas
		{`<a href="/x" rel="nofollow, ugc">`, "nofollow", true},
		{`<a href="/x" rel="ugc,,nofollow,">`, "ugc", true},
		{"<a href=\"/x\" rel=\"nofollow\u00a0ugc\">", "nofollow", false}, // nor does a non-breaking space
		{`<a href="/x">`, "nofollow", false},
		{`<a href="/x" rel="">`, "", false},
		{`<a href="/x" rel="nofollow" rel="follow">`, "nofollow", true}, // first attribute wins
		{`<area href="/x" rel="nofollow">`, "nofollow", true},
		{`<link href="/x" rel="Canonical">`, "canonical", true},
		{`<noscript><a href="/x" rel="nofollow"></a></noscript>`, "nofollow", true},
	}
	for _, tt := range tests {
		links, err := Links(page, []byte(tt.html))
		if err != nil || len(links) != 1 {
			t.Fatalf("Links(%q) = %+v, %v; want one link", tt.html, links, err)
		}
		if got := links[0].HasRel(tt.token); got != tt.want {
			t.Errorf("Links(%q)[0].HasRel(%q) = %v, want %v (rel %q)", tt.html, tt.token, got, tt.want, links[0].Rel)
		}
	}
}

func TestHasRelDoesNotAllocate(t *testing.T) {
	l := Link{Rel: "external ugc nofollow noopener"}
	allocs := testing.AllocsPerRun(100, func() {
		l.HasRel("NoFollow")
		l.HasRel("canonical")
	})
	if allocs != 0 {
		t.Errorf("HasRel allocates %v times per call, want 0", allocs)
	}
}

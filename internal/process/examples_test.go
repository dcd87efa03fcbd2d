package process

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestExampleProcessors runs the processors shipped in examples/ through
// Exec, as `--processor 'exec:…'` does, on pages they have something to
// say about and on a page that is not HTML. Each is skipped when its
// interpreter is not installed. language.py counts the visible words (the
// title's and the paragraph's, 35; not the script's).
func TestExampleProcessors(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "processors")
	page := &Page{URL: "https://example.test/en/a", Status: 200, ContentType: "text/html",
		Body: []byte(`<html><head><title>A</title>
<link rel="alternate" hreflang="fr" href="/fr/a">
<link rel="alternate" hreflang="de" href="https://example.test/de/a">
<script>var the = "of and to in";</script></head>
<body><p>The crawler is at the end of the road and it is waiting for the night to come, as it was
on the first day of the walk, with the birds on the shore.</p></body></html>`)}
	for _, tc := range []struct {
		interpreter, script string
		want                map[string]string
		links               []string
	}{
		{"python3", "language.py", map[string]string{"lang": "en", "words": "35"}, nil},
		{"node", "hreflang.mjs", map[string]string{"hreflang": "fr de", "hreflang-count": "2"},
			[]string{"/fr/a", "https://example.test/de/a"}},
	} {
		t.Run(tc.script, func(t *testing.T) {
			bin, err := exec.LookPath(tc.interpreter)
			if err != nil {
				t.Skipf("no %s", tc.interpreter)
			}
			e, err := NewExec(ExecConfig{Command: []string{bin, filepath.Join(dir, tc.script)}, Timeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- e.Run(ctx) }()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("Run: %v", err)
				}
			}()
			v, err := e.Process(t.Context(), page)
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range tc.want {
				if got := v.Annotations[k]; got != want {
					t.Errorf("annotation %s = %q, want %q (all: %v)", k, got, want, v.Annotations)
				}
			}
			if !slices.Equal(v.Links, tc.links) {
				t.Errorf("links = %q, want %q", v.Links, tc.links)
			}
			v, err = e.Process(t.Context(), &Page{URL: "https://example.test/a.png", Status: 200, ContentType: "image/png"})
			if err != nil || len(v.Annotations) != 0 || len(v.Links) != 0 {
				t.Errorf("on an image: %+v, %v; want nothing to say", v, err)
			}
		})
	}
}

package process

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// benchPage is about the size of a fakeweb throughput page (15 KB of
// HTML) with OpenGraph tags and a JSON-LD block.
func benchPage() *Page {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>A page</title>
<meta property="og:title" content="A page"><meta property="og:type" content="article">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"A page"}</script>
</head><body>`)
	for b.Len() < 15<<10 {
		b.WriteString(`<p>Some text of the page, <a href="/p/12">a link</a> and more words to fill it.</p>` + "\n")
	}
	b.WriteString(`</body></html>`)
	return &Page{URL: "http://h1.test/p/1", Status: 200, Title: "A page", Body: []byte(b.String())}
}

// BenchmarkStructured is the built-in processor's cost per page.
func BenchmarkStructured(b *testing.B) {
	p := benchPage()
	b.SetBytes(int64(len(p.Body)))
	for b.Loop() {
		if _, err := (Structured{}).Process(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunnerOverhead is the runner's own cost per page and
// processor (goroutine, timer, merge), with a processor that does
// nothing.
func BenchmarkRunnerOverhead(b *testing.B) {
	r, err := NewRunner([]Processor{annotate("a", "k", "v")}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	p := benchPage()
	for b.Loop() {
		r.Run(context.Background(), p)
	}
}

// BenchmarkExecRoundTrip is one page to an external processor and back
// (the test binary as an echoing child): encoding, the pipes, decoding.
func BenchmarkExecRoundTrip(b *testing.B) {
	os.Setenv("GODWIT_TEST_CHILD", "echo")
	defer os.Unsetenv("GODWIT_TEST_CHILD")
	e, err := NewExec(ExecConfig{Command: []string{os.Args[0], "-test.run=^$"}, Timeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	defer func() { cancel(); <-done }()
	p := benchPage()
	b.SetBytes(int64(len(p.Body)))
	for b.Loop() {
		if _, err := e.Process(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
}

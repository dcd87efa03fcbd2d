package fetch_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/godwit-crawler/godwit/internal/fetch"
)

func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>Godwit</title>")
	}))
	defer srv.Close()

	c, err := fetch.New(fetch.Config{
		UserAgent:    "godwit/0.1 (+https://example.org/bot)",
		AllowPrivate: true, // the test server is on loopback
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	for _, path := range []string{"/old", "/new"} {
		resp, err := c.Fetch(context.Background(), fetch.Request{URL: srv.URL + path})
		if err != nil {
			fmt.Println(err, fetch.Classify(err))
			continue
		}
		requestLine, _, _ := strings.Cut(string(resp.RawRequest), "\r\n")
		fmt.Printf("%s -> %d %s\n", requestLine, resp.Status, resp.ContentType())
		if loc, ok := resp.Location(); ok {
			fmt.Println("  redirect to", strings.TrimPrefix(loc, srv.URL))
			continue
		}
		body, err := c.Decode(resp)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("  %s\n", body)
	}

	_, err = c.Fetch(context.Background(), fetch.Request{URL: "ftp://example.org/"})
	fmt.Println(fetch.Classify(err))
	// Output:
	// GET /old HTTP/1.1 -> 301 text/html
	//   redirect to /new
	// GET /new HTTP/1.1 -> 200 text/html
	//   <!doctype html><title>Godwit</title>
	// permanent
}

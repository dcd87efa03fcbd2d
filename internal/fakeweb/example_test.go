package fakeweb_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// Any HTTP client can crawl the simulated web by using it as a proxy; the
// report then tells what the web saw.
func Example() {
	web, err := fakeweb.New(fakeweb.Config{Hosts: 3, PagesPerHost: 20, Seed: 7})
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- web.Serve(ctx, ln) }()

	transport := &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: ln.Addr().String()})}
	client := &http.Client{Transport: transport}
	for _, u := range []string{
		"http://h0.fake.test/robots.txt",
		web.Seeds()[0],
		"http://H0.FAKE.TEST:80/?utm_source=news#top", // the same page again
	} {
		resp, err := client.Get(u)
		if err != nil {
			log.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, u)
	}
	transport.CloseIdleConnections()
	stop()
	if err := <-served; err != nil {
		log.Fatal(err)
	}

	rep := web.Report(fakeweb.Judge{})
	fmt.Println("ok:", rep.OK(), "duplicates:", rep.Duplicates)
	fmt.Printf("covered %d of %d pages\n", rep.Covered, rep.Reachable)
	// Output:
	// 200 http://h0.fake.test/robots.txt
	// 200 http://h0.fake.test/
	// 200 http://H0.FAKE.TEST:80/?utm_source=news#top
	// ok: false duplicates: 1
	// covered 1 of 60 pages
}

package admin

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// A crawl's admin server on a loopback port, and a client pausing the
// crawl: no Origin header (a command-line client), so no cross-origin
// check applies; no token, because the address is loopback.
func ExampleServer() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := New(&fakeBackend{}, Options{Addr: ln.Addr().String()})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	defer func() {
		stop()
		fmt.Println("serve:", <-done)
	}()

	c := &http.Client{Timeout: 5 * time.Second}
	base := "http://" + ln.Addr().String()
	resp, err := c.Post(base+"/api/pause", "", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println("pause:", resp.Status)

	resp, err = c.Get(base + "/api/hosts?sort=bogus")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, strings.TrimSpace(string(body)))
	// Output:
	// pause: 204 No Content
	// 400 Bad Request {"error":{"code":"bad_request","message":"sort: \"bogus\" is not one of queued, fetched, errors"}}
	// serve: <nil>
}

package lifecycle

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestServeHTTPStopsWithContext: a request in progress when the context
// ends is answered within the grace, then ServeHTTP returns nil and the
// listener accepts no more.
func TestServeHTTPStopsWithContext(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	inHandler := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(inHandler)
		time.Sleep(100 * time.Millisecond)
		io.WriteString(w, "done")
	})}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ServeHTTP(ctx, srv, ln, nil, 5*time.Second) }()
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	<-inHandler
	cancel()
	if err := <-served; err != nil {
		t.Errorf("ServeHTTP after the context ended: %v, want nil", err)
	}
	if s := <-got; s != "done" {
		t.Errorf("the request in progress got %q, want its answer", s)
	}
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Error("the listener still accepts after ServeHTTP returned")
	}
}

// TestServeHTTPListenerFails: a listener that fails ends ServeHTTP with
// its error, the context still running.
func TestServeHTTPListenerFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	err = ServeHTTP(context.Background(), &http.Server{}, ln, nil, time.Second)
	if err == nil || errors.Is(err, http.ErrServerClosed) {
		t.Errorf("ServeHTTP on a closed listener: %v, want its error", err)
	}
}

// TestServeHTTPGraceEnds: a handler that outlives the grace is cut off;
// ServeHTTP returns the shutdown's error rather than waiting for it.
func TestServeHTTPGraceEnds(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	inHandler := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(inHandler)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ServeHTTP(ctx, srv, ln, nil, 50*time.Millisecond) }()
	go http.Get("http://" + ln.Addr().String() + "/")
	<-inHandler
	cancel()
	select {
	case err := <-served:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("ServeHTTP with a handler past the grace: %v, want the deadline", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeHTTP waited for a handler past its grace")
	}
}

package jetstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// testTTL is the member, leader and lease TTL of the tests: short, yet
// long enough (renewals every 600 ms, dropped after 2 s unconfirmed) for
// a busy machine.
const testTTL = 3 * time.Second

func startServer(t testing.TB, cfg ServerConfig) *Server {
	t.Helper()
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return s
}

// freePorts reserves n loopback ports and frees them for servers to
// listen on (cluster routes must be known before the servers start).
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	ports := make([]int, n)
	var ls []net.Listener
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// startCluster starts n clustered servers on loopback.
func startCluster(t *testing.T, n int) []*Server {
	t.Helper()
	ports := freePorts(t, n)
	var routes []string
	for _, p := range ports {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	servers := make([]*Server, n)
	for i := range servers {
		servers[i] = startServer(t, ServerConfig{
			Name:          fmt.Sprintf("s%d", i),
			ClusterListen: fmt.Sprintf("127.0.0.1:%d", ports[i]),
			Routes:        routes,
		})
	}
	return servers
}

func connect(t testing.TB, urls ...string) *nats.Conn {
	t.Helper()
	var all string
	for i, u := range urls {
		if i > 0 {
			all += ","
		}
		all += u
	}
	nc, err := nats.Connect(all, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func testConfig(node string) Config {
	return Config{
		Crawl: "test", Node: node, Shards: 16, Streams: 4,
		MemberTTL: testTTL, LeaderTTL: testTTL, LeaseTTL: testTTL,
		RequestTimeout: time.Second,
	}
}

// running is a Node with its Run goroutine.
type running struct {
	*Node
	cancel context.CancelFunc
	done   chan error

	mu      sync.Mutex
	changes []Change
}

func (r *running) log() []Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Change(nil), r.changes...)
}

// startNode opens a node over nc and runs it until stop or the end of
// the test.
func startNode(t testing.TB, nc *nats.Conn, cfg Config) *running {
	t.Helper()
	r := &running{done: make(chan error, 1)}
	cfg.Notify = func(c Change) {
		r.mu.Lock()
		r.changes = append(r.changes, c)
		r.mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	n, err := Open(ctx, nc, cfg)
	if err != nil {
		t.Fatalf("Open(%s): %v", cfg.Node, err)
	}
	r.Node = n
	rctx, rcancel := context.WithCancel(context.Background())
	r.cancel = rcancel
	go func() { r.done <- n.Run(rctx) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop ends Run, as a crash would: nothing is handed back.
func (r *running) stop(t testing.TB) {
	t.Helper()
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	if err := <-r.done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	r.Close()
}

// waitFor polls cond every 20 ms until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// proxy forwards TCP connections to a server until frozen: then it
// stops passing bytes either way (a network partition that keeps the
// connections open).
type proxy struct {
	l        net.Listener
	upstream string

	mu     sync.Mutex
	open   chan struct{} // closed while bytes may pass
	conns  []net.Conn
	closed bool
}

func newProxy(t *testing.T, upstream string) *proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l, upstream: upstream, open: make(chan struct{})}
	close(p.open)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); p.pipe(u, c) }()
			go func() { defer wg.Done(); p.pipe(c, u) }()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		p.mu.Lock()
		p.closed = true
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.thaw()
		wg.Wait()
	})
	return p
}

func (p *proxy) url() string { return "nats://" + p.l.Addr().String() }

func (p *proxy) pipe(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			open := p.open
			p.mu.Unlock()
			<-open
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *proxy) freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.open = make(chan struct{})
}

func (p *proxy) thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
	default:
		close(p.open)
	}
}

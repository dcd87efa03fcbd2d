package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// natsProc is a running `godwit nats` process.
type natsProc struct {
	name string
	url  string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // cmd.Wait's, once done is closed
}

// wait waits for the process to exit and returns how it did.
func (p *natsProc) wait() error {
	<-p.done
	return p.err
}

// startNATSBinary runs `godwit nats` with args and returns once it
// prints its client URL, failing the test if it exits first.
func startNATSBinary(t *testing.T, name string, args ...string) *natsProc {
	t.Helper()
	p := launchNATS(t, name, args...)
	if p.url == "" {
		t.Fatalf("godwit nats %s exited at start: %v", name, p.err)
	}
	return p
}

// launchNATS runs `godwit nats` with args and returns once it prints its
// client URL, or once it has exited without (p.url is empty, p.done
// closed: a port it was given was taken meanwhile, say).
func launchNATS(t *testing.T, name string, args ...string) *natsProc {
	t.Helper()
	cmd := exec.Command(godwitBinary(t), append([]string{"nats", "--listen", "127.0.0.1:0", "--log-level", "warn"}, args...)...)
	logf, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logf
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("log of %s:\n%s", name, b)
		}
		logf.Close()
	})
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &natsProc{name: name, cmd: cmd, done: make(chan struct{})}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		p.err = cmd.Wait()
		close(p.done)
		return p
	}
	url, ok := strings.CutPrefix(sc.Text(), "nats listening on ")
	if !ok {
		t.Fatalf("unexpected first line %q", sc.Text())
	}
	p.url = url
	go func() {
		for sc.Scan() {
		}
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
			return
		default:
		}
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Errorf("godwit nats %s did not stop on SIGINT", name)
		}
	})
	return p
}

// TestNATSServersCluster starts three `godwit nats` processes as a
// cluster, creates an R3 stream, SIGKILLs the server leading it, and
// checks that the stream takes new messages, that every acknowledged
// message is read back, and that the servers left stop cleanly on
// SIGINT.
func TestNATSServersCluster(t *testing.T) {
	clusterTest(t)
	procs, urls := startNATSCluster(t, t.TempDir())
	nc, err := nats.Connect(strings.Join(urls, ","), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var stream jetstream.Stream
	retry(t, ctx, "creating an R3 stream", func(ctx context.Context) error {
		stream, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: "T", Subjects: []string{"t.>"}, Replicas: 3, Storage: jetstream.FileStorage})
		return err
	})
	const n = 30
	for i := range n {
		retry(t, ctx, "publishing", func(ctx context.Context) error {
			_, err := js.Publish(ctx, "t.x", fmt.Appendf(nil, "%d", i))
			return err
		})
	}
	info, err := stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Cluster == nil || len(info.Cluster.Replicas) != 2 {
		t.Fatalf("stream cluster %+v, want a leader and two replicas", info.Cluster)
	}
	// The stream's leader is SIGKILLed: the two servers left are a
	// quorum, elect a new leader, and lose nothing.
	var dead *natsProc
	for _, p := range procs {
		if p.name == info.Cluster.Leader {
			dead = p
		}
	}
	if dead == nil {
		t.Fatalf("stream leader %q is none of the servers", info.Cluster.Leader)
	}
	if err := dead.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	dead.wait()
	retry(t, ctx, "publishing after the leader was killed", func(ctx context.Context) error {
		_, err := js.Publish(ctx, "t.x", fmt.Appendf(nil, "%d", n))
		return err
	})
	total := n + 1
	// Created again until it is: right after a server loss the meta
	// leader may place the consumer on the dead server, and the request
	// goes unanswered.
	var cons jetstream.Consumer
	retry(t, ctx, "creating a consumer", func(ctx context.Context) error {
		cons, err = stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
		return err
	})
	for i := range total {
		var m jetstream.Msg
		retry(t, ctx, fmt.Sprintf("reading message %d", i), func(context.Context) error {
			// A cluster still settling its leaders answers "no
			// responders" for a while; the message must come.
			var err error
			m, err = cons.Next(jetstream.FetchMaxWait(10 * time.Second))
			return err
		})
		if got, want := string(m.Data()), fmt.Sprint(i); got != want {
			t.Fatalf("message %d = %q, want %q", i, got, want)
		}
	}
	for _, p := range procs {
		if p == dead {
			continue
		}
		p.cmd.Process.Signal(syscall.SIGINT)
		if err := p.wait(); err != nil {
			t.Errorf("godwit nats %s after SIGINT: %v, want exit status 0", p.name, err)
		}
	}
}

// retry calls f until it succeeds or ctx ends (a cluster electing
// leaders answers "no responders" or times out for a while).
func retry(t *testing.T, ctx context.Context, what string, f func(context.Context) error) {
	t.Helper()
	for {
		actx, cancel := context.WithTimeout(ctx, 3*time.Second)
		err := f(actx)
		cancel()
		if err == nil {
			return
		}
		t.Logf("%s: %v", what, err)
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestBinaryNATSErrors checks the exit status and message of bad
// invocations: bad input is 2, a server that cannot start is 1.
func TestBinaryNATSErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"nats"}, 2, "--data is required"},
		{[]string{"nats", "--data", dir, "--cluster-listen", "127.0.0.1:0", "--routes", "nats://127.0.0.1:1"}, 2, "needs a name"},
		{[]string{"nats", "--data", dir, "--name", "a", "--cluster-listen", "127.0.0.1:0"}, 2, "needs --routes"},
		{[]string{"nats", "--data", dir, "--listen", l.Addr().String()}, 1, "address already in use"},
	} {
		res := runBinary(t, tc.args...)
		if res.code != tc.code || !strings.Contains(res.stderr, tc.msg) {
			t.Errorf("godwit %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), res.code, res.stderr, tc.code, tc.msg)
		}
	}
}

// startNATSCluster starts three `godwit nats` servers as a cluster. The
// route ports are picked free and then released, so another process can
// take one before its server listens there (go test runs packages side
// by side): a server that exits at once is taken for that, and the
// cluster is started again on other ports.
func startNATSCluster(t *testing.T, dir string) ([]*natsProc, []string) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		var routes []string
		var ports []int
		for range 3 {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ports = append(ports, l.Addr().(*net.TCPAddr).Port)
			routes = append(routes, "nats://"+l.Addr().String())
			l.Close()
		}
		var procs []*natsProc
		var urls []string
		for i := range 3 {
			name := fmt.Sprintf("s%d", i)
			p := launchNATS(t, name, "--name", name, "--data", filepath.Join(dir, fmt.Sprint(attempt), name),
				"--cluster-listen", fmt.Sprintf("127.0.0.1:%d", ports[i]), "--routes", strings.Join(routes, ","))
			procs = append(procs, p)
			urls = append(urls, p.url)
		}
		exited := func() bool {
			for _, p := range procs {
				select {
				case <-p.done:
					return true
				default:
				}
			}
			return false
		}
		deadline := time.Now().Add(2 * time.Second)
		for !exited() && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if !exited() {
			return procs, urls
		}
		if attempt == 3 {
			t.Fatal("a godwit nats server of the cluster exited at start three times")
		}
		t.Logf("a server exited at start (its route port taken?); starting the cluster again")
		for _, p := range procs {
			p.cmd.Process.Kill()
			<-p.done
		}
	}
}

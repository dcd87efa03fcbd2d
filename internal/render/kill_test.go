package render

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestRenderKilledParentLeavesNoBrowser: kill -9 of the process that owns
// a pool (in the middle of a page) leaves no process of its browser.
func TestRenderKilledParentLeavesNoBrowser(t *testing.T) {
	if os.Getenv("GODWIT_RENDER_CHILD") == "1" {
		childHoldsBrowser()
		return
	}
	findChromium(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestRenderKilledParentLeavesNoBrowser$")
	cmd.Env = append(os.Environ(), "GODWIT_RENDER_CHILD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var pid int
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "browser "); ok {
			pid, _ = strconv.Atoi(s)
			break
		}
	}
	if pid == 0 {
		t.Fatal("the child reported no browser")
	}
	if n := len(groupMembers(pid)); n < 2 {
		t.Fatalf("browser group %d has %d processes before the kill", pid, n)
	}
	_ = cmd.Process.Kill() // SIGKILL
	_ = cmd.Wait()
	waitFor(t, func() bool { return len(groupMembers(pid)) == 0 }, "browser group %d to be gone after kill -9 of its owner (left: %v)", pid, groupMembers(pid))
}

// childHoldsBrowser starts a pool, renders a page that never finishes
// loading, says the browser's pid, and waits to be killed.
func childHoldsBrowser() {
	p := New(Config{Browser: mustBrowser()})
	if err := p.Start(context.Background()); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	hang := func(ctx context.Context, r Request) (*Response, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	go p.Render(context.Background(), Page{URL: "http://127.0.0.1:9/", Status: 200,
		Body: []byte(`<script src="/slow.js"></script>`)}, hang)
	fmt.Printf("browser %d\n", p.PID())
	select {}
}

func mustBrowser() string {
	p, err := FindBrowser("")
	if err != nil {
		panic(err)
	}
	return p
}

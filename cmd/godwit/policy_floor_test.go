package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/admin"
)

// TestBinaryPolicyFloor: against a running crawl (the built binary, its
// admin server on a loopback port), `godwit hosts policy H --delay 1ms`
// is refused with a message naming --force, and the crawl's host keeps
// its delay (asked from the server); the API refuses it too without
// "force"; with --force it is set.
func TestBinaryPolicyFloor(t *testing.T) {
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	web := startFakewebBinary(t, "--hosts", "1", "--pages", "400", "--seeds-out", seeds)
	cmd := exec.Command(godwitBinary(t), "crawl", "--proxy", "http://"+web, "--seeds", seeds, "--delay", "200ms",
		"--data", filepath.Join(dir, "data"), "--admin", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
	}()
	apiAddr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`admin API and dashboard.*url=http://(\S+?)/?$`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				apiAddr <- m[1]
			}
		}
	}()
	var addr string
	select {
	case addr = <-apiAddr:
	case <-time.After(30 * time.Second):
		t.Fatal("the admin server never said where it listens")
	}
	host := "h0.fake.test"
	hostInfo := func() admin.Host {
		t.Helper()
		resp, err := http.Get("http://" + addr + "/api/hosts/" + host)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var h admin.Host
		if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
			t.Fatal(err)
		}
		return h
	}
	for deadline := time.Now().Add(30 * time.Second); hostInfo().Fetched == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the crawl never fetched from " + host)
		}
		time.Sleep(50 * time.Millisecond)
	}

	res := runBinary(t, "hosts", "policy", host, "--delay", "1ms", "--admin", addr)
	if res.code == 0 || !strings.Contains(res.stderr, "below the crawl's delay of 200ms") || !strings.Contains(res.stderr, "--force") {
		t.Errorf("hosts policy --delay 1ms: exit %d, stderr %q; want refused, naming the floor and --force", res.code, res.stderr)
	}
	if h := hostInfo(); h.Policy != nil || h.DelayMS < 200 {
		t.Errorf("after a refused override the host has policy %+v, delay %d ms", h.Policy, h.DelayMS)
	}
	// The web judges: requests after the refusal keep the crawl's gap.
	for before, deadline := hostInfo().Fetched, time.Now().Add(30*time.Second); hostInfo().Fetched < before+3; {
		if time.Now().After(deadline) {
			t.Fatal("the crawl stopped fetching after the refused override")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := fetchReport(t, web, "200ms"); r.GapViolations != 0 {
		t.Errorf("after a refused override the web saw %d requests closer than 200ms", r.GapViolations)
	}
	req, _ := http.NewRequest(http.MethodPut, "http://"+addr+"/api/hosts/"+host+"/policy", strings.NewReader(`{"delay_ms": 1}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "force") {
		t.Errorf("PUT policy {delay_ms: 1}: %s %s, want 400 naming force", resp.Status, body)
	}

	res = runBinary(t, "hosts", "policy", host, "--delay", "1ms", "--force", "--admin", addr)
	if res.code != 0 {
		t.Fatalf("hosts policy --delay 1ms --force: exit %d: %s", res.code, res.stderr)
	}
	if h := hostInfo(); h.Policy == nil || h.Policy.DelayMS == nil || *h.Policy.DelayMS != 1 {
		t.Errorf("forced override not set: %+v", h.Policy)
	}
}

package main

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/freshness"
	"github.com/godwit-crawler/godwit/internal/frontier"
	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// TestBinaryContinuousCrashKeepsSchedules: revisit schedules and change
// estimates are crawl state like any other, so they survive a SIGKILL.
// A continuous crawl (a real process) runs against changing pages until
// it has revisited them and seen some change, and is killed. The store
// it left says, for every URL the server answered, what the crawler had
// learnt: visits, changes, rate, interval and next visit. After some
// down time a second run on the same --data must, judged from the
// server side, revisit no URL before its recorded next visit, revisit
// every URL that was due (with the validators it had), and carry each
// estimate on rather than start it again. The only slack is for the
// fetches in flight at the kill and at the final stop: at most one per
// worker.
func TestBinaryContinuousCrashKeepsSchedules(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: -short")
	}
	const (
		workers   = 4
		delay     = 100 * time.Millisecond
		minIvl    = time.Second
		maxIvl    = time.Minute
		tolerance = 50 * time.Millisecond // the two clock readings either side of a request
	)
	web, addr := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 10, Seed: 7, Changing: true})
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	args := []string{"crawl", "--continuous", "--proxy", "http://" + addr, "--data", data,
		"--config", writeConfig(t, dir, "recrawl:\n  min_interval: 1s\n  max_interval: 1m\n"),
		"--delay", delay.String(), "--workers", strconv.Itoa(workers), "--timeout", "2s", "--admin", "off"}
	canon := urlnorm.NewCanonicalizer(defaultSettings().URL.options())

	// Run 1: until the first pass is over and the schedule has settled
	// (the revisit budget grows when discovery ends, and the planned
	// visits are moved at the next calibration, within 10 s: a restart
	// before that would see them move, rightly, and this test could not
	// tell that from a schedule lost), and until a changing page has been
	// fetched three times and three have been seen to change (with
	// politeness at most one fetch per host is in flight at the kill, so
	// the store has at least one change); then SIGKILL.
	godwitBinary(t) // built before the clock starts
	start := time.Now()
	run1 := startContinuousCrawl(t, append(args, web.Seeds()...))
	var firstPass time.Time
	if !waitForRequests(t, web, run1, 40*time.Second, "first pass over 11 s ago, a changing page fetched 3 times and 3 seen to change", func(reqs []fakeweb.Request) bool {
		if firstPass.IsZero() {
			if rep := web.Report(fakeweb.Judge{Revisits: true}); rep.Reachable == 0 || rep.Covered < rep.Reachable {
				return false
			}
			firstPass = time.Now()
		}
		if time.Since(firstPass) < 11*time.Second {
			return false
		}
		fetches, version, changes := map[string]int{}, map[string]int{}, map[string]bool{}
		for _, r := range reqs {
			if _, changing := web.ChangeMean(r.RawURL); !changing || r.End.IsZero() {
				continue
			}
			if v, ok := version[r.RawURL]; ok && v != r.Version {
				changes[r.RawURL] = true
			}
			fetches[r.RawURL]++
			version[r.RawURL] = r.Version
		}
		return len(changes) >= 3 && slices.ContainsFunc(slices.Collect(maps.Values(fetches)), func(n int) bool { return n >= 3 })
	}) {
		t.FailNow()
	}
	run1.kill(t)

	// What the server answered before the kill, and what the store says
	// the crawler made of it.
	killed := time.Now()
	pre := pageFetches(canon, web.Requests(), time.Time{}, killed)
	before := readURLState(t, canon, data, slices.Collect(maps.Keys(pre)), minIvl, maxIvl)
	var lostAtKill, revisited, changed int
	for key, at := range pre {
		n := len(at)
		b, ok := before[key]
		switch {
		case !ok:
			t.Errorf("after the kill: %s (fetched %d times) has no record", key, n)
			continue
		case b.Visits > n:
			t.Errorf("after the kill: %s has %d visits recorded, but the server answered it %d times", key, b.Visits, n)
		case b.Visits < n-1:
			t.Errorf("after the kill: %s has %d visits recorded, want %d or %d (fetched %d times, at most once in flight at the kill): the estimate was not kept",
				key, b.Visits, n-1, n, n)
		}
		lostAtKill += n - b.Visits
		if b.Visits == 0 {
			continue // its only fetch was in flight at the kill
		}
		if b.Visits >= 2 {
			revisited++
		}
		if b.Changed > 0 {
			changed++
		}
		if !(b.ChangeRate > 0) || b.NextVisit.IsZero() || b.Interval < minIvl || b.Interval > maxIvl || b.Changed >= b.Visits {
			t.Errorf("after the kill: %s, fetched %d times: visits %d, changed %d, rate %g/s, interval %v, next visit %v; want a positive rate, a next visit, an interval in [%v, %v] and fewer changes than visits",
				key, n, b.Visits, b.Changed, b.ChangeRate, b.Interval, b.NextVisit, minIvl, maxIvl)
		}
	}
	if lostAtKill > workers {
		t.Errorf("after the kill: %d fetches the server answered are not in the store, more than the %d workers had in flight", lostAtKill, workers)
	}
	if revisited == 0 || changed == 0 {
		t.Errorf("after the kill: %d URLs with revisits recorded, %d with a change recorded; the test needs both", revisited, changed)
	}

	// Down time: until about half the changing pages have fallen due, so
	// that the restart finds URLs due and URLs to leave alone for a few
	// seconds (besides the ordinary pages, scheduled far later).
	var next []time.Time
	for key, b := range before {
		if strings.Contains(key, "/c/") && !b.NextVisit.IsZero() {
			next = append(next, b.NextVisit)
		}
	}
	slices.SortFunc(next, time.Time.Compare)
	if len(next) > 0 {
		time.Sleep(min(time.Until(next[len(next)/2]), 5*time.Second))
	}

	// Run 2: the same --data, no seeds, until every URL due at the
	// restart has been revisited, and for long enough that a URL whose
	// schedule was forgotten would have been fetched again; then a clean
	// stop.
	restart := time.Now()
	var due, later []string
	for key, b := range before {
		switch {
		case b.NextVisit.IsZero():
		case b.NextVisit.After(restart):
			later = append(later, key)
		default:
			due = append(due, key)
		}
	}
	slices.Sort(due)
	run2 := startContinuousCrawl(t, args)
	// On a timeout, the checks below say which URLs were not revisited.
	waitForRequests(t, web, run2, 15*time.Second, "revisit of every URL due at the restart", func(reqs []fakeweb.Request) bool {
		post := pageFetches(canon, reqs, restart, time.Time{})
		return time.Since(restart) > 4*time.Second && !slices.ContainsFunc(due, func(key string) bool { return len(post[key]) == 0 })
	})
	if out := run2.interrupt(t); !strings.Contains(out, "godwit: crawl resumed and stopped") {
		t.Errorf("run 2 did not resume the crawl in its data directory:\n%s", out)
	}

	// Judged from the server side: no revisit before its time, every due
	// URL revisited, and with the validators of the last visit.
	reqs := web.Requests()
	post := pageFetches(canon, reqs, restart, time.Time{})
	for key, b := range before {
		if at := post[key]; len(at) > 0 && at[0].Add(tolerance).Before(b.NextVisit) {
			t.Errorf("after the restart: %s fetched at %s, %v before its next visit at %s (visits %d, interval %v)",
				key, at[0].Format(time.StampMilli), b.NextVisit.Sub(at[0]), b.NextVisit.Format(time.StampMilli), b.Visits, b.Interval)
		}
	}
	for _, r := range reqs {
		u, err := urlnorm.Parse(r.RawURL)
		if err != nil || r.Start.Before(restart) || r.Conditional {
			continue
		}
		if _, changing := web.ChangeMean(r.RawURL); changing && before[canon.Key(u)].Visits > 0 {
			t.Errorf("after the restart: %s fetched at %s without validators", r.RawURL, r.Start.Format(time.StampMilli))
		}
	}
	for _, key := range due {
		if len(post[key]) == 0 {
			t.Errorf("after the restart: %s, due at %s, was not revisited", key, before[key].NextVisit.Format(time.StampMilli))
		}
	}
	if len(due) == 0 || len(later) == 0 {
		t.Errorf("at the restart %d URLs were due and %d scheduled later; the test needs both", len(due), len(later))
	}

	// The estimates went on from where they were: every fetch of run 2
	// added to the visits recorded before, bar those abandoned at the
	// stop.
	after := readURLState(t, canon, data, slices.Collect(maps.Keys(before)), minIvl, maxIvl)
	var lostAtStop int
	for key, b := range before {
		a, n := after[key], len(post[key])
		switch {
		case a.Visits < b.Visits || a.Changed < b.Changed || a.LastChange.Before(b.LastChange):
			t.Errorf("after the restart: %s went back from visits %d, changed %d, last change %v to visits %d, changed %d, last change %v",
				key, b.Visits, b.Changed, b.LastChange, a.Visits, a.Changed, a.LastChange)
		case a.Visits > b.Visits+n:
			t.Errorf("after the restart: %s has %d visits, more than the %d before and %d fetches since", key, a.Visits, b.Visits, n)
		}
		lostAtStop += b.Visits + n - a.Visits
	}
	if lostAtStop > workers {
		t.Errorf("after the stop: %d fetches of run 2 are missing from the visits recorded, more than the %d workers had in flight", lostAtStop, workers)
	}

	// Politeness held across the restart.
	if r := web.Report(fakeweb.Judge{Delay: delay, Revisits: true}); r.GapViolations+r.ConcurrencyViolations+r.DisallowedRequests+r.BeforeRobots != 0 {
		t.Errorf("violations across the restart:\n%s", r)
	}

	t.Logf("run 1 (%v): %d URLs fetched, %d revisited, %d seen to change, %d fetches in flight at the kill; down %v",
		killed.Sub(start).Round(100*time.Millisecond), len(pre), revisited, changed, lostAtKill, restart.Sub(killed).Round(100*time.Millisecond))
	t.Logf("run 2 (%v): %d URLs due at the restart, %d scheduled later, %d URLs fetched, %d fetches in flight at the stop",
		time.Since(restart).Round(100*time.Millisecond), len(due), len(later), len(post), lostAtStop)
	for _, key := range slices.Sorted(maps.Keys(before)) {
		b, a := before[key], after[key]
		if !strings.Contains(key, "/c/") {
			continue
		}
		first := "-"
		if at := post[key]; len(at) > 0 {
			first = at[0].Sub(restart).Round(10 * time.Millisecond).String()
		}
		t.Logf("%-26s visits %2d→%2d changed %d→%d rate %.4f→%.4f/s interval %v→%v; after the restart: due %v, first fetch %s",
			key, b.Visits, a.Visits, b.Changed, a.Changed, b.ChangeRate, a.ChangeRate, b.Interval.Round(100*time.Millisecond),
			a.Interval.Round(100*time.Millisecond), b.NextVisit.Sub(restart).Round(10*time.Millisecond), first)
	}
}

// continuousCrawl is a godwit crawl --continuous process.
type continuousCrawl struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	exited         chan struct{}
	err            error // of Wait, once exited is closed
}

func startContinuousCrawl(t *testing.T, args []string) *continuousCrawl {
	t.Helper()
	c := &continuousCrawl{cmd: exec.Command(godwitBinary(t), args...), exited: make(chan struct{})}
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	c.cmd.Env = append(os.Environ(), "HTTP_PROXY=", "http_proxy=")
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		c.err = c.cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() { // a test that failed half-way leaves no process behind
		c.cmd.Process.Kill()
		<-c.exited
	})
	return c
}

// kill sends SIGKILL and waits for the process to be gone.
func (c *continuousCrawl) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-c.exited
	if ee, ok := c.err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the continuous crawl ended before the kill (%v)\n%s", c.err, c.stderr.String())
	}
}

// interrupt sends SIGINT, waits for a clean exit and returns stdout.
func (c *continuousCrawl) interrupt(t *testing.T) string {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("the continuous crawl did not stop within 15 s of SIGINT\n%s", c.stderr.String())
	}
	if c.err != nil {
		t.Fatalf("exit after SIGINT: %v\n%s", c.err, c.stderr.String())
	}
	return c.stdout.String()
}

// waitForRequests polls the server's log until done says so, failing if
// the crawl exits first. It reports whether done said so in time.
func waitForRequests(t *testing.T, web *fakeweb.Web, c *continuousCrawl, limit time.Duration, what string, done func([]fakeweb.Request) bool) bool {
	t.Helper()
	deadline := time.After(limit)
	for !done(web.Requests()) {
		select {
		case <-c.exited:
			t.Fatalf("the continuous crawl exited (%v) before a %s\n%s", c.err, what, c.stderr.String())
		case <-deadline:
			t.Errorf("no %s within %v", what, limit)
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
	return true
}

// pageFetches returns, by canonical crawl key, the start times of the
// requests (robots.txt aside: it has no revisit schedule) that started
// in [from, to), to zero meaning no end. The log is in order of start,
// and so is each URL's list.
func pageFetches(canon *urlnorm.Canonicalizer, reqs []fakeweb.Request, from, to time.Time) map[string][]time.Time {
	at := map[string][]time.Time{}
	for _, r := range reqs {
		if r.Path == "/robots.txt" || r.Start.Before(from) || !to.IsZero() && !r.Start.Before(to) {
			continue
		}
		u, err := urlnorm.Parse(r.RawURL)
		if err != nil {
			continue // not one the crawler asked for
		}
		key := canon.Key(u)
		at[key] = append(at[key], r.Start)
	}
	return at
}

// readURLState reads what the frontier store in data knows of each URL
// key, as the admin API's URL lookup does (backend.URL). It opens a copy
// of the state directory, so that the crawl resumed next finds the store
// exactly as the killed process left it (opening the store and closing
// it cleanly writes a seen-set snapshot).
func readURLState(t *testing.T, canon *urlnorm.Canonicalizer, data string, keys []string, minIvl, maxIvl time.Duration) map[string]crawl.URLInfo {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state")
	if err := os.CopyFS(state, os.DirFS(dataDir(data).state())); err != nil {
		t.Fatal(err)
	}
	f, err := frontier.Open(frontier.Options{Dir: state, Recrawl: true,
		Freshness: freshness.Policy{MinInterval: minIvl, MaxInterval: maxIvl}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	}()
	infos := map[string]crawl.URLInfo{}
	for _, key := range keys {
		u, err := urlnorm.Parse(key)
		if err != nil {
			t.Fatal(err)
		}
		info, ok, err := f.URL(urlnorm.Host(u), canon.Key(u))
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			infos[key] = info
		}
	}
	return infos
}

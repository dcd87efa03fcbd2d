package render

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"
)

// ErrDisallowed is what a Fetcher returns for a request robots.txt
// disallows; the browser sees the request blocked by the client.
var ErrDisallowed = errors.New("render: request disallowed by robots.txt")

// ErrNoBrowser is returned by FindBrowser when no browser is found.
var ErrNoBrowser = errors.New("render: no chromium browser found")

// ErrClosed is returned by Render after Close.
var ErrClosed = errors.New("render: pool closed")

// Request is one request a tab made.
type Request struct {
	URL          string
	Method       string
	Header       http.Header
	ResourceType string // the DevTools resource type: Document, Script, XHR, Fetch, Image, ...
}

// Response is the answer to a Request. Body is the decoded entity body
// (without content coding).
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Fetcher fetches one request of a tab through the crawler's own fetch
// path. It must be safe for concurrent use and return when ctx ends (a
// render waits for its requests before it returns). It must not follow
// redirects: a 3xx goes to the browser, whose request for the target
// pauses again and comes back through the Fetcher.
type Fetcher func(ctx context.Context, r Request) (*Response, error)

// Page is the plain fetch of the page to render; its document is served
// to the browser from here, not fetched again.
type Page struct {
	URL    string
	Status int
	Header http.Header
	Body   []byte // decoded
}

// Result is what a render found.
type Result struct {
	HTML        string   // the rendered DOM, serialized
	Links       []string // absolute a[href] and area[href] of the rendered DOM
	Requisites  []string // URLs the tab fetched through the Fetcher, in order
	Screenshot  []byte   // PNG, when Config.Screenshot
	SubRequests int      // requests answered through the Fetcher
	Disallowed  int      // requests failed with ErrDisallowed
	Failed      int      // other requests failed to the browser
	Own         int      // the browser's own requests (its favicon), failed without the Fetcher
	Attempts    int      // 1 unless the browser crashed or hung
}

// Config configures a Pool. Zero fields take the defaults of Defaults.
type Config struct {
	Browser      string // path of the chromium binary
	Tabs         int
	RestartAfter int   // pages per browser process
	MaxRSS       int64 // bytes of PSS, summed over the browser's process group
	PageTimeout  time.Duration
	IdleTime     time.Duration // quiet time that counts as network idle
	IdleMax      time.Duration // bound of one wait for idle
	ScrollMax    time.Duration // bound of the whole scroll
	Retries      int           // extra attempts of a page whose browser crashed or hung
	Screenshot   bool
	Logf         func(format string, args ...any)
}

// Defaults fills zero fields.
func (c Config) Defaults() Config {
	if c.Tabs <= 0 {
		c.Tabs = 2
	}
	if c.RestartAfter <= 0 {
		c.RestartAfter = 200
	}
	if c.MaxRSS <= 0 {
		c.MaxRSS = 1 << 30
	}
	if c.PageTimeout <= 0 {
		c.PageTimeout = 60 * time.Second
	}
	if c.IdleTime <= 0 {
		c.IdleTime = 300 * time.Millisecond
	}
	if c.IdleMax <= 0 {
		c.IdleMax = 10 * time.Second
	}
	if c.ScrollMax <= 0 {
		c.ScrollMax = 10 * time.Second
	}
	if c.Retries <= 0 {
		c.Retries = 2
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	return c
}

// FindBrowser returns path if it is given and executable, else the first
// of chromium, chromium-browser on PATH, else ErrNoBrowser.
func FindBrowser(path string) (string, error) {
	if path != "" {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrNoBrowser, err)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBrowser
}

// Stats are a Pool's counters.
type Stats struct {
	Pages       int64 // pages rendered
	Errors      int64 // pages given up after retries
	Retries     int64 // attempts repeated after a crash or hang
	Restarts    int64 // browser processes started after the first
	SubRequests int64
	Disallowed  int64
	RenderNanos int64 // wall time spent in successful renders
}

// Pool is a headless browser with a bounded number of tabs.
type Pool struct {
	cfg Config
	sem chan struct{}

	mu      sync.Mutex
	cur     *browser
	started int
	closed  bool

	pages, errs, retries, restarts, subs, disallowed, nanos atomic.Int64
}

// New returns a Pool; Start starts its browser.
func New(cfg Config) *Pool {
	cfg = cfg.Defaults()
	return &Pool{cfg: cfg, sem: make(chan struct{}, cfg.Tabs)}
}

// Start starts the browser, so that a broken browser is reported at start
// and not at the first page.
func (p *Pool) Start(ctx context.Context) error {
	b, err := p.acquire()
	if err != nil {
		return err
	}
	p.release(b)
	return nil
}

// Close closes the browser, killing its process group. Renders in
// progress fail.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	b := p.cur
	p.cur = nil
	p.mu.Unlock()
	if b != nil {
		b.close()
	}
	return nil
}

// Stats returns the pool's counters.
func (p *Pool) Stats() Stats {
	return Stats{
		Pages: p.pages.Load(), Errors: p.errs.Load(), Retries: p.retries.Load(),
		Restarts: p.restarts.Load(), SubRequests: p.subs.Load(),
		Disallowed: p.disallowed.Load(), RenderNanos: p.nanos.Load(),
	}
}

// PID returns the process id of the current browser, 0 when none runs.
func (p *Pool) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur == nil {
		return 0
	}
	return p.cur.pid
}

// Render renders page in a tab, answering its requests through fetch.
func (p *Pool) Render(ctx context.Context, page Page, fetch Fetcher) (*Result, error) {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.sem }()
	var lastErr error
	for attempt := 1; attempt <= 1+p.cfg.Retries; attempt++ {
		if attempt > 1 {
			p.retries.Add(1)
		}
		b, err := p.acquire()
		if err != nil {
			p.errs.Add(1)
			return nil, err
		}
		start := time.Now()
		res, err := p.renderOnce(ctx, b, page, fetch)
		if err == nil {
			res.Attempts = attempt
			p.pages.Add(1)
			p.nanos.Add(int64(time.Since(start)))
			p.subs.Add(int64(res.SubRequests))
			p.disallowed.Add(int64(res.Disallowed))
			pages := b.pages.Add(1)
			if pages >= int64(p.cfg.RestartAfter) {
				p.retire(b, "after "+strconv.FormatInt(pages, 10)+" pages")
			} else if rss := groupRSS(b.pid); rss > p.cfg.MaxRSS {
				p.retire(b, fmt.Sprintf("resident memory %d MB", rss>>20))
			}
			p.release(b)
			return res, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			p.release(b)
			p.errs.Add(1)
			return nil, ctx.Err()
		}
		// The browser crashed, or the page hung it: retire it, so that the
		// next attempt runs on a fresh one.
		p.retire(b, "page "+page.URL+": "+err.Error())
		p.release(b)
	}
	p.errs.Add(1)
	return nil, fmt.Errorf("render %s: %w", page.URL, lastErr)
}

// acquire returns the current browser, starting one if needed, with one
// more user.
func (p *Pool) acquire() (*browser, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	if p.cur == nil {
		b, err := startBrowser(p.cfg)
		if err != nil {
			return nil, err
		}
		if p.started > 0 {
			p.restarts.Add(1)
		}
		p.started++
		p.cur = b
	}
	p.cur.users++
	return p.cur, nil
}

func (p *Pool) release(b *browser) {
	p.mu.Lock()
	b.users--
	closeIt := b.retired && b.users == 0
	p.mu.Unlock()
	if closeIt {
		b.close()
	}
}

// retire makes b no longer current; it is closed when its last user
// releases it.
func (p *Pool) retire(b *browser, why string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if b.retired {
		return
	}
	b.retired = true
	if p.cur == b {
		p.cur = nil
	}
	p.cfg.Logf("render: restarting the browser (%s)", why)
}

// browser is one chromium process.
type browser struct {
	allocCancel context.CancelFunc
	ctx         context.Context // the browser's chromedp context
	cancel      context.CancelFunc
	pid         int
	dataDir     string
	pages       atomic.Int64
	users       int  // under Pool.mu
	retired     bool // under Pool.mu
	closeOnce   sync.Once
}

// flags are the browser's command line flags besides headless and the
// user data directory: nothing of the browser's own may go out.
func flags() []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.Headless,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("no-sandbox", true), // godwit runs as root in containers
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("dns-prefetch-disable", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-crash-reporter", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("safebrowsing-disable-auto-update", true),
		chromedp.Flag("disable-field-trial-config", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-hang-monitor", true),
		chromedp.Flag("disable-popup-blocking", true),
		chromedp.Flag("disable-prompt-on-repost", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,OptimizationHintsFetching,"+
			"OptimizationGuideModelDownloading,OptimizationTargetPrediction,MediaRouter,"+
			"DialMediaRouteProvider,CertificateTransparencyComponentUpdater,"+
			"AutofillServerCommunication,NetworkTimeServiceQuerying,InterestFeedContentSuggestions,"+
			"CalculateNativeWinOcclusion,HttpsUpgrades"),
		// Defence in depth: anything that escaped the Fetch domain meets a
		// proxy that is not there (also for loopback) and a resolver that
		// resolves nothing.
		chromedp.Flag("proxy-server", "http://127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.WindowSize(1280, 1024),
	}
}

func startBrowser(cfg Config) (*browser, error) {
	dir, err := os.MkdirTemp("", "godwit-chromium-")
	if err != nil {
		return nil, err
	}
	opts := append(flags(),
		chromedp.ExecPath(cfg.Browser),
		chromedp.UserDataDir(dir),
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			if cmd.SysProcAttr == nil {
				cmd.SysProcAttr = new(syscall.SysProcAttr)
			}
			// Its own group, killed whole on Close; killed by the kernel
			// when godwit dies.
			cmd.SysProcAttr.Setpgid = true
			cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
		}),
	)
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	b := &browser{allocCancel: allocCancel, ctx: ctx, cancel: cancel, dataDir: dir}
	// The first run starts the browser, which lives as long as the
	// context of that run: no timeout on it (the allocator's own bound on
	// reading the DevTools address applies).
	if err := chromedp.Do(ctx); err != nil {
		b.close()
		return nil, fmt.Errorf("render: start %s: %w", cfg.Browser, err)
	}
	if c := chromedp.FromContext(ctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
		b.pid = c.Browser.Process().Pid
	}
	return b, nil
}

func (b *browser) close() {
	b.closeOnce.Do(func() {
		b.cancel()
		b.allocCancel()
		if b.pid > 0 {
			// Whatever of the group outlived the cancel.
			_ = syscall.Kill(-b.pid, syscall.SIGKILL)
		}
		_ = os.RemoveAll(b.dataDir)
	})
}

// groupRSS sums the proportional set size (PSS: shared pages divided
// among their users, so that the browser's processes, which share most of
// their memory, are not counted many times over) of the live processes in
// process group pgid, from /proc; 0 where /proc is not readable.
func groupRSS(pgid int) int64 {
	var total int64
	for _, p := range groupProcs(pgid) {
		total += pss(p.pid)
	}
	return total
}

// pss reads the Pss line of /proc/PID/smaps_rollup, in bytes.
func pss(pid int) int64 {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "smaps_rollup"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// procCPU is the user+system CPU time of process pid and of its children
// that exited and were waited for, in ms, from /proc.
func procCPU(pid int) float64 {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return 0
	}
	var ticks float64
	for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime
		v, _ := strconv.ParseFloat(f[i], 64)
		ticks += v
	}
	return ticks * 1000 / clockTicks
}

// clockTicks is USER_HZ, 100 on Linux.
const clockTicks = 100

type proc struct {
	pid int
}

// groupProcs lists the live (not zombie) processes of process group pgid,
// from /proc.
func groupProcs(pgid int) []proc {
	if pgid <= 0 {
		return nil
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var procs []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// After the parenthesized command: state ppid pgrp ...
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g != pgid {
			continue
		}
		procs = append(procs, proc{pid: pid})
	}
	return procs
}

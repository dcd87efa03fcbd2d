package render

import (
	"net/url"
	"sync"

	"github.com/godwit-crawler/godwit/internal/extract"
)

// Signals are what a plain fetch of an HTML page says about whether it
// needs a browser. The crawl reads them in its one pass over the page
// (extract.Options.Signals, whose Signals has the same fields).
type Signals struct {
	TextBytes   int  // visible text, whitespace collapsed
	ScriptBytes int  // inline script bytes
	Scripts     int  // <script> elements (inline or src)
	Links       int  // a[href] and area[href]
	EmptyRoot   bool // an empty application root: div#root, div#app, div#__next, div#__nuxt, app-root
	NoScriptJS  bool // a <noscript> asking for JavaScript
}

// readBase is the page URL Read gives extraction: signals do not depend
// on it.
var readBase = &url.URL{Scheme: "http", Host: "signals.invalid", Path: "/"}

// Read reads the signals of an HTML page decoded to UTF-8, as the crawl
// does in its pass over a page (extract.HTML with Options.Signals).
func Read(body []byte) Signals {
	d, err := extract.HTML(readBase, body, &extract.Options{ContentType: "text/html; charset=utf-8", Signals: true})
	if err != nil {
		return Signals{}
	}
	return Signals(d.Signals)
}

// Thresholds of the trigger; see docs/decisions.md.
const (
	// ThinText is the visible text below which a page with scripts is
	// suspect.
	ThinText = 400
	// ScriptRatio is how many times its text a page's inline script must
	// be to count as script-built.
	ScriptRatio = 4
	// NewText is the visible text a render must add to count as paying
	// when it found no new link.
	NewText = 200
)

// Reasons returns why s suggests rendering, empty when it does not.
// renderedLinks is the mean number of links the host's rendered pages had
// (0 when none was rendered yet).
func (s Signals) Reasons(renderedLinks float64) []string {
	var r []string
	if s.EmptyRoot {
		r = append(r, "empty-app-root")
	}
	if s.NoScriptJS {
		r = append(r, "noscript")
	}
	if s.Scripts > 0 && s.TextBytes < ThinText {
		r = append(r, "thin-text")
	}
	if s.ScriptBytes > ScriptRatio*max(s.TextBytes, 1) && s.ScriptBytes > 1024 {
		r = append(r, "script-heavy")
	}
	if renderedLinks >= 4 && float64(s.Links) < renderedLinks/4 {
		r = append(r, "few-links")
	}
	return r
}

// Mode is the render mode.
type Mode string

// The render modes.
const (
	Never  Mode = "never"
	Auto   Mode = "auto"
	Always Mode = "always"
)

// Verdict is what a Selector learnt about a host.
type Verdict string

// Verdicts.
const (
	Learning Verdict = "learning" // renders pages whose signals ask for it
	Pays     Verdict = "pays"     // renders every page of the host
	Useless  Verdict = "useless"  // renders none of the host's pages
)

// HostReport is a host's rendering decision and its evidence.
type HostReport struct {
	Verdict      Verdict  `json:"verdict"`
	Rendered     int      `json:"rendered"`      // pages rendered
	Found        int      `json:"found"`         // renders that found links or text the plain fetch missed
	FoundNothing int      `json:"found_nothing"` // renders that found nothing new
	NewLinks     int      `json:"new_links"`     // links found only by rendering
	MeanLinks    float64  `json:"mean_rendered_links"`
	LastReasons  []string `json:"last_reasons,omitempty"` // the signals of the last page picked
}

// Selector decides, in auto mode, which pages to render, and learns per
// host whether rendering pays. It is safe for concurrent use.
type Selector struct {
	mode  Mode
	k     int
	share float64

	mu       sync.Mutex
	hosts    map[string]*HostReport
	pages    int64 // HTML pages considered
	rendered int64 // renders started
	explored int64 // of those, on hosts not known to pay: the share's
}

// NewSelector returns a Selector; k is how many renders decide a host,
// share the most of the pages that may be rendered in auto mode on hosts
// not known to pay: the renders that explore (a host whose renders have
// all paid so far is rendered beyond the share; one known to pay, whole).
func NewSelector(mode Mode, k int, share float64) *Selector {
	if k <= 0 {
		k = 3
	}
	return &Selector{mode: mode, k: k, share: share, hosts: map[string]*HostReport{}}
}

// Decide says whether to render an HTML page of host whose plain fetch
// gave s, and why. A yes reserves a share of the budget: the caller
// reports the render with Learn (or Abandon when it could not render).
func (sel *Selector) Decide(host string, s Signals) (bool, []string) {
	sel.mu.Lock()
	defer sel.mu.Unlock()
	sel.pages++
	if sel.mode == Never {
		return false, nil
	}
	h := sel.host(host)
	var why []string
	switch {
	case sel.mode == Always:
		why = []string{"always"}
	case h.Verdict == Useless:
		return false, nil
	case h.Verdict == Pays:
		why = []string{"host-pays"}
	default:
		why = s.Reasons(h.MeanLinks)
		if len(why) == 0 {
			return false, nil
		}
		if h.Found > 0 && h.FoundNothing == 0 {
			// Every render of the host so far paid: confirming it is
			// not exploring, or a small SPA site, whose pages are
			// found only by rendering, would never be learnt.
			why = append([]string{"host-paying"}, why...)
		}
	}
	explore := sel.exploring(why)
	// k renders explore whatever the share: enough to learn a first
	// host, however few pages a crawl (or a cluster node) has seen.
	if explore && float64(sel.explored+1) > sel.share*float64(sel.pages)+float64(sel.k) {
		return false, nil // over the render budget
	}
	sel.rendered++
	if explore {
		sel.explored++
	}
	h.LastReasons = why
	return true, why
}

// exploring reports whether a render granted for why counts against the
// share: in auto mode, unless its host is known to pay or every render
// of it so far paid.
func (sel *Selector) exploring(why []string) bool {
	return sel.mode == Auto && (len(why) == 0 || (why[0] != "host-pays" && why[0] != "host-paying"))
}

// Abandon gives back a render Decide granted, for why, that did not
// happen.
func (sel *Selector) Abandon(why []string) {
	sel.mu.Lock()
	sel.rendered--
	if sel.exploring(why) {
		sel.explored--
	}
	sel.mu.Unlock()
}

// Learn records what a render of a host's page found: plain and rendered
// are the signals of the plain and the rendered page, newLinks the links
// only the rendered page had.
func (sel *Selector) Learn(host string, plain, rendered Signals, newLinks int) {
	sel.mu.Lock()
	defer sel.mu.Unlock()
	h := sel.host(host)
	h.MeanLinks = (h.MeanLinks*float64(h.Rendered) + float64(rendered.Links)) / float64(h.Rendered+1)
	h.Rendered++
	h.NewLinks += newLinks
	if newLinks > 0 || rendered.TextBytes-plain.TextBytes >= NewText {
		h.Found++
	} else {
		h.FoundNothing++
	}
	if h.Verdict == Learning {
		switch {
		case h.Found >= sel.k:
			h.Verdict = Pays
		case h.FoundNothing >= sel.k:
			h.Verdict = Useless
		}
	}
}

func (sel *Selector) host(name string) *HostReport {
	h := sel.hosts[name]
	if h == nil {
		h = &HostReport{Verdict: Learning}
		sel.hosts[name] = h
	}
	return h
}

// Host returns the report of host, false when nothing was decided there.
func (sel *Selector) Host(name string) (HostReport, bool) {
	sel.mu.Lock()
	defer sel.mu.Unlock()
	h, ok := sel.hosts[name]
	if !ok {
		return HostReport{}, false
	}
	r := *h
	r.LastReasons = append([]string(nil), h.LastReasons...)
	return r, true
}

// Totals returns the pages considered and the renders granted.
func (sel *Selector) Totals() (pages, rendered int64) {
	sel.mu.Lock()
	defer sel.mu.Unlock()
	return sel.pages, sel.rendered
}

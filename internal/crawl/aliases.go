package crawl

import (
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// URL aliases are learnt per host, as DUST-Buster (Bar-Yossef, Keidar,
// Schonfeld, WWW 2007) and Koppula et al. (WSDM 2010) learn "different
// URLs with similar text" rules: candidate rewrite rules (drop an index
// file name as the last segment, drop a trailing slash, lower-case the
// path, drop a query parameter) are confirmed when two URLs that differ
// by the rule return identical payloads, and contradicted when they
// return different ones. Payloads are compared with their volatile
// tokens masked (Outcome.Similar): a page that embeds a CSRF token, a
// session id or a nonce never answers the same bytes twice, and "similar
// text" is, as DUST-Buster has it, what makes two URLs aliases. A rule with no counter-example on a host, at
// least one confirmation there and Aliases.Confirmations in all (pooled
// over the hosts where it was never contradicted), is adopted for the
// host: the alias filter rewrites that host's links with it before the
// seen-set, and URLs queued before it was adopted are dropped at lease
// time in favour of their rewritten form. One in Aliases.VerifyEvery of
// the distinct URLs a rule would rewrite is fetched anyway, so that a
// counter-example can still come, and retract the rule.
//
// A host's www. and bare names are learnt to be one site the same way,
// by pair of names (AliasWWW, aliases_www.go).

// Aliases configures URL alias learning.
type Aliases struct {
	// Off turns learning and rewriting off.
	Off bool
	// Confirmations is how many identical payloads adopt a rule, pooled
	// over the hosts where it was never contradicted, at least one of
	// them on the host itself; default 3.
	Confirmations int
	// VerifyEvery: of the distinct URLs of a host that an adopted rule
	// would rewrite, every VerifyEvery-th is fetched as it is, to verify
	// the rule; default 20, negative: never.
	VerifyEvery int
}

// Default fills zero fields.
func (a *Aliases) Default() {
	if a.Confirmations == 0 {
		a.Confirmations = 3
	}
	if a.VerifyEvery == 0 {
		a.VerifyEvery = 20
	}
}

// Validate reports settings that cannot work.
func (a Aliases) Validate() error {
	if a.Confirmations < 1 {
		return fmt.Errorf("crawl: alias confirmations %d must be at least 1", a.Confirmations)
	}
	return nil
}

// AliasKind is a kind of candidate rewrite rule.
type AliasKind uint8

const (
	// AliasIndex drops an index file name (AliasRule.Param: index.html,
	// index.htm, index.php, default.aspx, default.asp, matched without
	// regard to case) as the last path segment: /a/index.html → /a/.
	AliasIndex AliasKind = iota + 1
	// AliasTrailingSlash drops the trailing slashes of a path but "/":
	// /a/ → /a.
	AliasTrailingSlash
	// AliasCase lower-cases the path (escapes keep their upper-case
	// hex): /A/B → /a/b.
	AliasCase
	// AliasParam drops the query parameter AliasRule.Param.
	AliasParam
	// AliasWWW moves the host's URLs to its other name AliasRule.Param,
	// the same name with or without "www." (aliases_www.go): the host is
	// the www. or bare name of the same site.
	AliasWWW
)

var aliasKindNames = [...]string{AliasIndex: "index", AliasTrailingSlash: "trailing-slash", AliasCase: "case", AliasParam: "param", AliasWWW: "www"}

func (k AliasKind) String() string {
	if k >= AliasIndex && int(k) < len(aliasKindNames) {
		return aliasKindNames[k]
	}
	return fmt.Sprintf("AliasKind(%d)", int(k))
}

// indexNames are the index file names AliasIndex knows.
var indexNames = []string{"index.html", "index.htm", "index.php", "default.aspx", "default.asp"}

// AliasRule is one rewrite rule.
type AliasRule struct {
	Kind  AliasKind
	Param string // the index file name, or the parameter name
}

func (r AliasRule) String() string {
	switch r.Kind {
	case AliasIndex:
		return "drop /" + r.Param
	case AliasParam:
		return "drop ?" + r.Param
	case AliasTrailingSlash:
		return "drop trailing /"
	case AliasCase:
		return "lower-case path"
	case AliasWWW:
		return "same site as " + r.Param
	}
	return r.Kind.String()
}

// apply rewrites u (a copy is returned) and reports whether it changed.
func (r AliasRule) apply(u *url.URL) (*url.URL, bool) {
	v := *u
	switch r.Kind {
	case AliasIndex:
		i := strings.LastIndexByte(v.Path, '/')
		if i < 0 || !strings.EqualFold(v.Path[i+1:], r.Param) {
			return u, false
		}
		v.Path, v.RawPath = v.Path[:i+1], ""
	case AliasTrailingSlash:
		if len(v.Path) < 2 || !strings.HasSuffix(v.Path, "/") {
			return u, false
		}
		v.Path, v.RawPath = strings.TrimRight(v.Path, "/"), ""
		if v.Path == "" {
			return u, false
		}
	case AliasCase:
		p := v.EscapedPath()
		low := lowerOutsideEscapes(p)
		if low == p {
			return u, false
		}
		un, err := url.PathUnescape(low)
		if err != nil {
			return u, false
		}
		v.Path, v.RawPath = un, low
	case AliasParam:
		if v.RawQuery == "" {
			return u, false
		}
		parts := strings.Split(v.RawQuery, "&")
		kept := parts[:0]
		for _, p := range parts {
			if name, _, _ := strings.Cut(p, "="); name != r.Param {
				kept = append(kept, p)
			}
		}
		q := strings.Join(kept, "&")
		if q == v.RawQuery {
			return u, false
		}
		v.RawQuery, v.ForceQuery = q, false
	case AliasWWW:
		if v.Host == r.Param {
			return u, false
		}
		v.Host = r.Param
	default:
		return u, false
	}
	return &v, true
}

// lowerOutsideEscapes lower-cases s but the hex digits of its escapes.
func lowerOutsideEscapes(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		if b[i] == '%' {
			i += 2
			continue
		}
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

// AliasEvidence is what one host taught about one rule.
type AliasEvidence struct {
	Rule AliasRule
	// Confirmations counts pairs of URLs differing by the rule that
	// returned identical payloads, volatile tokens masked (each payload
	// counted once).
	Confirmations int
	// Contradicted: a pair returned different payloads. The rule is
	// never adopted for the host (and retracted if it was).
	Contradicted bool
	// Adopted: the host's links are rewritten with the rule.
	Adopted bool
}

// HostAliases is a host's alias learning state, as the frontier keeps
// it with the host record.
type HostAliases struct {
	Rules []AliasEvidence
}

// Adopted lists the rules adopted for the host.
func (h HostAliases) Adopted() []AliasRule {
	var rs []AliasRule
	for _, e := range h.Rules {
		if e.Adopted {
			rs = append(rs, e.Rule)
		}
	}
	return rs
}

// AliasStats counts what alias learning did.
type AliasStats struct {
	Rewritten int64 // links rewritten by an adopted rule before the seen-set
	Skipped   int64 // queued URLs dropped at lease time for their rewritten form
	Verified  int64 // links and queued URLs an adopted rule would rewrite, kept as they are to verify it
	Adopted   int64 // rules adopted for a host
	Retracted int64 // adopted rules a counter-example retracted
}

// Limits of alias learning's memory.
const (
	maxAliasRules   = 16      // rules with evidence per host
	maxParamRules   = 4       // of which parameter rules
	maxAliasPrints  = 1 << 17 // payload fingerprints remembered, all hosts together
	aliasSampleRing = 64      // distinct rewritten keys remembered per host, to count them
)

// aliases is the crawl core's alias learner and rewriter. Rule state is
// per host, in memory, loaded from each lease (the frontier persists it)
// and handed back through Outcome.Aliases when it changed. Payload
// fingerprints are in a bounded table shared by all hosts. Safe for
// concurrent use.
type aliases struct {
	cfg    Aliases
	canon  *urlnorm.Canonicalizer
	log    *slog.Logger
	stats  *counters
	mu     sync.Mutex
	hosts  map[string]*hostAliases
	pooled map[AliasRule]int // confirmations on hosts that never contradicted the rule
	prints map[uint64]aliasPrint
	learnt uint64 // hosts that had a page compared, for hostAliases.first
}

// aliasPrint is a payload fingerprint remembered for a URL key, or for a
// URL key as a rule rewrites it (then orig is the key's own hash).
type aliasPrint struct {
	content uint64
	orig    uint64
}

type hostAliases struct {
	state HostAliases
	seen  map[AliasRule][]uint64 // confirming payloads counted, per rule
	dirty bool                   // changed since the frontier last got it
	// The verification sampler: distinct keys rewritten (approximately:
	// a ring of the last ones), of which every VerifyEvery-th is fetched.
	ring    [aliasSampleRing]uint64
	ringPos int
	count   int
	pending []uint64 // keys chosen for verification
	// credit counts the host's pages fetched under its www. pair's
	// alias name that confirmed the pair before it was adopted: fetched
	// as they were and compared, they stand for as many verification
	// fetches (sample).
	credit int
	// first orders the hosts by their first page compared (learn), for
	// the choice of a www. pair's canonical name (aliases_www.go).
	first uint64
}

func newAliases(cfg Aliases, canon *urlnorm.Canonicalizer, log *slog.Logger, stats *counters) *aliases {
	return &aliases{cfg: cfg, canon: canon, log: log, stats: stats,
		hosts: make(map[string]*hostAliases), pooled: make(map[AliasRule]int), prints: make(map[uint64]aliasPrint)}
}

// load takes a host's stored state from its lease, unless this process
// already holds the host's state (which is then newer).
func (a *aliases) load(l Lease) {
	if a.cfg.Off {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.hosts[l.Task.Host] != nil {
		return
	}
	h := &hostAliases{state: HostAliases{Rules: slices.Clone(l.Aliases.Rules)}, seen: map[AliasRule][]uint64{}}
	for _, e := range h.state.Rules {
		if !e.Contradicted {
			a.pooled[e.Rule.pool()] += e.Confirmations
		}
	}
	a.hosts[l.Task.Host] = h
}

// persist hands the host's state to the frontier through out when it
// changed.
func (a *aliases) persist(host string, out *Outcome) {
	if a.cfg.Off {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	h := a.hosts[host]
	if h == nil || !h.dirty {
		return
	}
	h.dirty = false
	st := HostAliases{Rules: slices.Clone(h.state.Rules)}
	out.Aliases = &st
}

// learn compares the payload of a page fetched on t's lease with those
// of the URLs it differs from by a candidate rule.
func (a *aliases) learn(t Task, out *Outcome) {
	if a.cfg.Off || out.Status < 200 || out.Status >= 300 || out.Content == 0 || t.Sitemap > 0 || t.Replay != nil {
		return
	}
	u, err := urlnorm.Parse(t.Key)
	if err != nil {
		return
	}
	self := xxhash.Sum64String(t.Key)
	// Payloads are compared with their volatile tokens masked: a page
	// that embeds a CSRF token or a session id answers different bytes
	// on every request, its alias too.
	content := out.Similar
	if content == 0 {
		content = out.Content
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	h := a.hosts[t.Host]
	if h == nil {
		return // not loaded: not leased through load
	}
	if h.first == 0 {
		a.learnt++
		h.first = a.learnt
	}
	for _, r := range a.candidates(h, u) {
		v, changed := r.apply(u)
		if changed {
			// t is an alias form: compare with its rewritten form, or
			// with another alias of it.
			c := a.canon.Key(v)
			if p, ok := a.prints[printKey(t.Host, AliasRule{}, c)]; ok {
				a.evidence(t.Host, h, r, p.content == content, content)
			} else if p, ok := a.prints[printKey(t.Host, r, c)]; ok && p.orig != self {
				a.evidence(t.Host, h, r, p.content == content, content)
			}
			a.remember(printKey(t.Host, r, c), aliasPrint{content, self})
			continue
		}
		// t may be the rewritten form of an alias fetched before.
		if p, ok := a.prints[printKey(t.Host, r, t.Key)]; ok && p.orig != self {
			a.evidence(t.Host, h, r, p.content == content, content)
		}
	}
	a.learnWWW(t, u, h, content)
	a.remember(printKey(t.Host, AliasRule{}, t.Key), aliasPrint{content, self})
}

// candidates are the rules worth checking for u on host h: the fixed
// ones, the parameters of u, and the parameter rules h has evidence for.
// a.mu must be held.
func (a *aliases) candidates(h *hostAliases, u *url.URL) []AliasRule {
	rs := make([]AliasRule, 0, len(indexNames)+6)
	for _, n := range indexNames {
		rs = append(rs, AliasRule{AliasIndex, n})
	}
	rs = append(rs, AliasRule{Kind: AliasTrailingSlash}, AliasRule{Kind: AliasCase})
	params := 0
	for _, e := range h.state.Rules {
		if e.Rule.Kind == AliasParam {
			rs = append(rs, e.Rule)
			params++
		}
	}
	for q := u.RawQuery; q != "" && params < maxParamRules; {
		var p string
		p, q, _ = strings.Cut(q, "&")
		name, _, _ := strings.Cut(p, "=")
		if r := (AliasRule{AliasParam, name}); name != "" && !slices.Contains(rs, r) {
			rs = append(rs, r)
			params++
		}
	}
	return rs
}

// remember stores a fingerprint, evicting an arbitrary one when the
// table is full. a.mu must be held.
func (a *aliases) remember(k uint64, p aliasPrint) {
	if _, ok := a.prints[k]; !ok && len(a.prints) >= maxAliasPrints {
		for old := range a.prints {
			delete(a.prints, old)
			break
		}
	}
	a.prints[k] = p
}

func printKey(host string, r AliasRule, key string) uint64 {
	d := xxhash.New()
	_, _ = d.WriteString(host)
	_, _ = d.Write([]byte{0, byte(r.Kind)})
	_, _ = d.WriteString(r.Param)
	_, _ = d.Write([]byte{0})
	_, _ = d.WriteString(key)
	return d.Sum64()
}

// evidence records a pair differing by r on host: identical payloads
// (same) confirm it, different ones contradict it. a.mu must be held.
func (a *aliases) evidence(host string, h *hostAliases, r AliasRule, same bool, content uint64) {
	e := h.rule(r)
	if e == nil || e.Contradicted {
		return
	}
	if !same {
		a.pooled[r.pool()] -= e.Confirmations
		e.Contradicted, h.dirty = true, true
		if e.Adopted {
			e.Adopted = false
			a.stats.aliasRetracted.Add(1)
			a.log.Info("URL alias rule retracted: a counter-example", "host", host, "rule", r.String())
		}
		return
	}
	if slices.Contains(h.seen[r], content) {
		return // the same payload again: no new evidence
	}
	if len(h.seen[r]) < a.cfg.Confirmations {
		h.seen[r] = append(h.seen[r], content)
	}
	if r.Kind == AliasWWW && !e.Adopted {
		h.credit++
	}
	e.Confirmations++
	a.pooled[r.pool()]++
	h.dirty = true
	a.adopt(host, e)
}

// pool is the key under which r's confirmations are pooled over hosts:
// the rule itself, but for AliasWWW, whose parameter names the pair's
// other host, and which is pooled over all pairs.
func (r AliasRule) pool() AliasRule {
	if r.Kind == AliasWWW {
		return AliasRule{Kind: AliasWWW}
	}
	return r
}

// rule returns h's evidence for r, created if there is room. a.mu must
// be held.
func (h *hostAliases) rule(r AliasRule) *AliasEvidence {
	for i := range h.state.Rules {
		if h.state.Rules[i].Rule == r {
			return &h.state.Rules[i]
		}
	}
	if len(h.state.Rules) >= maxAliasRules {
		return nil
	}
	h.state.Rules = append(h.state.Rules, AliasEvidence{Rule: r})
	return &h.state.Rules[len(h.state.Rules)-1]
}

// adopt adopts e's rule for host when the evidence allows. a.mu must be
// held.
func (a *aliases) adopt(host string, e *AliasEvidence) bool {
	if e.Adopted || e.Contradicted || e.Confirmations < 1 || a.pooled[e.Rule.pool()] < a.cfg.Confirmations {
		return e.Adopted
	}
	e.Adopted = true
	a.stats.aliasAdopted.Add(1)
	a.log.Info("URL alias rule adopted", "host", host, "rule", e.Rule.String(),
		"confirmations", e.Confirmations, "pooled", a.pooled[e.Rule.pool()])
	return true
}

// rewrite applies host's adopted rules to u; ok is false when none
// changes it, or when the sampler keeps the URL as it is to verify the
// rules (verify is then true).
func (a *aliases) rewrite(host string, u *url.URL) (v *url.URL, ok, verify bool) {
	if a.cfg.Off {
		return u, false, false
	}
	rules, h := a.adopted(host)
	if len(rules) == 0 {
		return u, false, false
	}
	v = u
	if r := rules[0]; r.Kind == AliasWWW && a.oneWay(host, r.Param) {
		// The other name's URLs, spelled as that host's rules spell
		// them (aliases_www.go).
		if w, changed := r.apply(v); changed {
			v, ok = w, true
			rules, _ = a.adopted(r.Param)
		}
	}
	for _, r := range rules {
		if r.Kind == AliasWWW {
			continue
		}
		if w, changed := r.apply(v); changed {
			v, ok = w, true
		}
	}
	if !ok {
		return u, false, false
	}
	k := xxhash.Sum64String(a.canon.Key(u))
	a.mu.Lock()
	verify = a.sample(h, k)
	a.mu.Unlock()
	if verify {
		return u, false, true
	}
	return v, true, false
}

// adopted returns the rules adopted for host (adopting those the pooled
// evidence now allows) and its state.
func (a *aliases) adopted(host string) ([]AliasRule, *hostAliases) {
	a.mu.Lock()
	defer a.mu.Unlock()
	h := a.hosts[host]
	if h == nil {
		return nil, nil
	}
	var rules []AliasRule
	for i := range h.state.Rules {
		e := &h.state.Rules[i]
		if !e.Adopted {
			if !a.adopt(host, e) {
				continue
			}
			h.dirty = true // adopted on pooled evidence: the frontier must learn it
		}
		rules = append(rules, e.Rule)
	}
	// A fixed order, so that every spelling reaches the same form:
	// /A/Index.html/ … the host first, index files next, the trailing
	// slash last.
	slices.SortStableFunc(rules, func(x, y AliasRule) int { return x.Kind.order() - y.Kind.order() })
	return rules, h
}

// order is where rewrite applies rules of kind k.
func (k AliasKind) order() int {
	switch k {
	case AliasWWW:
		return -1
	case AliasIndex:
		return 0
	case AliasParam:
		return 1
	case AliasCase:
		return 2
	case AliasTrailingSlash:
		return 3
	}
	return 4 // unknown kinds (a newer version's) change nothing
}

// sample decides whether the distinct key k, which an adopted rule would
// rewrite, is fetched as it is. a.mu must be held.
func (a *aliases) sample(h *hostAliases, k uint64) bool {
	if slices.Contains(h.pending, k) {
		return true
	}
	if a.cfg.VerifyEvery < 0 || slices.Contains(h.ring[:], k) {
		return false
	}
	h.ring[h.ringPos] = k
	h.ringPos = (h.ringPos + 1) % len(h.ring)
	h.count++
	if h.count%a.cfg.VerifyEvery != 0 {
		return false
	}
	if h.credit > 0 {
		h.credit-- // verified already, while the www. pair was learnt
		return false
	}
	if len(h.pending) >= 8 {
		h.pending = h.pending[1:]
	}
	h.pending = append(h.pending, k)
	return true
}

// aliasFilter rewrites a link with its host's adopted alias rules, so
// that the seen-set sees one spelling. A redirect target is left alone:
// it is where the server says the content is.
type aliasFilter struct{ c *Crawler }

func (f aliasFilter) filter(cd *candidate) verdict {
	if cd.redirect {
		return pass
	}
	v, ok, verify := f.c.rewriteAlias(cd.link.Host, cd.url)
	switch {
	case verify:
		f.c.stats.aliasVerified.Add(1)
	case ok:
		f.c.stats.aliasRewritten.Add(1)
		cd.url, cd.link.URL, cd.link.Host = v, v.String(), urlnorm.Host(v)
	}
	return pass
}

// rewriteAlias is aliases.rewrite, but a rewrite to another host (a
// www. alias) that would take the URL out of the crawl's scope is not
// made: alias learning never narrows, nor widens, the scope.
func (c *Crawler) rewriteAlias(host string, u *url.URL) (v *url.URL, ok, verify bool) {
	v, ok, verify = c.aliases.rewrite(host, u)
	if ok && v.Host != u.Host {
		if in, _, _ := c.scope.decide(v, v.String()); !in {
			return u, false, false
		}
	}
	return v, ok, verify
}

// ReasonAlias is the Outcome.Reason of a queued URL dropped at lease
// time because a rule adopted since rewrites it: its rewritten form is
// queued instead (a no-op when already seen).
const ReasonAlias = "alias"

// aliasAtLease drops a task that an alias rule adopted after it was
// queued rewrites, unless the sampler keeps it to verify the rule, and
// returns the rewritten link to queue in its place.
func (c *Crawler) aliasAtLease(t Task) (Outcome, []Link, bool) {
	if c.aliases.cfg.Off || t.Replay != nil || t.Revisit || t.Sitemap > 0 || t.Hops > 0 {
		return Outcome{}, nil, false
	}
	u, err := urlnorm.Parse(t.URL)
	if err != nil {
		return Outcome{}, nil, false
	}
	v, ok, verify := c.rewriteAlias(t.Host, u)
	if verify {
		c.stats.aliasVerified.Add(1)
	}
	if !ok {
		return Outcome{}, nil, false
	}
	l := t.Link
	c.fillLink(&l, v)
	if l.Key == t.Key {
		return Outcome{}, nil, false
	}
	c.stats.aliasSkipped.Add(1)
	c.stats.countClass(ClassPolicy)
	l.Hops = 0
	c.log.Debug("alias dropped at lease", "url", t.URL, "as", l.URL)
	return Outcome{Disposition: Done, Class: ClassPolicy, Reason: ReasonAlias}, []Link{l}, true
}

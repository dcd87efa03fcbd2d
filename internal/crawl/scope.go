package crawl

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// ScopeMode says which discovered URLs belong to the crawl, relative to its seeds.
type ScopeMode string

const (
	ScopeHost   ScopeMode = "host"   // the seeds' hosts (and ports) exactly
	ScopeDomain ScopeMode = "domain" // the seeds' registrable domains (public suffix list)
	ScopeAny    ScopeMode = "any"    // everything reachable
)

// ParseScope checks a scope name.
func ParseScope(s string) (ScopeMode, error) {
	switch m := ScopeMode(s); m {
	case ScopeHost, ScopeDomain, ScopeAny:
		return m, nil
	}
	return "", fmt.Errorf("crawl: unknown scope %q (want host, domain or any)", s)
}

// ScopeRules name URLs by prefix or by regular expression. Both are
// matched against the normalized URL (urlnorm.Parse), the form that is
// fetched, so "HTTP://Example.com/docs" as a prefix matches
// "http://example.com/docs/a".
type ScopeRules struct {
	// Prefixes are URL prefixes, themselves normalized before matching.
	Prefixes []string
	// Patterns are RE2 regular expressions (Go's regexp syntax),
	// unanchored: write ^ and $ to anchor them.
	Patterns []string
}

// IsZero reports whether the rules name nothing.
func (r ScopeRules) IsZero() bool { return len(r.Prefixes) == 0 && len(r.Patterns) == 0 }

// validate reports every prefix that is not an http(s) URL and every
// pattern that does not compile; what names the rules ("include").
func (r ScopeRules) validate(what string) error {
	var errs []error
	for _, p := range r.Prefixes {
		if _, err := urlnorm.Parse(p); err != nil {
			errs = append(errs, fmt.Errorf("crawl: %s prefix %q: %w", what, p, err))
		}
	}
	for _, p := range r.Patterns {
		if _, err := regexp.Compile(p); err != nil {
			errs = append(errs, fmt.Errorf("crawl: %s pattern %q: %w", what, p, err))
		}
	}
	return errors.Join(errs...)
}

// matcher is compiled ScopeRules.
type matcher struct {
	prefixes []string
	patterns []*regexp.Regexp
}

// compile turns validated rules into a matcher; rules that do not
// validate are left out (Config.Validate has reported them). A prefix is
// used in its normalized form: "https://example.com" becomes
// "https://example.com/", which does not match "https://example.com.evil/".
func (r ScopeRules) compile() matcher {
	var m matcher
	for _, p := range r.Prefixes {
		if u, err := urlnorm.Parse(p); err == nil {
			m.prefixes = append(m.prefixes, u.String())
		}
	}
	for _, p := range r.Patterns {
		if re, err := regexp.Compile(p); err == nil {
			m.patterns = append(m.patterns, re)
		}
	}
	return m
}

// match returns the rule that matches the normalized URL s, or "".
func (m *matcher) match(s string) string {
	for _, p := range m.prefixes {
		if strings.HasPrefix(s, p) {
			return "prefix " + p
		}
	}
	for _, re := range m.patterns {
		if re.MatchString(s) {
			return "pattern " + re.String()
		}
	}
	return ""
}

// Scope decisions, as logged and counted.
const (
	scopeSeeds    = "seeds"    // in: the seeds' hosts or domains (or scope any)
	scopeIncluded = "included" // in: an include rule, outside the seeds' scope
	scopeExcluded = "excluded" // out: an exclude rule
	scopeOutside  = "outside"  // out: outside the seeds' hosts or domains
	// in: a page requisite, which may be on any host (Requisites.PageScope off)
	scopeRequisite = "requisite"
)

// scope decides which URLs belong to the crawl: exclude rules first, then
// include rules, then the seeds' hosts or domains. It remembers the seeds'
// hosts or domains; seeds may arrive while the crawl runs, so it is safe
// for concurrent use.
type scope struct {
	mode    ScopeMode
	include matcher
	exclude matcher
	mu      sync.RWMutex
	in      map[string]struct{}
	// domains caches urlnorm.Domain by host name for ScopeDomain: the
	// public suffix lookup cost ~0.4 µs and an allocation per link, and
	// a page's links name few hosts. Cleared when it reaches maxDomains.
	dmu     sync.Mutex
	domains map[string]string
}

// maxDomains bounds scope.domains.
const maxDomains = 4096

func newScope(cfg Config) *scope {
	return &scope{
		mode:    cfg.Scope,
		include: cfg.Include.compile(),
		exclude: cfg.Exclude.compile(),
		in:      make(map[string]struct{}),
	}
}

func (s *scope) key(u *url.URL) string {
	switch s.mode {
	case ScopeHost:
		return urlnorm.Host(u)
	case ScopeDomain:
		return s.domain(u.Hostname())
	}
	return ""
}

// domain is urlnorm.Domain(host), from the cache when it holds it.
func (s *scope) domain(host string) string {
	s.dmu.Lock()
	d, ok := s.domains[host]
	s.dmu.Unlock()
	if ok {
		return d
	}
	d = urlnorm.Domain(host)
	s.dmu.Lock()
	if s.domains == nil || len(s.domains) >= maxDomains {
		s.domains = make(map[string]string)
	}
	s.domains[strings.Clone(host)] = d
	s.dmu.Unlock()
	return d
}

// add widens the scope to include a seed.
func (s *scope) add(u *url.URL) {
	if s.mode == ScopeAny {
		return
	}
	k := s.key(u)
	s.mu.Lock()
	s.in[k] = struct{}{}
	s.mu.Unlock()
}

// decide says whether u, normalized and spelled s (u.String()), is in
// scope, why ("seeds", "included", "excluded", "outside"), and which rule
// decided when one did.
func (s *scope) decide(u *url.URL, str string) (in bool, why, rule string) {
	if rule := s.exclude.match(str); rule != "" {
		return false, scopeExcluded, rule
	}
	if s.inSeeds(u) {
		return true, scopeSeeds, ""
	}
	if rule := s.include.match(str); rule != "" {
		return true, scopeIncluded, rule
	}
	return false, scopeOutside, ""
}

// decideRequisite is decide for a page requisite under the default
// requisite scope: any host, unless an exclude rule matches.
func (s *scope) decideRequisite(str string) (in bool, why, rule string) {
	if rule := s.exclude.match(str); rule != "" {
		return false, scopeExcluded, rule
	}
	return true, scopeRequisite, ""
}

func (s *scope) inSeeds(u *url.URL) bool {
	if s.mode == ScopeAny {
		return true
	}
	k := s.key(u)
	s.mu.RLock()
	_, ok := s.in[k]
	s.mu.RUnlock()
	return ok
}

// seedScope widens the scope to a seed when its task comes to be
// processed. In single-node mode AddSeeds did so already; in a cluster
// crawl the seed may have been given to another node, and its links are
// judged here, possibly before this node read the crawl's seed list.
func (c *Crawler) seedScope(t Task) {
	if u, err := urlnorm.Parse(t.URL); err == nil {
		c.scope.add(u)
	}
}

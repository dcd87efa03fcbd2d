package crawl

import (
	"fmt"
	"net/url"
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

// scope remembers the seeds' hosts or domains. Seeds may arrive while the
// crawl runs, so it is safe for concurrent use.
type scope struct {
	mode ScopeMode
	mu   sync.RWMutex
	in   map[string]struct{}
}

func newScope(mode ScopeMode) *scope {
	return &scope{mode: mode, in: make(map[string]struct{})}
}

func (s *scope) key(u *url.URL) string {
	switch s.mode {
	case ScopeHost:
		return urlnorm.Host(u)
	case ScopeDomain:
		return urlnorm.Domain(u.Hostname())
	}
	return ""
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

func (s *scope) allows(u *url.URL) bool {
	if s.mode == ScopeAny {
		return true
	}
	k := s.key(u)
	s.mu.RLock()
	_, ok := s.in[k]
	s.mu.RUnlock()
	return ok
}

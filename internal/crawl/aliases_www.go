package crawl

import (
	"net/url"
	"strings"
)

// www. and bare-host aliases. Most sites answer under two names,
// example.com and www.example.com; many serve the same pages under both
// rather than redirect one to the other, and their pages link both (an
// absolute link in a template carries one name, another the other). To
// the seen-set they are two hosts, and the crawl fetches the site twice.
// The two names are learnt to be one site as the path aliases are
// (aliases.go): a page fetched under one name is compared with the same
// path and query fetched under the other, payloads with their volatile
// tokens masked; identical payloads confirm the pair, a different one
// contradicts it, for good. The pair's rule (AliasWWW) is kept by the
// host whose URLs it rewrites, its parameter the other name, so it is
// stored, handed out with leases and shown like the path rules, and its
// confirmations are pooled over all pairs (a rule "www. and bare names
// are one site" confirmed on other hosts). Adopted, it moves every link
// of the alias name to the canonical one before scope and the seen-set,
// and the canonical name's own rules spell it. The home page answering
// the same under both names adopts the pair at once: it is the page
// that tells sites apart (their name, navigation and news), and most
// pairs confirm on it first, since each name's home page is linked from
// the other's pages; verification and counter-examples still apply.
//
// Which name is canonical: the one whose first page was fetched first
// (in this process), i.e. the one the crawl was already crawling, which
// is the seed's name when a seed names one of the two (the other name is
// found on the seed's pages). Not the name of the first page fetched
// under both: the alias name's links may reach one page first. A name that redirects to the other
// needs no rule: its pages never answer 200, redirect following already
// takes every link to the name the server chose, and the redirects are
// not compared.

// wwwPartner returns the other name of host (a crawl host: lower case,
// with a non-default port): "www." added or removed. ok is false for an
// IP address, a one-label name, and "www.x" whose rest is one label.
func wwwPartner(host string) (partner string, ok bool) {
	if strings.HasPrefix(host, "[") {
		return "", false
	}
	name, port := host, ""
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		name, port = host[:i], host[i:]
	}
	if name == "" || '0' <= name[len(name)-1] && name[len(name)-1] <= '9' {
		return "", false // an IPv4 address (no top-level domain ends in a digit)
	}
	if rest, ok := strings.CutPrefix(name, "www."); ok {
		if !strings.Contains(rest, ".") {
			return "", false
		}
		return rest + port, true
	}
	if !strings.Contains(name, ".") {
		return "", false
	}
	return "www." + name + port, true
}

// learnWWW compares the page t fetched (its masked payload content)
// with the same URL on the host's other name, when that was fetched,
// and records the pair's evidence. a.mu must be held.
func (a *aliases) learnWWW(t Task, u *url.URL, h *hostAliases, content uint64) {
	partner, ok := wwwPartner(t.Host)
	if !ok {
		return
	}
	ph := a.hosts[partner]
	if ph == nil {
		return // never leased here: none of its pages was fetched
	}
	v := *u
	v.Host = partner
	p, ok := a.prints[printKey(partner, AliasRule{}, a.canon.Key(&v))]
	if !ok {
		return
	}
	// The pair has one rule, kept by its alias name: the name that
	// has it already, else the name whose first page was fetched last.
	host, st, r := t.Host, h, AliasRule{AliasWWW, partner}
	back := AliasRule{AliasWWW, t.Host}
	if ph.find(back) != nil || h.find(r) == nil && h.first < ph.first {
		host, st, r = partner, ph, back
	}
	a.evidence(host, st, r, p.content == content, content)
	if p.content != content || u.Path != "/" || u.RawQuery != "" {
		return
	}
	// The home page, the same under both names: a site's most
	// distinctive page (its name, its navigation, its news) is
	// evidence enough, without waiting for other pairs.
	if e := st.find(r); e != nil && !e.Adopted && !e.Contradicted {
		e.Adopted, st.dirty = true, true
		a.stats.aliasAdopted.Add(1)
		a.log.Info("URL alias rule adopted: the same home page under both names", "host", host, "rule", r.String())
	}
}

// find returns h's evidence for r, nil if it has none. a.mu must be
// held.
func (h *hostAliases) find(r AliasRule) *AliasEvidence {
	for i := range h.state.Rules {
		if h.state.Rules[i].Rule == r {
			return &h.state.Rules[i]
		}
	}
	return nil
}

// oneWay reports whether canonical has not adopted a rule that moves
// its URLs back to host. learnWWW keeps one rule per pair, but should
// two rules ever point at each other, each name's links would be moved
// to the other and both names' pages lost: neither is applied.
func (a *aliases) oneWay(host, canonical string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	h := a.hosts[canonical]
	if h == nil {
		return true
	}
	e := h.find(AliasRule{AliasWWW, host})
	return e == nil || !e.Adopted
}

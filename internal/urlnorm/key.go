package urlnorm

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Options configures the canonical crawl key. The zero value strips no
// parameters and sorts the query; [Options.Default] fills in the usual
// tracking and session parameters. Names match case-insensitively.
type Options struct {
	// StripParams are query parameter names removed from the key; an entry
	// ending in "*" matches every name with that prefix. Nil means the
	// default: utm_*, gclid, fbclid, mc_eid, mc_cid, msclkid, dclid, yclid,
	// _ga, igshid. An empty, non-nil slice strips nothing.
	StripParams []string
	// SessionParams are session identifiers removed from the key, both as
	// query parameters and as path parameters (";jsessionid=..."); "*" as
	// in StripParams. Nil means the default: jsessionid, phpsessid, sid,
	// sessionid, aspsessionid*.
	SessionParams []string
	// KeepQueryOrder keeps the parameters in page order; by default they
	// are sorted by name, stable for repeated names.
	KeepQueryOrder bool
}

// Default sets every nil list to its default.
func (o *Options) Default() {
	if o.StripParams == nil {
		o.StripParams = []string{"utm_*", "gclid", "fbclid", "mc_eid", "mc_cid", "msclkid", "dclid", "yclid", "_ga", "igshid"}
	}
	if o.SessionParams == nil {
		o.SessionParams = []string{"jsessionid", "phpsessid", "sid", "sessionid", "aspsessionid*"}
	}
}

// Validate reports names that can never match a parameter.
func (o *Options) Validate() error {
	var errs []error
	for _, list := range [][]string{o.StripParams, o.SessionParams} {
		for _, n := range list {
			if n == "" || strings.ContainsAny(n, "=&#;/?") {
				errs = append(errs, fmt.Errorf("urlnorm: invalid parameter name %q", n))
			}
		}
	}
	return errors.Join(errs...)
}

// Canonicalizer computes crawl keys with precompiled [Options]. It is
// immutable and safe for concurrent use.
type Canonicalizer struct {
	params    names // StripParams and SessionParams: removed from the query
	session   names // SessionParams: removed from path parameters
	keepOrder bool
}

// NewCanonicalizer compiles o, after filling in its defaults.
func NewCanonicalizer(o Options) *Canonicalizer {
	o.Default()
	return &Canonicalizer{
		params:    compileNames(append(slices.Clip(o.StripParams), o.SessionParams...)),
		session:   compileNames(o.SessionParams),
		keepOrder: o.KeepQueryOrder,
	}
}

// Key returns the canonical crawl key of u: its normalized form (see
// [Normalize]) without stripped and session parameters, with the query
// sorted and no '?' when the query ends up empty. Two spellings of the same
// page give the same key. Key is cheap on URLs that are already normalized:
// typically one allocation, the key itself.
func (c *Canonicalizer) Key(u *url.URL) string {
	p, err := split(u, false)
	if err != nil {
		return u.String()
	}
	path := c.session.stripPathParams(p.path)
	var b strings.Builder
	b.Grow(len(p.scheme) + len("://") + len(p.host) + len(path) + 1 + len(p.query))
	b.WriteString(p.scheme)
	b.WriteString("://")
	b.WriteString(p.host)
	b.WriteString(path)
	c.writeQuery(&b, p.query)
	return b.String()
}

// Key returns the crawl key of u under o (nil o: the defaults). It compiles
// o on every call; use a [Canonicalizer] on hot paths.
func Key(u *url.URL, o *Options) string {
	var opts Options
	if o != nil {
		opts = *o
	}
	return NewCanonicalizer(opts).Key(u)
}

// writeQuery writes "?" and the kept parameters of the normalized query q,
// or nothing when none is kept.
func (c *Canonicalizer) writeQuery(b *strings.Builder, q string) {
	if q == "" {
		return
	}
	var arr [32]string
	params := arr[:0]
	for q != "" {
		var param string
		param, q, _ = strings.Cut(q, "&")
		if param == "" {
			continue
		}
		name, _, _ := strings.Cut(param, "=")
		if c.params.match(name) {
			continue
		}
		params = append(params, param)
	}
	if len(params) == 0 {
		return
	}
	if !c.keepOrder {
		slices.SortStableFunc(params, compareNames)
	}
	b.WriteByte('?')
	for i, p := range params {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p)
	}
}

// compareNames orders query parameters by name.
func compareNames(a, b string) int {
	an, _, _ := strings.Cut(a, "=")
	bn, _, _ := strings.Cut(b, "=")
	return strings.Compare(an, bn)
}

// names is a compiled list of parameter names.
type names struct {
	exact    map[string]bool // lower-case
	prefixes []string        // lower-case, without the '*'
	first    [256]bool       // first bytes of all names (both cases)
	any      bool            // an empty prefix: every name matches
}

func compileNames(list []string) names {
	n := names{exact: make(map[string]bool, len(list))}
	for _, s := range list {
		s = strings.ToLower(s)
		p, prefix := strings.CutSuffix(s, "*")
		switch {
		case prefix && p == "":
			n.any = true
			continue
		case prefix:
			n.prefixes = append(n.prefixes, p)
		case s == "":
			continue
		default:
			n.exact[s] = true
		}
		c := p[0]
		n.first[c] = true
		if 'a' <= c && c <= 'z' {
			n.first[c-'a'+'A'] = true
		}
	}
	return n
}

// match reports whether the parameter name is in the list, ignoring case.
func (n *names) match(name string) bool {
	if n.any {
		return true
	}
	if name == "" || !n.first[name[0]] {
		return false
	}
	var arr [64]byte
	lower := arr[:0]
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower = append(lower, c)
	}
	if n.exact[string(lower)] {
		return true
	}
	for _, p := range n.prefixes {
		if len(lower) >= len(p) && string(lower[:len(p)]) == p {
			return true
		}
	}
	return false
}

// stripPathParams removes the ";name=value" path parameters whose name is
// in the list, as in "/cart;jsessionid=0123?x=1".
func (n *names) stripPathParams(path string) string {
	if strings.IndexByte(path, ';') < 0 || len(n.exact) == 0 && len(n.prefixes) == 0 && !n.any {
		return path
	}
	var b strings.Builder
	b.Grow(len(path))
	for path != "" {
		i := strings.IndexByte(path, ';')
		if i < 0 {
			b.WriteString(path)
			break
		}
		b.WriteString(path[:i])
		path = path[i:]
		end := strings.IndexAny(path[1:], ";/") + 1
		if end == 0 {
			end = len(path)
		}
		name, _, _ := strings.Cut(path[1:end], "=")
		if !n.match(name) {
			b.WriteString(path[:end])
		}
		path = path[end:]
	}
	return b.String()
}

package main

import (
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"strconv"
	"strings"

	"github.com/godwit-crawler/godwit/internal/freshness"
)

// validate checks what the packages' own Validate cannot: the shape of
// user-facing values.
func (s crawlSettings) validate() error {
	switch {
	case s.Data == "":
		return errors.New("--data must not be empty")
	case s.Delay < 0:
		return fmt.Errorf("--delay %v is negative", s.Delay)
	case s.IPConcurrency < 0:
		return fmt.Errorf("--ip-concurrency %d is negative", s.IPConcurrency)
	case s.IPDelay < 0:
		return fmt.Errorf("--ip-delay %v is negative", s.IPDelay)
	case s.Workers < 1:
		return fmt.Errorf("--workers %d must be at least 1", s.Workers)
	case s.MaxDepth < 0:
		return fmt.Errorf("--max-depth %d is negative", s.MaxDepth)
	case s.MaxPages < 0:
		return fmt.Errorf("--max-pages %d is negative", s.MaxPages)
	case s.MaxBodyBytes <= 0:
		return fmt.Errorf("--max-body %d must be positive", s.MaxBodyBytes)
	case s.Timeout <= 0:
		return fmt.Errorf("--timeout %v must be positive", s.Timeout)
	}
	switch s.Scope {
	case "host", "domain", "any":
	default:
		return fmt.Errorf("--scope %q: want host, domain or any", s.Scope)
	}
	switch s.Order {
	case "importance", "breadth-first":
	default:
		return fmt.Errorf("--order %q: want importance or breadth-first", s.Order)
	}
	switch s.RequisitesScope {
	case "any", "pages":
	default:
		return fmt.Errorf("--requisites-scope %q: want any or pages", s.RequisitesScope)
	}
	if err := s.Recrawl.validate(); err != nil {
		return err
	}
	if err := s.Store.validate(); err != nil {
		return err
	}
	if err := s.Cluster.validate(); err != nil {
		return err
	}
	if err := s.Process.validate(); err != nil {
		return err
	}
	if err := s.Render.validate(); err != nil {
		return err
	}
	if _, err := parseLevel(s.LogLevel); err != nil {
		return err
	}
	if s.MemoryLimit != "" {
		if _, err := parseBytes(s.MemoryLimit); err != nil {
			return fmt.Errorf("--memory-limit: %w", err)
		}
	}
	if err := checkContact(s.Contact); err != nil {
		return err
	}
	if _, _, err := s.transport(); err != nil {
		return err
	}
	if s.HTTP2 != "auto" && s.HTTP2 != "off" && s.HTTP2 != "" { // "" (a config from before the key): off
		return fmt.Errorf("--http2 %q: want auto or off", s.HTTP2)
	}
	if s.Proxy != "" {
		u, err := url.Parse(s.Proxy)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--proxy %q: want http://host:port", s.Proxy)
		}
	}
	return nil
}

func (r recrawlSettings) validate() error {
	switch r.Policy {
	case "optimal", "uniform":
	default:
		return fmt.Errorf("recrawl.policy %q: want optimal or uniform", r.Policy)
	}
	if r.RevisitShare != nil && !(*r.RevisitShare >= 0 && *r.RevisitShare <= 1) {
		return fmt.Errorf("--revisit-share %v: want a share between 0 and 1", *r.RevisitShare)
	}
	return r.freshness().Validate()
}

// freshness is the revisit interval policy.
func (r recrawlSettings) freshness() freshness.Policy {
	p := freshness.Policy{MinInterval: r.MinInterval, MaxInterval: r.MaxInterval}
	p.Default()
	return p
}

// share is frontier.Options.RevisitShare: negative for an explicit 0.
func (r recrawlSettings) share() float64 {
	switch {
	case r.RevisitShare == nil:
		return 0
	case *r.RevisitShare == 0:
		return -1
	}
	return *r.RevisitShare
}

// checkContact accepts an http(s) URL or an e-mail address.
func checkContact(c string) error {
	if u, err := url.Parse(c); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	if a, err := mail.ParseAddress(strings.TrimPrefix(c, "mailto:")); err == nil && a.Name == "" {
		return nil
	}
	return fmt.Errorf("--contact %q: want an http(s) URL or an e-mail address", c)
}

// userAgent composes the User-Agent header: it always carries the contact.
func (s crawlSettings) userAgent() string {
	ua := s.UserAgent
	if ua == "" {
		ua = "godwit/" + godwitVersion()
	}
	if !strings.Contains(ua, strings.TrimPrefix(s.Contact, "mailto:")) {
		ua += " (+" + s.Contact + ")"
	}
	return ua
}

// parseBytes reads a size such as "1048576", "512KiB", "256MiB", "2GiB"
// (binary units, as GOMEMLIMIT spells them; "B" optional).
func parseBytes(v string) (int64, error) {
	num := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"B", 1}} {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is not a positive size such as 512MiB or 2GiB", v)
	}
	return n * mult, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

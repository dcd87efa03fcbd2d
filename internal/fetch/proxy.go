package fetch

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpproxy"
)

// proxies chooses the proxy for each request: Config.Proxy for every
// request, or else the environment's values with the semantics of
// net/http.ProxyFromEnvironment, applied by golang.org/x/net/http/httpproxy
// to the values the caller passed in (net/http's own version reads the
// process environment, once).
type proxies struct {
	fixed    *url.URL                         // Config.Proxy: every request
	fromEnv  func(*url.URL) (*url.URL, error) // ProxyEnv: per request
	envAddrs []*url.URL                       // the proxies ProxyEnv names
}

func newProxies(cfg Config) (*proxies, error) {
	p := &proxies{}
	var err error
	if cfg.Proxy != "" {
		p.fixed, err = parseProxy(cfg.Proxy)
		return p, err
	}
	for _, v := range []string{cfg.ProxyEnv.HTTPProxy, cfg.ProxyEnv.HTTPSProxy} {
		if v == "" {
			continue
		}
		u, err := parseProxy(v)
		if err != nil {
			return nil, err
		}
		p.envAddrs = append(p.envAddrs, u)
	}
	p.fromEnv = (&httpproxy.Config{
		HTTPProxy:  cfg.ProxyEnv.HTTPProxy,
		HTTPSProxy: cfg.ProxyEnv.HTTPSProxy,
		NoProxy:    cfg.ProxyEnv.NoProxy,
	}).ProxyFunc()
	return p, nil
}

// parseProxy parses a proxy URL the way httpproxy does: a value without a
// scheme ("proxy:3128") means http. Unlike httpproxy, a value that has a
// scheme and fails to parse is an error, not retried as
// "http://http://…". Errors do not quote the value: proxy
// URLs carry credentials.
func parseProxy(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if (err != nil || u.Scheme == "" || u.Host == "") && !strings.Contains(s, "://") {
		if u2, err2 := url.Parse("http://" + s); err2 == nil {
			u, err = u2, nil
		}
	}
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error quotes the URL, password included
		}
		return nil, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	switch u.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		return nil, fmt.Errorf("%w %q for a proxy", ErrUnsupportedScheme, u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("%w: proxy without host", ErrInvalidURL)
	}
	return u, nil
}

// proxyAddr is the host:port the transport dials for proxy u, as
// net/http's canonicalAddr computes it.
func proxyAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = defaultPort(u.Scheme)
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// addrs lists the addresses of every configured proxy; dials to them are
// exempt from the SSRF guard.
func (p *proxies) addrs() []string {
	var out []string
	for _, u := range append([]*url.URL{p.fixed}, p.envAddrs...) {
		if u != nil {
			out = append(out, proxyAddr(u))
		}
	}
	return out
}

// forURL returns the proxy for target URL u, or nil to connect directly.
func (p *proxies) forURL(u *url.URL) *url.URL {
	if p.fixed != nil {
		return p.fixed
	}
	if p.fromEnv == nil {
		return nil
	}
	proxy, err := p.fromEnv(u)
	if err != nil {
		return nil // unparseable values were rejected by newProxies
	}
	return proxy
}

func defaultPort(scheme string) string {
	switch scheme {
	case "http":
		return "80"
	case "https":
		return "443"
	case "socks5", "socks5h":
		return "1080"
	}
	return ""
}

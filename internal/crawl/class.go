package crawl

// Class is what a caller should do about a failure (STYLE §8): retry it,
// give up on it, or skip it by policy. It is the one label used in logs,
// stats and (later) metrics.
type Class uint8

const (
	ClassNone      Class = iota // success
	ClassTransient              // may succeed later: timeouts, resets, 5xx
	ClassPermanent              // will not succeed: 4xx, invalid URL, DNS NXDOMAIN
	ClassPolicy                 // not attempted on purpose: robots.txt, scope, SSRF guard
)

var classNames = [...]string{"ok", "transient", "permanent", "policy"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "invalid"
}

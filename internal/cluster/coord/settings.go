package coord

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Compatible says which of the crawl's shared settings a joining node
// would change: stored are the crawl record's, mine the node's, each one
// "key: value" line per setting (Config.Settings).
func Compatible(stored, mine []byte) error {
	parse := func(b []byte) map[string]string {
		m := map[string]string{}
		for line := range strings.SplitSeq(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ": "); ok {
				m[k] = v
			}
		}
		return m
	}
	a, b := parse(stored), parse(mine)
	var diffs []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			diffs = append(diffs, fmt.Sprintf("%s is %s in the crawl, %s here", k, v, orUnset(w, ok)))
		}
	}
	for k, w := range b {
		if _, ok := a[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s is unset in the crawl, %s here", k, w))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	slices.Sort(diffs)
	return errors.New(strings.Join(diffs, "; "))
}

func orUnset(v string, ok bool) string {
	if !ok {
		return "unset"
	}
	return v
}

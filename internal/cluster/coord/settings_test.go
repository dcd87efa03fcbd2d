package coord

import "testing"

func TestCompatible(t *testing.T) {
	stored := []byte("delay: 1s\nscope: host\n")
	for _, c := range []struct {
		mine string
		want string // "" for compatible
	}{
		{"scope: host\ndelay: 1s\n", ""},
		{"delay: 2s\nscope: host\n", "delay is 1s in the crawl, 2s here"},
		{"scope: host\n", "delay is 1s in the crawl, unset here"},
		{"delay: 1s\nscope: domain\nmax_depth: 3\n", "max_depth is unset in the crawl, 3 here; scope is host in the crawl, domain here"},
	} {
		err := Compatible(stored, []byte(c.mine))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("Compatible(%q, %q) = %q, want %q", stored, c.mine, got, c.want)
		}
	}
}

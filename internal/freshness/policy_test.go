package freshness

import (
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	p := defaultPolicy()
	if err := p.Validate(); err != nil {
		t.Fatalf("default policy invalid: %v", err)
	}
	cases := []struct {
		name string
		edit func(*Policy)
	}{
		{"zero min interval", func(p *Policy) { p.MinInterval = -time.Second }},
		{"max below min", func(p *Policy) { p.MaxInterval = p.MinInterval / 2 }},
		{"negative default rate", func(p *Policy) { p.DefaultRate = -1 }},
		{"negative prior weight", func(p *Policy) { p.PriorWeight = -1 }},
		{"memory below 1", func(p *Policy) { p.Memory = 0.5 }},
	}
	for _, c := range cases {
		bad := p
		c.edit(&bad)
		if bad.Validate() == nil {
			t.Errorf("%s: Validate() = nil, want an error", c.name)
		}
	}
}

package politeness

import (
	"testing"
	"time"
)

func TestRobotsRetryDelay(t *testing.T) {
	p := Policy{RobotsBackoff: time.Minute, RobotsBackoffMax: 5 * time.Minute}
	p.Default()
	want := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 5 * time.Minute, 5 * time.Minute}
	for i, w := range want {
		if got := p.RobotsRetryDelay(i + 1); got != w {
			t.Errorf("RobotsRetryDelay(%d) = %v, want %v", i+1, got, w)
		}
	}
}

func TestValidate(t *testing.T) {
	var p Policy
	p.Default()
	if err := p.Validate(); err != nil {
		t.Fatalf("default policy invalid: %v", err)
	}
	bad := p
	bad.Delay = -time.Second
	if bad.Validate() == nil {
		t.Error("negative delay accepted")
	}
	bad = p
	bad.RobotsBackoffMax = time.Second
	if bad.Validate() == nil {
		t.Error("backoff max below base accepted")
	}
}

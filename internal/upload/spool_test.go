package upload

import "testing"

type fakePauser struct{ paused bool }

func (p *fakePauser) Pause()       { p.paused = true }
func (p *fakePauser) Resume()      { p.paused = false }
func (p *fakePauser) Paused() bool { return p.paused }

// A full spool pauses the crawl and resumes only a pause it made: the
// operator's pause outlasts the spool's.
func TestStorePressurePausesTheCrawl(t *testing.T) {
	c := &fakePauser{}
	w := &Spool{crawl: c}
	w.pressure(true)
	if !c.paused {
		t.Fatal("a full spool did not pause the crawl")
	}
	w.pressure(false)
	if c.paused {
		t.Fatal("the crawl stayed paused after the spool drained")
	}
	c.Pause() // the operator
	w.pressure(true)
	w.pressure(false)
	if !c.paused {
		t.Error("the spool resumed a crawl the operator paused")
	}
}

package process

import (
	"fmt"
	"time"
)

// breaker is the state of an Exec's circuit breaker (ExecConfig.BreakAfter).
type breaker int

const (
	closed breaker = iota
	open
	halfOpen
)

// admit says whether a page may go to the child: always while the
// breaker is closed; once it is open, only one page, the probe, when
// its cool-down is over.
func (e *Exec) admit() (probe bool, err error) {
	e.bmu.Lock()
	defer e.bmu.Unlock()
	switch {
	case e.state == closed:
		return false, nil
	case e.state == open && !time.Now().Before(e.until):
		e.state = halfOpen
		return true, nil
	}
	return false, fmt.Errorf("%w: %s", ErrBroken, e.why)
}

// probed settles the breaker after the probe: an answer closes it; a
// failure other than a protocol error (which the reader has already
// counted) opens it again.
func (e *Exec) probed(err error) {
	e.bmu.Lock()
	defer e.bmu.Unlock()
	if e.state != halfOpen {
		return
	}
	if err == nil {
		e.state, e.trips, e.bad = closed, 0, 0
		e.log.Info("processor answers again: pages are sent to it again")
		return
	}
	e.openLocked()
}

func (e *Exec) openLocked() {
	e.state = open
	e.until = time.Now().Add(min(e.cfg.OpenFor<<min(e.trips, 20), e.cfg.OpenMax))
	e.trips++
}

// Broken says whether the processor is taken as broken, and how it
// erred, in words.
func (e *Exec) Broken() (bool, string) {
	e.bmu.Lock()
	defer e.bmu.Unlock()
	if e.state == closed {
		return false, ""
	}
	return true, e.why
}

// answered notes an answer in protocol: the lines out of protocol are no
// longer in a row.
func (e *Exec) answered() {
	e.bmu.Lock()
	e.bad = 0
	e.bmu.Unlock()
}

// misanswered notes a line out of protocol, and says whether the
// processor is taken as broken (the breaker is not closed). The mistake
// is logged once, in words, when the breaker first opens for it.
func (e *Exec) misanswered(perr *ProtocolError) (broken bool) {
	var opened bool
	e.bmu.Lock()
	e.bad++
	switch {
	case e.state == halfOpen:
		opened = true
	case e.state == closed && e.bad >= e.cfg.BreakAfter:
		opened = true
	}
	if opened {
		e.why = perr.Mistake
		e.openLocked()
	}
	say := opened && !e.said[perr.Mistake]
	if say {
		e.said[perr.Mistake] = true
	}
	wait := time.Until(e.until).Round(time.Second)
	broken = e.state != closed
	e.bmu.Unlock()
	if say {
		e.log.Error(perr.Error(), "then", fmt.Sprintf("pages go on without it; it is tried again with one page in %v", wait))
	}
	if opened && e.cfg.OnBroken != nil {
		e.cfg.OnBroken(perr)
	}
	return broken
}

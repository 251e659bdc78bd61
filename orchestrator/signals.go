package orchestrator

import (
	"sync"
	"time"
)

// Pane signals are what a pane's goroutines (and an agent's timers) report
// to the reconciler: an exit, output while the engine asked for it, a timer,
// a bell, a notification, a title. They are kept as state, not as a queue of
// events: each agent holds at most one pending report of each kind (the
// latest title, the latest notification), and the engine keeps the list of
// agents with something pending, each at most once, plus a cap-1 wake
// channel. However fast a pane prints titles, bells or notifications, the
// memory this takes is bounded by the number of agents, and one wake-up of
// the reconciler does a bounded amount of work, so a command (a keystroke,
// `close`) never waits behind a backlog.
//
// Titles, bells and notifications are also rate-limited per agent and kind:
// the first is handled at once, later ones at most once per interval (the
// latest wins). Each one rebuilds the snapshot and may run hook handlers,
// and faster than this nobody can read them anyway. Bells and
// notifications turn the agent waiting and may ring and notify the outer
// terminal, so while they keep coming (each one held back for its
// interval) the interval doubles, up to maxNoticeInterval: a pane
// notifying in a loop shows as waiting on its newest notification, with
// how many came, a few times a minute, not twice a second. One that comes
// after a quiet interval starts again at noticeInterval.
const (
	titleInterval     = 50 * time.Millisecond
	noticeInterval    = 500 * time.Millisecond
	maxNoticeInterval = 8 * time.Second
)

// signalKind is a set of pending reports.
type signalKind uint8

const (
	sigExit signalKind = 1 << iota
	sigActivity
	sigTimer
	sigBell
	sigNotice
	sigTitle
	sigPrinted // the process printed for the first time (tmux.go holds keys until then)

	// sigThrottled are the kinds rate-limited per agent.
	sigThrottled = sigBell | sigNotice | sigTitle
)

// maxSignalText bounds the title and notification text kept per agent; it
// is sanitised and cut further when handled.
const maxSignalText = 1024

// paneSignals is one agent's pending reports. Pane goroutines write it; the
// reconciler takes it.
type paneSignals struct {
	mu      sync.Mutex
	pending signalKind
	queued  bool // on the engine's ready list
	// parked is set while the throttled kinds wait for their interval: new
	// reports of those kinds then do not wake the engine (the throttle
	// timer does), so a flood cannot keep the reconciler spinning.
	parked bool

	code        int
	err         error
	title       string
	noticeTitle string
	noticeBody  string
	// notices counts the notifications the pending one stands for (it
	// and those it replaced).
	notices int
}

// signalSet is a copy of an agent's pending reports, taken by the reconciler.
type signalSet struct {
	kinds                          signalKind
	code                           int
	err                            error
	title, noticeTitle, noticeBody string
	notices                        int
}

// signalBoard is the engine's list of agents with pending reports.
type signalBoard struct {
	mu     sync.Mutex
	ready  []*agent
	linger bool
	wake   chan struct{} // cap 1
}

func (b *signalBoard) poke() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func (b *signalBoard) add(a *agent) {
	b.mu.Lock()
	b.ready = append(b.ready, a)
	b.mu.Unlock()
	b.poke()
}

// postLinger asks for a pass once a finished pane may be reclaimed.
func (b *signalBoard) postLinger() {
	b.mu.Lock()
	b.linger = true
	b.mu.Unlock()
	b.poke()
}

// take returns the agents with pending reports and whether a linger pass
// is due, and empties the list.
func (b *signalBoard) take() ([]*agent, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ready, linger := b.ready, b.linger
	b.ready, b.linger = nil, false
	return ready, linger
}

// post records a report of kind k for a (set fills in its data under the
// lock) and puts a on the ready list unless it is there already.
func (e *Engine) post(a *agent, k signalKind, set func(s *paneSignals)) {
	s := &a.sig
	s.mu.Lock()
	if set != nil {
		set(s)
	}
	s.pending |= k
	enqueue := !s.queued && !(s.parked && k&sigThrottled == k)
	if enqueue {
		s.queued = true
	}
	s.mu.Unlock()
	if enqueue {
		e.board.add(a)
	}
}

func (e *Engine) postExit(a *agent, code int, err error) {
	e.post(a, sigExit, func(s *paneSignals) { s.code, s.err = code, err })
}

func (e *Engine) postActivity(a *agent) { e.post(a, sigActivity, nil) }
func (e *Engine) postTimer(a *agent)    { e.post(a, sigTimer, nil) }
func (e *Engine) postBell(a *agent)     { e.post(a, sigBell, nil) }

func (e *Engine) postTitle(a *agent, title string) {
	e.post(a, sigTitle, func(s *paneSignals) { s.title = capBytes(title, maxSignalText) })
}

func (e *Engine) postNotice(a *agent, title, body string) {
	e.post(a, sigNotice, func(s *paneSignals) {
		s.noticeTitle, s.noticeBody = capBytes(title, maxSignalText), capBytes(body, maxSignalText)
		s.notices++
	})
}

// capBytes cuts s to at most n bytes (the sanitiser repairs a split rune).
func capBytes(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// take copies and clears a's pending reports.
func (s *paneSignals) take() signalSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := signalSet{kinds: s.pending, code: s.code, err: s.err, title: s.title, noticeTitle: s.noticeTitle, noticeBody: s.noticeBody, notices: s.notices}
	s.pending, s.queued = 0, false
	s.err, s.title, s.noticeTitle, s.noticeBody, s.notices = nil, "", "", "", 0
	return out
}

// putBack returns throttled reports that are not due yet, unless newer
// ones of the same kind arrived meanwhile, and parks the agent. It reports
// whether the agent was parked already (its timer armed).
func (s *paneSignals) putBack(set signalSet) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if set.kinds&sigTitle != 0 && s.pending&sigTitle == 0 {
		s.title = set.title
	}
	if set.kinds&sigNotice != 0 {
		if s.pending&sigNotice == 0 {
			s.noticeTitle, s.noticeBody = set.noticeTitle, set.noticeBody
		}
		s.notices += set.notices
	}
	s.pending |= set.kinds
	was := s.parked
	s.parked = true
	return was
}

// unpark ends a's wait for its interval and hands what is pending to the
// engine.
func (e *Engine) unpark(a *agent) {
	s := &a.sig
	s.mu.Lock()
	s.parked = false
	enqueue := s.pending != 0 && !s.queued
	if enqueue {
		s.queued = true
	}
	s.mu.Unlock()
	if enqueue {
		e.board.add(a)
	}
}

// drainSignals handles every pending report on the reconciler goroutine and
// publishes the snapshot once.
func (e *Engine) drainSignals() {
	ready, linger := e.board.take()
	for _, a := range ready {
		e.handleSignals(a, a.sig.take())
	}
	if linger {
		e.st.linger, e.st.lingerAt = nil, time.Time{}
		e.reconcile()
	}
	e.publish()
}

// handleSignals applies one agent's reports. Throttled kinds that come too
// soon after the last one handled go back and wait for their interval.
func (e *Engine) handleSignals(a *agent, set signalSet) {
	now := e.now()
	var later signalSet
	var due time.Time
	// ready reports whether a pending report of kind k may be handled now;
	// if not, it is kept for later.
	ready := func(k signalKind, last time.Time, every time.Duration) bool {
		if set.kinds&k == 0 {
			return false
		}
		next := last.Add(every)
		if last.IsZero() || !now.Before(next) {
			return true
		}
		later.kinds |= k
		if due.IsZero() || next.Before(due) {
			due = next
		}
		return false
	}
	if set.kinds&sigPrinted != 0 {
		e.flushHeld(a)
	}
	if set.kinds&sigActivity != 0 {
		e.onActivity(a)
	}
	if set.kinds&sigTimer != 0 {
		e.onTimer(a)
	}
	if ready(sigTitle, a.lastTitle, titleInterval) {
		a.lastTitle = now
		e.onTitle(a, set.title)
	} else {
		later.title = set.title
	}
	if ready(sigBell, a.lastBell, every(a.bellEvery)) {
		a.bellEvery = backOff(a.bellEvery, a.lastBell, now)
		a.lastBell = now
		e.onNotice(a, "terminal bell")
	}
	if ready(sigNotice, a.lastNotice, every(a.noticeEvery)) {
		a.noticeEvery = backOff(a.noticeEvery, a.lastNotice, now)
		a.lastNotice = now
		e.onNotice(a, noticesWhy(set.noticeTitle, set.noticeBody, set.notices))
		e.onPaneNotice(a, set.noticeTitle, set.noticeBody)
	} else {
		later.noticeTitle, later.noticeBody, later.notices = set.noticeTitle, set.noticeBody, set.notices
	}
	if set.kinds&sigExit != 0 {
		// The last title stays; bells and notifications say nothing once
		// the process has ended.
		if later.kinds&sigTitle != 0 {
			e.onTitle(a, later.title)
		}
		later = signalSet{}
		e.onExit(a, set.code, set.err)
	}
	if later.kinds != 0 {
		// A timer armed earlier may be for a later time than a report
		// that came in while parked.
		if wasParked := a.sig.putBack(later); !wasParked || due.Before(a.throttleAt) {
			e.armThrottle(a, due)
		}
	}
}

// every is a bell's or notification's current interval.
func every(d time.Duration) time.Duration {
	if d == 0 {
		return noticeInterval
	}
	return d
}

// backOff is the interval after a bell or notification handled at now,
// the last one having been handled at last with interval cur: twice cur
// (up to maxNoticeInterval) when this one is less than two intervals
// after the last (it waited for its turn, or nearly had to), else
// noticeInterval.
func backOff(cur time.Duration, last, now time.Time) time.Duration {
	cur = every(cur)
	if last.IsZero() || now.Sub(last) >= 2*cur {
		return noticeInterval
	}
	return min(2*cur, maxNoticeInterval)
}

// armThrottle wakes the engine for a's parked reports at due.
func (e *Engine) armThrottle(a *agent, due time.Time) {
	a.throttleAt = due
	d := until(e.clock, due)
	if a.throttle == nil {
		a.throttle = e.clock.AfterFunc(d, func() { e.unpark(a) })
		return
	}
	a.throttle.Reset(d)
}

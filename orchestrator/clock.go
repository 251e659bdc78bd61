package orchestrator

import "time"

// Clock is the engine's time: every rule that depends on time (the linger
// of a finished pane, idle_after, stale_after, status TTLs, the deadlines
// of execution) reads it, so tests drive time instead of sleeping. The
// bounds that protect callers from a stuck engine (cmdTimeout, the
// shutdown's limit) stay on the wall clock: they must fire whatever the
// engine's clock does.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
	// NewTimer returns a timer whose channel receives once d has passed.
	NewTimer(d time.Duration) Timer
}

// Timer is a timer of a Clock. C is nil for an AfterFunc timer.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
	Reset(d time.Duration) bool
}

// wallClock is the real clock.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) AfterFunc(d time.Duration, f func()) Timer {
	return wallTimer{time.AfterFunc(d, f)}
}

func (wallClock) NewTimer(d time.Duration) Timer { return wallTimer{time.NewTimer(d)} }

type wallTimer struct{ t *time.Timer }

func (w wallTimer) C() <-chan time.Time        { return w.t.C }
func (w wallTimer) Stop() bool                 { return w.t.Stop() }
func (w wallTimer) Reset(d time.Duration) bool { return w.t.Reset(d) }

// until is how long from the clock's now to t, at least a millisecond so
// that a timer for a moment already past still fires through the inbox.
func until(c Clock, t time.Time) time.Duration {
	return max(t.Sub(c.Now()), time.Millisecond)
}

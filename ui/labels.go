package ui

import (
	"fmt"
	"strconv"
	"time"
)

// Agent states as the engine names them; the UI compares strings so that it
// stays a pure reader of the snapshot.
const (
	statePending  = "pending"
	stateStarting = "starting"
	stateRunning  = "running"
	stateWaiting  = "waiting"
	stateIdle     = "idle"
	stateDone     = "done"
	stateFailed   = "failed"
	stateKilled   = "killed"
)

// finished reports whether an agent in state s has ended for good.
func finished(s string) bool {
	return s == stateDone || s == stateFailed || s == stateKilled
}

// live reports whether closing an agent in state s would stop a process
// that still has work to do, which is when the UI asks first.
func live(s string) bool { return !finished(s) }

// stateSymbol is the glyph in front of a state badge.
func stateSymbol(s string) string {
	switch s {
	case stateRunning:
		return "●"
	case stateWaiting:
		return "▲"
	case stateIdle:
		return "○"
	case stateDone:
		return "✓"
	case stateFailed:
		return "✗"
	case stateKilled:
		return "■"
	case statePending, stateStarting:
		return "◌"
	}
	return "·"
}

// badgeInput is what a state badge is made of.
type badgeInput struct {
	state    string
	since    time.Time // when the current state began
	started  *time.Time
	ended    *time.Time
	exitCode *int
}

// stateBadge renders the border badge: "● running 12s", "▲ waiting 3m",
// "✓ exit 0 · 3m12s", "✗ exit 2 · 4s", "■ killed · 1h05m".
func stateBadge(b badgeInput, now time.Time) string {
	sym := stateSymbol(b.state)
	if finished(b.state) {
		s := sym + " " + b.state
		if b.exitCode != nil && b.state != stateKilled {
			s = sym + " exit " + strconv.Itoa(*b.exitCode)
		}
		if b.started != nil && b.ended != nil && !b.ended.Before(*b.started) {
			s += " · " + preciseDuration(b.ended.Sub(*b.started))
		}
		return s
	}
	if b.since.IsZero() {
		return sym + " " + b.state
	}
	d := now.Sub(b.since)
	if restingState(b.state) {
		return sym + " " + b.state + " " + restingDuration(d)
	}
	return sym + " " + b.state + " " + coarseDuration(d)
}

// restingState reports whether an agent in state s is resting: idle or
// waiting for the user. Its badge counts minutes, not seconds, since
// nothing else on its pane moves: a session of idle agents then draws
// nothing for a minute at a time, where a seconds count would wake it every
// second to redraw every badge.
func restingState(s string) bool { return s == stateIdle || s == stateWaiting }

// restingDuration renders how long an agent has been resting: "<1m" in the
// first minute, then as coarseDuration.
func restingDuration(d time.Duration) string {
	if d < time.Minute {
		return "<1m"
	}
	return coarseDuration(d)
}

// nextBadgeChange is how long until the badge of an agent d into state s
// shows a new elapsed time.
func nextBadgeChange(s string, d time.Duration) time.Duration {
	if restingState(s) && d >= 0 && d < time.Minute {
		return time.Minute - d
	}
	return nextLabelChange(d)
}

// coarseDuration renders an elapsed time so that it changes at most once a
// second in the first minute and once a minute after: the label timer then
// wakes rarely on a long-running session.
func coarseDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd%02dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
}

// nextLabelChange is how long until coarseDuration(d) shows a new value.
func nextLabelChange(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	unit := time.Second
	switch {
	case d < time.Minute:
	case d < 24*time.Hour:
		unit = time.Minute
	default:
		unit = time.Hour
	}
	return unit - d%unit
}

// preciseDuration renders a finished run time, which never changes again.
func preciseDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return strconv.Itoa(int(d/time.Millisecond)) + "ms"
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

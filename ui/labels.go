package ui

import (
	"fmt"
	"strconv"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// stateSymbol is the glyph in front of a state badge.
func stateSymbol(s agentstate.State) string {
	switch s {
	case agentstate.Running:
		return "●"
	case agentstate.Waiting:
		return "▲"
	case agentstate.Idle:
		return "○"
	case agentstate.Done:
		return "✓"
	case agentstate.Failed:
		return "✗"
	case agentstate.Killed:
		return "■"
	case agentstate.Pending, agentstate.Starting:
		return "◌"
	}
	return "·"
}

// badgeInput is what a state badge is made of.
type badgeInput struct {
	state    agentstate.State
	since    time.Time // when the current state began
	started  *time.Time
	ended    *time.Time
	exitCode *int
}

// stateBadge renders the border badge: "● running 12s", "▲ waiting 3m",
// "✓ exit 0 · 3m12s", "✗ exit 2 · 4s", "■ killed · 1h05m".
func stateBadge(b badgeInput, now time.Time) string {
	sym := stateSymbol(b.state)
	if b.state.Finished() {
		s := sym + " " + string(b.state)
		if b.exitCode != nil && b.state != agentstate.Killed {
			s = sym + " exit " + strconv.Itoa(*b.exitCode)
		}
		if b.started != nil && b.ended != nil && !b.ended.Before(*b.started) {
			s += " · " + preciseDuration(b.ended.Sub(*b.started))
		}
		return s
	}
	if b.since.IsZero() {
		return sym + " " + string(b.state)
	}
	d := now.Sub(b.since)
	if b.state.Resting() {
		return sym + " " + string(b.state) + " " + restingDuration(d)
	}
	return sym + " " + string(b.state) + " " + coarseDuration(d)
}

// An agent that is resting (agentstate.State.Resting: idle or waiting for
// the user) has a badge that counts minutes, not seconds, since nothing else
// on its pane moves: a session of idle agents then draws nothing for a
// minute at a time, where a seconds count would wake it every second to
// redraw every badge.

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
func nextBadgeChange(s agentstate.State, d time.Duration) time.Duration {
	if s.Resting() && d >= 0 && d < time.Minute {
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

package ui

import (
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

func TestStateBadge(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	code := func(c int) *int { return &c }
	at := func(d time.Duration) *time.Time { x := now.Add(d); return &x }
	tests := []struct {
		name string
		in   badgeInput
		want string
	}{
		{"running seconds", badgeInput{state: agentstate.Running, since: now.Add(-12 * time.Second)}, "● running 12s"},
		{"waiting minutes", badgeInput{state: agentstate.Waiting, since: now.Add(-3*time.Minute - 59*time.Second)}, "▲ waiting 3m"},
		{"waiting first minute", badgeInput{state: agentstate.Waiting, since: now.Add(-59 * time.Second)}, "▲ waiting <1m"},
		{"idle first minute", badgeInput{state: agentstate.Idle, since: now.Add(-12 * time.Second)}, "○ idle <1m"},
		{"idle one minute", badgeInput{state: agentstate.Idle, since: now.Add(-time.Minute)}, "○ idle 1m"},
		{"idle hours", badgeInput{state: agentstate.Idle, since: now.Add(-65 * time.Minute)}, "○ idle 1h05m"},
		{"no since", badgeInput{state: agentstate.Pending}, "◌ pending"},
		{"done", badgeInput{state: agentstate.Done, exitCode: code(0), started: at(-192 * time.Second), ended: at(0)}, "✓ exit 0 · 3m12s"},
		{"failed", badgeInput{state: agentstate.Failed, exitCode: code(2), started: at(-4 * time.Second), ended: at(0)}, "✗ exit 2 · 4s"},
		{"failed to start", badgeInput{state: agentstate.Failed}, "✗ failed"},
		{"killed", badgeInput{state: agentstate.Killed, exitCode: code(-1), started: at(-time.Hour), ended: at(0)}, "■ killed · 1h00m"},
	}
	for _, tt := range tests {
		if got := stateBadge(tt.in, now); got != tt.want {
			t.Errorf("%s: stateBadge = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestNextLabelChange(t *testing.T) {
	tests := []struct {
		d, want time.Duration
	}{
		{0, time.Second},
		{1500 * time.Millisecond, 500 * time.Millisecond},
		{59 * time.Second, time.Second},
		{90 * time.Second, 30 * time.Second},
		{25 * time.Hour, time.Hour},
	}
	for _, tt := range tests {
		got := nextLabelChange(tt.d)
		if got != tt.want {
			t.Errorf("nextLabelChange(%v) = %v, want %v", tt.d, got, tt.want)
		}
		// The label really changes at that moment and not before.
		if coarseDuration(tt.d+got) == coarseDuration(tt.d) {
			t.Errorf("label %q does not change after %v", coarseDuration(tt.d), got)
		}
		if got > time.Millisecond && coarseDuration(tt.d+got-time.Millisecond) != coarseDuration(tt.d) {
			t.Errorf("label %q changes before %v", coarseDuration(tt.d), got)
		}
	}
}

func TestNextBadgeChange(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		state   agentstate.State
		d, want time.Duration
	}{
		{agentstate.Running, 12 * time.Second, time.Second},
		{agentstate.Idle, 12 * time.Second, 48 * time.Second},
		{agentstate.Waiting, 0, time.Minute},
		{agentstate.Idle, 90 * time.Second, 30 * time.Second},
		{agentstate.Running, 90 * time.Second, 30 * time.Second},
	}
	for _, tt := range tests {
		got := nextBadgeChange(tt.state, tt.d)
		if got != tt.want {
			t.Errorf("nextBadgeChange(%s, %v) = %v, want %v", tt.state, tt.d, got, tt.want)
		}
		// The badge really changes at that moment and not before.
		badge := func(d time.Duration) string {
			return stateBadge(badgeInput{state: tt.state, since: now.Add(-d)}, now)
		}
		if badge(tt.d+got) == badge(tt.d) {
			t.Errorf("%s: badge %q does not change after %v", tt.state, badge(tt.d), got)
		}
		if badge(tt.d+got-time.Millisecond) != badge(tt.d) {
			t.Errorf("%s: badge %q changes before %v", tt.state, badge(tt.d), got)
		}
	}
}

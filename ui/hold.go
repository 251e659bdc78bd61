package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// holdTickMsg redraws when a synchronized update that a pane holds back on
// screen times out; gen drops ticks that a later schedule superseded.
type holdTickMsg struct{ gen int }

// scheduleHoldTick arms one timer for the moment the earliest held-back
// synchronized update of frame input in times out. A program that never ends its
// update then shows what it wrote even if it writes nothing more (which
// would have poked a frame); the update's end itself is output, so its
// poke draws the finished update without any timer.
func (m *Model) scheduleHoldTick(in *frameInput, now time.Time) tea.Cmd {
	var next time.Time
	for i := range in.panes {
		if v := in.panes[i].view; v != nil && v.Held && (next.IsZero() || v.HeldUntil.Before(next)) {
			next = v.HeldUntil
		}
	}
	if next.IsZero() || next.Equal(m.holdTimer) {
		return nil
	}
	m.holdTimer = next
	m.holdGen++
	gen := m.holdGen
	return m.tick(max(next.Sub(now), time.Millisecond), func(time.Time) tea.Msg { return holdTickMsg{gen: gen} })
}

// onHoldTick takes a new snapshot once a held update timed out.
func (m *Model) onHoldTick(msg holdTickMsg) tea.Cmd {
	if msg.gen != m.holdGen {
		return nil
	}
	m.holdTimer = time.Time{}
	return m.refresh()
}

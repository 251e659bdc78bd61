package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// flashFor is how long a short message (the new layout's name, a number
// that names no agent) stays on the status line.
const flashFor = 3 * time.Second

// flashTickMsg ends a short message; gen drops ticks of earlier messages.
type flashTickMsg struct{ gen int }

// flash shows text on the status line for flashFor.
func (m *Model) flash(text string) tea.Cmd {
	m.flashText = text
	m.flashGen++
	gen := m.flashGen
	m.refreshInput()
	return m.tick(flashFor, func(time.Time) tea.Msg { return flashTickMsg{gen: gen} })
}

// onFlashTick takes the short message off the status line.
func (m *Model) onFlashTick(msg flashTickMsg) tea.Cmd {
	if msg.gen != m.flashGen || m.flashText == "" {
		return nil
	}
	m.flashText = ""
	m.refreshInput()
	return nil
}

// statusLead is what the status line shows before the counts: the armed
// prefix, a short message, and "zoomed" while a pane fills the area.
func (m *Model) statusLead() []span {
	var out []span
	if m.prefixArmed {
		out = append(out, span{text: " " + m.prefix + " ", st: m.ui.prefix})
	}
	if m.rec.active() {
		out = append(out, span{text: " ● rec ", st: m.ui.prefix})
	}
	if m.snap.Zoomed {
		out = append(out, span{text: " zoomed ", st: m.ui.prefix})
	}
	if m.flashText != "" {
		out = append(out, span{text: " " + sanitizeLabel(m.flashText) + " ", st: m.ui.prefix})
	}
	return out
}

// cycleLayout switches to the next layout and names it on the status line.
func (m *Model) cycleLayout() tea.Cmd {
	return engineCmd(func() error { m.eng.CycleLayout(); return nil }, func(m *Model, err error) tea.Cmd {
		cmd := afterEngine(m, err)
		if err != nil {
			return cmd
		}
		return tea.Batch(cmd, m.flash("layout: "+m.snap.Layout))
	})
}

// unzoomForFocus undoes a zoom before the focus moves to pane to ("" for
// a move by direction), as tmux does, so that focus keys act on the whole
// layout instead of being lost on the one pane shown.
func (m *Model) unzoomForFocus(to string) tea.Cmd {
	if !m.snap.Zoomed || to == m.snap.Focus {
		return nil
	}
	m.eng.ToggleZoom()
	return m.refresh()
}

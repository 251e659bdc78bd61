package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// engineErrorTTL is how long the status line shows a failed engine call.
const engineErrorTTL = 10 * time.Second

// engineDoneMsg reports an engine call that ran as a command.
type engineDoneMsg struct {
	err  error
	then func(m *Model, err error) tea.Cmd
}

// engineCmd runs call off the Update loop. Engine calls that act on the
// grid (spawn, close, show, zoom, layout) go through the engine's
// reconciler and may wait for it (up to its 10 s bound, or a process
// start's 5 s deadline); Update must never wait. then, back on the Update
// loop, acts on the result; nil means afterEngine. call must touch nothing
// of the model but m.eng.
func engineCmd(call func() error, then func(m *Model, err error) tea.Cmd) tea.Cmd {
	if then == nil {
		then = afterEngine
	}
	return func() tea.Msg { return engineDoneMsg{err: call(), then: then} }
}

// afterEngine draws the engine's new state; an error goes to the status
// line.
func afterEngine(m *Model, err error) tea.Cmd {
	if err != nil && m.readOnly {
		// The status store is the session's: a read-only client's own
		// refusals stay on its own status line.
		return tea.Batch(m.flash(err.Error()), m.syncSnapshot())
	}
	if err != nil {
		m.eng.Status().SetNotice("ui", err.Error(), engineErrorTTL)
	}
	return m.syncSnapshot()
}

// resizeEngine gives the engine the pane area as a command (a resize may
// place and start queued agents). During a storm of resizes these
// commands run concurrently and may reach the engine out of order, so
// each one gives the latest size and looks again after the call: the last
// resize the engine sees is the terminal's size.
func (m *Model) resizeEngine() tea.Cmd {
	area, eng := &m.area, m.eng
	return engineCmd(func() error {
		for {
			v := area.Load()
			eng.Resize(int(v>>32), int(uint32(v)))
			if area.Load() == v {
				return nil
			}
		}
	}, nil)
}

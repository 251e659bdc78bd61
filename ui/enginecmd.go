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
	if err != nil {
		m.eng.Status().SetNotice("ui", err.Error(), engineErrorTTL)
	}
	return m.syncSnapshot()
}

package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/orchestrator"
)

// looper is the engine's side of continuation loops; an engine without it
// runs none.
type looper interface {
	Loop(id, op string, spec control.LoopSpec) (control.LoopInfo, error)
}

// stopLoop stops the focused agent's loop (prefix S); what happened shows
// in the status line.
func (m *Model) stopLoop(focused *orchestrator.PaneView) tea.Cmd {
	l, ok := m.eng.(looper)
	if focused == nil || !ok {
		return nil
	}
	a := focused.Agent
	if a.Loop == nil || a.Loop.Status != control.LoopRunning && a.Loop.Status != control.LoopPaused {
		m.eng.Status().SetNotice("ui", fmt.Sprintf("%s has no running loop to stop", a.ID), engineErrorTTL)
		return nil
	}
	id := a.ID
	return engineCmd(func() error {
		_, err := l.Loop(id, control.LoopStop, control.LoopSpec{})
		return err
	}, nil)
}

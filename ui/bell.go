package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/oneline"
)

// maxNotifyLen caps the text of a desktop notification sent to the outer
// terminal, in runes.
const maxNotifyLen = 160

// waitingTransitions returns the bytes for the outer terminal when an agent
// started waiting for input since the last frame: one bell and, when
// configured, an OSC 9 desktop notification per agent.
//
// The engine counts every start of a wait (Snapshot.WaitSeq), so a wait
// that began and ended between two frames still rings; comparing the
// states of two frames would miss it. Notifications name each agent
// waiting now that was not at the last frame, and the agent that started
// waiting last (LastWaiting) when its wait was too brief to be seen.
func (m *Model) waitingTransitions(first bool) string {
	newWaits := m.snap.WaitSeq > m.waitSeq
	m.waitSeq = m.snap.WaitSeq
	// Two maps take turns, so a refresh allocates none.
	seen := m.spareStates
	if seen == nil {
		seen = make(map[string]agentstate.State, len(m.snap.Agents)+1)
	}
	clear(seen)
	var sb strings.Builder
	if newWaits && !first && m.cfg.UI.Bell {
		sb.WriteByte('\a')
	}
	notified := false
	check := func(a *control.AgentInfo) {
		st := a.State
		seen[a.ID] = st
		if !newWaits || first || !m.cfg.UI.OSC9 {
			return
		}
		brief := a.ID == m.snap.LastWaiting && !notified
		if !brief && (st != agentstate.Waiting || m.prevStates[a.ID] == agentstate.Waiting) {
			return
		}
		if a.ID == m.snap.LastWaiting {
			notified = true
		}
		msg := "agentgrid: " + a.Title + " is waiting"
		if a.Why != "" && st == agentstate.Waiting {
			msg += ": " + a.Why
		}
		// Sanitised and capped: the outer terminal shows it in a desktop
		// notification.
		sb.WriteString(ansi.Notify(oneline.Sanitize(msg, maxNotifyLen)))
	}
	if m.snap.Main != nil {
		check(&m.snap.Main.Agent)
	}
	for i := range m.snap.Agents {
		check(&m.snap.Agents[i])
	}
	m.prevStates, m.spareStates = seen, m.prevStates
	return sb.String()
}

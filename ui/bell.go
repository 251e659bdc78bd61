package ui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/oneline"
	"github.com/agentgrid/agentgrid/orchestrator"
)

// maxNotifyLen caps the text of a desktop notification sent to the outer
// terminal, in runes.
const maxNotifyLen = 160

// waitingTransitions returns the bytes for the outer terminal when agents
// started waiting for input, finished or failed since the last frame (the
// events [ui] notify_on names): one bell and, when configured, an OSC 9
// and an OSC 777 desktop notification per agent. The pane the user is
// looking at (focused, in a focused terminal) gets none: the user sees it.
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
	rang := false
	notified := false
	check := func(a *control.AgentInfo) {
		st := a.State
		prev := m.prevStates[a.ID]
		seen[a.ID] = st
		if first {
			return
		}
		var msg string
		switch {
		case st == agentstate.Waiting && prev != agentstate.Waiting,
			newWaits && a.ID == m.snap.LastWaiting && !notified:
			if !newWaits || !m.notifyOn("waiting") {
				return
			}
			if a.ID == m.snap.LastWaiting {
				notified = true
			}
			msg = "agentgrid: " + a.Title + " is waiting"
			if a.Why != "" && st == agentstate.Waiting {
				msg += ": " + a.Why
			}
		case st != prev && (st == agentstate.Done || st == agentstate.Failed):
			// An agent that started and ended between two frames was
			// never seen (prev is ""): it rings too.
			if !m.notifyOn(string(st)) {
				return
			}
			msg = "agentgrid: " + a.Title + " is " + string(st)
			if a.Why != "" && st == agentstate.Failed {
				msg += ": " + a.Why
			}
		default:
			return
		}
		if m.lookingAt(a.ID) {
			return
		}
		if m.cfg.UI.Bell && !rang {
			sb.WriteByte('\a')
			rang = true
		}
		m.appendNotice(&sb, "agentgrid", msg)
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

// notifyOn reports whether [ui] notify_on names event.
func (m *Model) notifyOn(event string) bool {
	return slices.Contains(m.cfg.UI.NotifyOn, event)
}

// lookingAt reports whether the user looks at agent id's pane: it has the
// focus and the terminal agentgrid runs in has it too.
func (m *Model) lookingAt(id string) bool {
	return m.outerFocused && id == m.snap.Focus
}

// appendNotice appends a desktop notification in each form the config
// turns on (OSC 9, OSC 777), its text sanitised and capped: the outer
// terminal shows it outside agentgrid, and a pane's program chose part of
// it.
func (m *Model) appendNotice(sb *strings.Builder, title, body string) {
	body = oneline.Sanitize(body, maxNotifyLen)
	if m.cfg.UI.OSC9 {
		sb.WriteString(ansi.Notify(body))
	}
	if m.cfg.UI.OSC777 {
		sb.WriteString("\x1b]777;notify;" + oneline.Sanitize(strings.ReplaceAll(title, ";", ","), maxNotifyLen) + ";" + body + "\a")
	}
}

// paneRequests returns the bytes for the outer terminal that panes'
// programs asked for since the last frame, as the config allows: their
// notifications (OSC 9/777/99) with the pane's title, never for the pane
// the user looks at, and their clipboard writes (OSC 52) only with
// [clipboard] pane_osc52 = "write".
// On the first frame it only notes where the requests stand: what came
// before the UI started is not replayed.
func (m *Model) paneRequests(first bool) string {
	reqs, seq := m.eng.PaneRequests(m.reqSeq)
	m.reqSeq = seq
	if first {
		return ""
	}
	var sb strings.Builder
	rang := false
	clip := ""
	for _, q := range reqs {
		switch q.Kind {
		case orchestrator.PaneClipboard:
			if m.cfg.Clipboard.PaneOSC52 == config.PaneOSC52Write && isBase64(q.Data) {
				clip = q.Data // the last write is what the clipboard ends with
			}
		case orchestrator.PaneNotice:
			if !m.cfg.UI.PaneNotices || m.lookingAt(q.Agent) {
				continue
			}
			title := m.agentTitle(q.Agent)
			text := strings.TrimSpace(q.Title + " " + q.Body)
			if q.Title != "" && q.Body != "" {
				text = q.Title + ": " + q.Body
			}
			if m.cfg.UI.Bell && !rang {
				sb.WriteByte('\a')
				rang = true
			}
			m.appendNotice(&sb, title, title+": "+text)
		}
	}
	if clip != "" {
		sb.WriteString(osc52Base64(clip))
	}
	return sb.String()
}

// agentTitle is the name of agent id, as the border shows it.
func (m *Model) agentTitle(id string) string {
	if m.snap.Main != nil && m.snap.Main.Agent.ID == id {
		return m.snap.Main.Agent.Title
	}
	for i := range m.snap.Agents {
		if m.snap.Agents[i].ID == id {
			return m.snap.Agents[i].Title
		}
	}
	return id
}

// isBase64 reports whether s is only base64 (standard alphabet, padding):
// what a clipboard write may carry on to the outer terminal.
func isBase64(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return s != ""
}

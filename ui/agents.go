package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// agentsOverlay lists every agent (visible, queued, off screen, finished)
// with its state, why, where it is and its age; enter swaps the selected
// one into view and x closes it.
type agentsOverlay struct {
	agents   []control.AgentInfo // the main view, then the family tree
	depth    []int               // each agent's depth in the tree
	selected string              // id, so the selection survives list updates
	top      int                 // first row shown
	now      time.Time
	err      string
	st       uiStyles
	w, h     int
	boxW     int
	boxH     int
	x, y     int
}

// newAgentsOverlay builds an empty agents overlay.
func newAgentsOverlay(w, h int, st uiStyles) *agentsOverlay {
	a := &agentsOverlay{st: st}
	a.SetSize(w, h)
	return a
}

// setAgents updates the list from a snapshot.
func (a *agentsOverlay) setAgents(s orchestrator.Snapshot, now time.Time) {
	a.agents, a.depth = a.agents[:0], a.depth[:0]
	if s.Main != nil {
		a.agents, a.depth = append(a.agents, s.Main.Agent), append(a.depth, 0)
	}
	// As agentgrid list --tree draws it: each agent below the one that
	// started it.
	tree, depth := control.TreeOrder(s.Agents)
	a.agents, a.depth = append(a.agents, tree...), append(a.depth, depth...)
	a.now = now
	if a.index() < 0 && len(a.agents) > 0 {
		a.selected = a.agents[0].ID
		if len(a.agents) > 1 {
			a.selected = a.agents[1].ID // the first background agent
		}
	}
	a.SetSize(a.w, a.h)
}

// index is the position of the selected agent, or -1.
func (a *agentsOverlay) index() int {
	for i := range a.agents {
		if a.agents[i].ID == a.selected {
			return i
		}
	}
	return -1
}

// setError shows why the last action failed.
func (a *agentsOverlay) setError(msg string) { a.err = msg }

// SetSize implements overlay.
func (a *agentsOverlay) SetSize(w, h int) {
	a.w, a.h = w, h
	a.boxW = min(max(w*9/10, 40), w)
	a.boxH = min(len(a.agents)+4, max(h-2, 5)) // header, error line, borders
	a.x, a.y = centre(a.boxW, a.boxH, w, h)
}

// listRows is how many agent rows fit in the box.
func (a *agentsOverlay) listRows() int { return max(a.boxH-4, 1) }

// Update implements overlay.
func (a *agentsOverlay) Update(msg tea.Msg) (overlayResult, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return overlayResult{}, nil
	}
	b := lookup(modeAgents, k, "", keyOptions{})
	if b == nil {
		return overlayResult{}, nil
	}
	a.err = ""
	i := a.index()
	switch b.action {
	case actListUp:
		if i > 0 {
			a.selected = a.agents[i-1].ID
		}
	case actListDown:
		if i >= 0 && i+1 < len(a.agents) {
			a.selected = a.agents[i+1].ID
		}
	case actListShow:
		if i >= 0 {
			return overlayResult{show: a.selected}, nil
		}
	case actListClose:
		if i >= 0 && a.agents[i].ID != control.MainID {
			return overlayResult{closeID: a.selected}, nil
		}
	case actOverlayExit:
		return overlayResult{close: true}, nil
	}
	return overlayResult{}, nil
}

// where says where an agent is: in a pane, queued, off screen, or gone.
func where(a *control.AgentInfo) string {
	switch {
	case a.ID == control.MainID:
		return "main view"
	case a.Visible && a.Number > 0:
		return fmt.Sprintf("pane %d", a.Number)
	case a.QueuePos > 0:
		return fmt.Sprintf("queued #%d", a.QueuePos)
	case a.State.Finished():
		return "closed"
	}
	return "off screen"
}

// View implements overlay.
func (a *agentsOverlay) View() ([][]vterm.Cell, int, int) {
	n := a.listRows()
	i := a.index()
	if i < a.top {
		a.top = i
	}
	if i >= a.top+n {
		a.top = i - n + 1
	}
	a.top = max(0, min(a.top, max(len(a.agents)-n, 0)))
	inner := a.boxW - 3
	idW := 6
	for j := a.top; j < len(a.agents) && j < a.top+n; j++ {
		idW = max(idW, ansi.StringWidth(control.TreeLabel(a.agents[j].ID, a.depth[j])))
	}
	header := line{{text: fmt.Sprintf("%-*s %-12s %-11s %6s  %s", idW, "id", "state", "where", "age", "title — why"), st: a.st.muted}}
	lines := []line{header}
	for j := a.top; j < len(a.agents) && j < a.top+n; j++ {
		ag := &a.agents[j]
		st := ag.State
		state := stateSymbol(st) + " " + string(st)
		if st.Finished() && ag.ExitCode != nil && st != agentstate.Killed {
			state = fmt.Sprintf("%s exit %d", stateSymbol(st), *ag.ExitCode)
		}
		why := ag.Why
		if ag.QueuePos > 0 && ag.QueueReason != "" {
			why = ag.QueueReason
		}
		if ag.Source != "" && why != "" {
			why += " (" + ag.Source + ")"
		}
		age := ""
		if !ag.Created.IsZero() {
			age = coarseDuration(a.now.Sub(ag.Created))
		}
		text := sanitizeLabel(ag.Title)
		if tag := runTag(ag.Category, ag.Model); tag != "" {
			text += " " + tag
		}
		if why = sanitizeLabel(why); why != "" {
			text += " — " + why
		}
		row := line{
			{text: padTo(control.TreeLabel(ag.ID, a.depth[j]), idW) + " "},
			{text: fmt.Sprintf("%-12s", ansi.Truncate(state, 12, "")), st: a.st.ovBadge(string(st))},
			{text: fmt.Sprintf(" %-11s %6s  %s", where(ag), age, text)},
		}.truncate(inner, "…")
		if ag.ID == a.selected {
			// The whole row in the selection's look, as wide as the box.
			t := row.text()
			row = line{{text: t + strings.Repeat(" ", max(inner-ansi.StringWidth(t), 0)), st: a.st.selected}}
		}
		lines = append(lines, row)
	}
	for len(lines) < n+1 {
		lines = append(lines, nil)
	}
	var msg line
	if a.err != "" {
		msg = line{{text: sanitizeLabel(a.err), st: a.st.errLook}}
	}
	lines = append(lines, msg)
	title := fmt.Sprintf("agents (%d)", len(a.agents))
	return drawBox(title, lines, a.HelpKeys(), a.boxW, a.st.box), a.x, a.y
}

// Cursor implements overlay.
func (a *agentsOverlay) Cursor() *tea.Cursor { return nil }

// HelpKeys implements overlay.
func (a *agentsOverlay) HelpKeys() string {
	return hints(hintRoom(a.boxW), hint("↑↓", "select"), hint("enter", "show"), hint("x", "close"), hint("esc", "back"))
}

// padTo pads s with spaces to w cells (fmt pads by bytes, and the tree's
// "└─" is more bytes than cells).
func padTo(s string, w int) string {
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}

package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// onMouse handles clicks (focus, forwarded when the pane asked for mouse
// reports), drags and releases (to the pane the button went down in) and
// the wheel (forwarded, arrow keys on the alternate screen, or scrollback).
func (m *Model) onMouse(msg tea.MouseMsg) tea.Cmd {
	if m.overlay != nil || m.in.notice != "" {
		return nil
	}
	ev := msg.Mouse()
	switch msg.(type) {
	case tea.MouseClickMsg:
		p := m.paneAt(ev.X, ev.Y)
		if p == nil {
			return nil
		}
		var cmd tea.Cmd
		if p.Agent.ID != m.snap.Focus {
			m.eng.Focus(p.Agent.ID)
			cmd = m.syncSnapshot()
		}
		if m.forward(p, vterm.MousePress, ev, false) {
			m.mouseDown = p.Agent.ID
		} else if ev.Button == tea.MouseLeft && p.Term != nil && p.Box.Inset(1).Contains(ev.X, ev.Y) {
			// A program that does not take the mouse: a drag selects.
			line, col := m.mouseLine(p, ev.X, ev.Y)
			m.drag = &dragStart{id: p.Agent.ID, line: line, col: col}
			if s := m.scroll[p.Agent.ID]; s != nil && s.sel.marking {
				s.sel = selection{}
				m.refreshInput()
			}
		}
		return cmd
	case tea.MouseReleaseMsg:
		if m.drag != nil {
			return m.onDragRelease()
		}
		if id := m.mouseDown; id != "" {
			m.mouseDown = ""
			if p := m.pane(id); p != nil {
				m.forward(p, vterm.MouseRelease, ev, true)
			}
		}
	case tea.MouseMotionMsg:
		if m.drag != nil {
			m.onDragMotion(ev.X, ev.Y)
			return nil
		}
		if id := m.mouseDown; id != "" {
			if p := m.pane(id); p != nil {
				m.forward(p, vterm.MouseMotion, ev, true)
			}
			return nil
		}
		if p := m.paneAt(ev.X, ev.Y); p != nil && p.Term != nil && p.Term.Modes().Mouse == vterm.MouseAny {
			m.forward(p, vterm.MouseMotion, ev, false)
		}
	case tea.MouseWheelMsg:
		p := m.paneAt(ev.X, ev.Y)
		if p == nil {
			return nil
		}
		if m.scroll[p.Agent.ID] == nil && paneHasMouse(p.Term) {
			m.forward(p, vterm.MouseWheel, ev, false)
			return nil
		}
		switch ev.Button {
		case tea.MouseWheelUp:
			m.wheelScroll(p.Agent.ID, true)
		case tea.MouseWheelDown:
			m.wheelScroll(p.Agent.ID, false)
		}
	}
	return nil
}

// paneAt returns the visible pane whose box holds the cell (x, y).
func (m *Model) paneAt(x, y int) *orchestrator.PaneView {
	ps := m.panes()
	rects := make([]layout.Rect, len(ps))
	for i, p := range ps {
		rects[i] = p.Box
	}
	if i := layout.HitTest(rects, x, y); i >= 0 {
		return ps[i]
	}
	return nil
}

// forward sends a mouse event to a pane in its own coordinates when its
// program asked for mouse reports and the pane is not scrolled back. Events
// outside the content are dropped, or clamped to its edge for drags and
// releases that started inside. It reports whether the event was sent.
func (m *Model) forward(p *orchestrator.PaneView, kind vterm.MouseKind, ev tea.Mouse, clamp bool) bool {
	if p.Term == nil || m.scroll[p.Agent.ID] != nil || !paneHasMouse(p.Term) {
		return false
	}
	c := p.Box.Inset(1)
	x, y := ev.X-c.X, ev.Y-c.Y
	if x < 0 || y < 0 || x >= c.W || y >= c.H {
		if !clamp {
			return false
		}
		x, y = max(0, min(x, c.W-1)), max(0, min(y, c.H-1))
	}
	b := p.Term.EncodeMouse(vterm.MouseEvent{Kind: kind, Button: ev.Button, X: x, Y: y, Mod: ev.Mod})
	if len(b) == 0 {
		return false
	}
	if kind == vterm.MouseMotion && ev.Button == tea.MouseNone {
		// Hovering is not the user answering the program: it must not count
		// as input evidence (which would end a waiting state).
		_ = m.eng.Send(p.Agent.ID, b)
		return true
	}
	_ = m.eng.Input(p.Agent.ID, b)
	return true
}

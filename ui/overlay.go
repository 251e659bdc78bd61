package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// overlay is a small self-contained widget drawn on top of the frame: the
// new-agent and search prompts, a yes/no question, the agents list, help.
type overlay interface {
	// SetSize tells the widget the terminal size.
	SetSize(w, h int)
	// Update handles a key press or paste and says what the model should do.
	Update(msg tea.Msg) (overlayResult, tea.Cmd)
	// View returns the widget's rows of cells (all the same width) and
	// where its top left corner goes on the screen.
	View() (rows [][]vterm.Cell, x, y int)
	// Cursor is where the real cursor goes while the widget is open, or nil.
	Cursor() *tea.Cursor
	// HelpKeys is the one-line key hint shown in the widget's bottom border.
	HelpKeys() string
}

// overlayResult is what a widget asks of the model after a key.
type overlayResult struct {
	close  bool   // close the widget
	submit string // prompts: the text entered (valid when submitted is set)
	// submitted is set when the user pressed enter in a prompt.
	submitted bool
	show      string // agents overlay: swap this agent into view
	closeID   string // agents overlay: close this agent
	confirmed bool   // confirm: the user said yes
}

// setOverlay opens w (nil closes the current one).
func (m *Model) setOverlay(w overlay) {
	m.overlay = w
	if w != nil {
		w.SetSize(m.width, m.height)
	}
	m.topDirty = true
}

// openPrompt opens a prompt overlay and focuses its input.
func (m *Model) openPrompt(p *promptOverlay) tea.Cmd {
	m.setOverlay(p)
	return nil
}

// overlayKey routes a key press to the open overlay.
func (m *Model) overlayKey(k tea.KeyPressMsg) tea.Cmd {
	return m.overlayMsg(k)
}

// overlayMsg hands msg to the open overlay and carries out its result.
func (m *Model) overlayMsg(msg tea.Msg) tea.Cmd {
	w := m.overlay
	res, cmd := w.Update(msg)
	m.topDirty = true
	switch o := w.(type) {
	case *promptOverlay:
		if res.submitted {
			scmd, err := m.submitPrompt(o, res.submit)
			if err != nil {
				o.setError(err.Error())
				return cmd
			}
			if scmd != nil {
				// The prompt closes once the engine said yes.
				return tea.Batch(cmd, scmd)
			}
			res.close = true
		}
	case *confirmOverlay:
		if res.confirmed {
			m.setOverlay(nil)
			return tea.Batch(cmd, o.onYes())
		}
	case *agentsOverlay:
		if m.readOnly && res.closeID != "" {
			res.closeID = ""
			cmd = tea.Batch(cmd, m.flash("read-only: this terminal cannot close agents"))
		}
		if m.readOnly && res.show != "" && m.pane(res.show) != nil {
			// This client's own focus: the agent is on its screen.
			m.eng.Focus(res.show)
			m.setOverlay(nil)
			return tea.Batch(cmd, m.syncSnapshot())
		}
		if res.show != "" {
			// Show swaps the agent in and focuses it; the overlay closes
			// once it did, or shows why it could not.
			id := res.show
			return tea.Batch(cmd, engineCmd(func() error { return m.eng.Show(id) }, func(m *Model, err error) tea.Cmd {
				if m.overlay == w {
					if err != nil {
						o.setError(err.Error())
						m.topDirty = true
						return nil
					}
					m.setOverlay(nil)
				}
				return afterEngine(m, err)
			}))
		}
		if res.closeID != "" {
			for _, a := range m.snap.Agents {
				if a.ID == res.closeID {
					return tea.Batch(cmd, m.askClose(a))
				}
			}
		}
	}
	if res.close && m.overlay == w {
		m.setOverlay(nil)
	}
	return cmd
}

// submitPrompt acts on a prompt's text: an error refuses it at once; a
// command, when returned, finishes the work (and closes the prompt).
func (m *Model) submitPrompt(p *promptOverlay, text string) (tea.Cmd, error) {
	switch p.purpose {
	case promptNewAgent:
		return m.submitNewAgent(p, text)
	case promptCommand:
		return m.submitCommand(text)
	case promptGoTo:
		return m.submitGoTo(text)
	case promptSearch:
		if text == "" {
			return nil, nil
		}
		m.search(p.paneID, text, p.backward)
	}
	return nil, nil
}

// drawOverlay returns base with the open overlay drawn on top: base
// itself when none is open, else the model's top canvas. A wide character
// cut by the overlay's edge leaves a blank.
func (m *Model) drawOverlay(base *termrt.Canvas) *termrt.Canvas {
	if m.overlay == nil || m.in.notice != "" {
		return base
	}
	rows, ox, oy := m.overlay.View()
	if len(rows) == 0 {
		return base
	}
	m.top.CopyFrom(base)
	for i, r := range rows {
		m.top.Put(oy+i, ox, m.top.W, r)
	}
	return &m.top
}

// boxStyle is how a widget's frame looks.
type boxStyle struct {
	border, title, text, hint termrt.Style
}

// drawBox frames lines in a box w cells wide with the title in the top
// border and hint in the bottom one. Spans without a look of their own
// take the box's text look, so the widget is one solid block.
func drawBox(title string, lines []line, hint string, w int, st boxStyle) [][]vterm.Cell {
	if w < 4 {
		return nil
	}
	inner := w - 2
	rows := make([][]vterm.Cell, 0, len(lines)+2)
	rows = append(rows, boxEdge("┌", "┐", title, inner, st.border, st.title))
	for _, l := range lines {
		r := make([]vterm.Cell, 0, w)
		r = append(r, st.border.Cell("│", 1))
		r = append(line{{text: " "}}, l...).appendCells(r, inner, st.text)
		rows = append(rows, append(r, st.border.Cell("│", 1)))
	}
	rows = append(rows, boxEdge("└", "┘", hint, inner, st.border, st.hint))
	return rows
}

// boxEdge draws a horizontal box edge with a label after the first dash.
func boxEdge(l, r, label string, inner int, border, labelSt termrt.Style) []vterm.Cell {
	label = sanitizeLabel(label)
	if label != "" {
		label = " " + label + " "
	}
	if ansi.StringWidth(label) > inner-1 {
		label = ansi.Truncate(label, max(inner-1, 0), "…")
	}
	lw := ansi.StringWidth(label)
	row := make([]vterm.Cell, 0, inner+2)
	row = append(row, border.Cell(l, 1))
	if inner >= 1 {
		row = append(row, border.Cell("─", 1))
	}
	row = termrt.AppendText(row, label, labelSt)
	for range max(inner-1-lw, 0) {
		row = append(row, border.Cell("─", 1))
	}
	return append(row, border.Cell(r, 1))
}

// centre places a box of w x h in a terminal of tw x th.
func centre(w, h, tw, th int) (x, y int) {
	return max((tw-w)/2, 0), max((th-1-h)/2, 0)
}

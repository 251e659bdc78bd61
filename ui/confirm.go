package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/panes/vterm"
)

// confirmWidth is the widest a yes/no question's box grows.
const confirmWidth = 72

// confirmOverlay asks a yes/no question.
type confirmOverlay struct {
	question string
	lines    []line // the question wrapped to the box
	onYes    func() tea.Cmd
	st       uiStyles
	w, h     int
	boxW     int
	x, y     int
}

// newConfirm asks question; onYes runs when the user answers yes.
func newConfirm(question string, w, h int, st uiStyles, onYes func() tea.Cmd) *confirmOverlay {
	c := &confirmOverlay{question: question, onYes: onYes, st: st}
	c.SetSize(w, h)
	return c
}

// SetSize implements overlay.
func (c *confirmOverlay) SetSize(w, h int) {
	c.w, c.h = w, h
	// At most confirmWidth wide, and as many lines as the question needs:
	// a long list of agents is wrapped, never cut.
	c.boxW = min(max(ansi.StringWidth(c.question)+4, 30), confirmWidth, w)
	c.lines = c.lines[:0]
	for _, l := range strings.Split(ansi.Wrap(c.question, max(c.boxW-4, 1), ""), "\n") {
		c.lines = append(c.lines, plain(l))
	}
	c.x, c.y = centre(c.boxW, len(c.lines)+2, w, h)
}

// Update implements overlay.
func (c *confirmOverlay) Update(msg tea.Msg) (overlayResult, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return overlayResult{}, nil
	}
	switch k.String() {
	case "y", "Y", "enter":
		return overlayResult{confirmed: true, close: true}, nil
	case "n", "N", "esc", "q", "ctrl+c":
		return overlayResult{close: true}, nil
	}
	return overlayResult{}, nil
}

// View implements overlay.
func (c *confirmOverlay) View() ([][]vterm.Cell, int, int) {
	return drawBox("confirm", c.lines, c.HelpKeys(), c.boxW, c.st.box), c.x, c.y
}

// Cursor implements overlay.
func (c *confirmOverlay) Cursor() *tea.Cursor { return nil }

// HelpKeys implements overlay.
func (c *confirmOverlay) HelpKeys() string {
	return hints(hintRoom(c.boxW), hint("y", "yes"), hint("n", "no"))
}

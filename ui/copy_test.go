package ui

import (
	"encoding/base64"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// osc52Text decodes the clipboard text of an OSC 52 sequence in out.
func osc52Text(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "\x1b]52;c;")
	if i < 0 {
		return ""
	}
	rest := out[i+len("\x1b]52;c;"):]
	j := strings.IndexByte(rest, '\a')
	if j < 0 {
		t.Fatalf("OSC 52 without its end: %q", out)
	}
	b, err := base64.StdEncoding.DecodeString(rest[:j])
	if err != nil {
		t.Fatalf("OSC 52 payload %q: %v", rest[:j], err)
	}
	return string(b)
}

// In scrollback mode the copy cursor moves with h/j/k/l, v marks from it,
// the marks show reversed, and y copies the marked text to the outer
// terminal's clipboard (OSC 52) and to the paste buffers, then leaves the
// mode.
func TestCopyWithKeysInScrollback(t *testing.T) {
	snap := testSnapshot()
	snap.Main = nil
	main := testPane(control.MainID, 0, agentstate.Running, layout.Rect{X: 0, Y: 0, W: 40, H: 23}, "alpha beta\ngamma delta\n$ ")
	snap.Main = &main
	m, _ := newTestModel(t, snap)
	m.buffers = control.NewBuffers()
	press(t, m, "ctrl+b", "[")
	if m.scroll[control.MainID] == nil {
		t.Fatal("prefix [ did not enter scrollback mode")
	}
	// The copy cursor starts at the pane's cursor (row 2, column 2).
	press(t, m, "h", "h", "k", "l", "l", "l", "l", "v", "j", "l")
	// Marked: row 1 from column 4 to row 2 column 5. The content starts at (1, 1).
	cv := m.final
	for _, at := range [][2]int{{2, 5}, {2, 11}, {3, 1}, {3, 2}} {
		if c := cv.Row(at[0])[at[1]]; c.Attrs&vterm.AttrReverse == 0 {
			t.Errorf("cell %v (%q) is marked but not drawn reversed", at, c.Content)
		}
	}
	if c := cv.Row(2)[4]; c.Attrs&vterm.AttrReverse != 0 {
		t.Errorf("cell (2, 4) (%q) is before the marks but drawn reversed", c.Content)
	}
	if m.cursor == nil || m.cursor.X != 6 || m.cursor.Y != 3 {
		t.Errorf("the cursor is at %+v, want the copy cursor at (6, 3)", m.cursor)
	}
	out := rawOutput(press(t, m, "y"))
	if got := osc52Text(t, out); got != "a delta\n$" {
		t.Errorf("y sent %q to the clipboard (%q), want %q", got, out, "a delta\n$")
	}
	if got, _ := m.buffers.Get(0); got != "a delta\n$" {
		t.Errorf("paste buffer 0 is %q", got)
	}
	if m.scroll[control.MainID] != nil {
		t.Error("still in scrollback mode after the copy")
	}
}

// Esc drops the marks first and leaves scrollback mode only when pressed
// again; y without marks copies nothing.
func TestCopyEscDropsMarksFirst(t *testing.T) {
	m, _ := newTestModel(t, testSnapshot())
	m.buffers = control.NewBuffers()
	press(t, m, "ctrl+b", "[", "v", "l")
	press(t, m, "esc")
	s := m.scroll[control.MainID]
	if s == nil || s.sel.marking {
		t.Fatalf("esc with marks: scroll %+v, want the mode kept without marks", s)
	}
	if out := rawOutput(press(t, m, "y")); out != "" || m.buffers.Len() != 0 {
		t.Errorf("y without marks sent %q and kept %d buffers", out, m.buffers.Len())
	}
	press(t, m, "esc")
	if m.scroll[control.MainID] != nil {
		t.Error("a second esc did not leave scrollback mode")
	}
}

// A drag over a pane whose program does not take the mouse marks text and
// the release copies it; the drag's scrollback mode ends with it.
func TestCopyByMouseDrag(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	m.buffers = control.NewBuffers()
	// a1's content starts at (41, 1) and shows "building".
	m.Update(tea.MouseClickMsg{Button: tea.MouseLeft, X: 41, Y: 1})
	m.View()
	m.Update(tea.MouseMotionMsg{Button: tea.MouseLeft, X: 43, Y: 1})
	m.View()
	if s := m.scroll["a1"]; s == nil || !s.sel.marking {
		t.Fatal("dragging did not mark text")
	}
	m.Update(tea.MouseMotionMsg{Button: tea.MouseLeft, X: 45, Y: 1})
	m.View()
	_, cmd := m.Update(tea.MouseReleaseMsg{Button: tea.MouseLeft, X: 45, Y: 1})
	m.View()
	if got := osc52Text(t, rawOutput(cmd)); got != "build" {
		t.Errorf("the drag copied %q, want %q", got, "build")
	}
	if got, _ := m.buffers.Get(0); got != "build" {
		t.Errorf("paste buffer 0 is %q", got)
	}
	if m.scroll["a1"] != nil {
		t.Error("the drag's scrollback mode did not end with the release")
	}
	if in := eng.takeInputs(); len(in) != 0 {
		t.Errorf("the drag reached the pane: %q", in)
	}
}

// A click without a drag selects nothing and copies nothing.
func TestClickAloneCopiesNothing(t *testing.T) {
	m, _ := newTestModel(t, testSnapshot())
	m.buffers = control.NewBuffers()
	m.Update(tea.MouseClickMsg{Button: tea.MouseLeft, X: 41, Y: 1})
	_, cmd := m.Update(tea.MouseReleaseMsg{Button: tea.MouseLeft, X: 41, Y: 1})
	if out := rawOutput(cmd); out != "" || m.buffers.Len() != 0 || m.scroll["a1"] != nil {
		t.Errorf("a click wrote %q, kept %d buffers, scroll %v", out, m.buffers.Len(), m.scroll["a1"])
	}
}

package ui

import (
	"strconv"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// idleSession16 is the bench's idle session: 240x70, tiled, the main view
// and 16 idle shells each showing its prompt.
func idleSession16(t *testing.T) *Model {
	t.Helper()
	const w, h = 240, 70
	plan := layout.Compute(layout.Rect{W: w, H: h - 1}, 16, layout.Options{Name: layout.Tiled, HasMain: true, Zoom: -1})
	main := testPane(control.MainID, 0, agentstate.Idle, plan.Main, "bench$ ")
	snap := orchestrator.Snapshot{Cols: w, Rows: h - 1, Layout: layout.Tiled, Focus: control.MainID, Main: &main}
	for i, box := range plan.Slots {
		p := testPane("a"+strconv.Itoa(i+1), i+1, agentstate.Idle, box, "bench$ ")
		snap.Panes = append(snap.Panes, p)
		snap.Agents = append(snap.Agents, p.Agent)
	}
	snap.Counts.Idle = len(snap.Panes) + 1
	m, _ := newTestModel(t, snap)
	m.Update(teaWindowSize(w, h))
	m.View()
	return m
}

// TestFullRedrawSendsFewBytes: a full redraw (prefix r) of the bench's idle
// session repaints every cell, a terminal showing something else ends up
// showing exactly the frame, and on the bench's terminal (xterm-256color)
// it takes no more bytes than tmux's full redraw of the same session
// (6,225 bytes in the workbench bench). Blanks are never sent after the
// clear, and border lines go out as repeats.
func TestFullRedrawSendsFewBytes(t *testing.T) {
	m := idleSession16(t)
	t.Logf("with 24-bit colour: %d bytes", len(termrt.NewDiff(colorprofile.TrueColor, "xterm-256color", false).Append(nil, m.final, true)))
	out := termrt.NewDiff(colorprofile.ANSI256, "tmux-256color", false).Append(nil, m.final, true)
	t.Logf("256 colours inside tmux (REP of one-byte characters only): %d bytes", len(out))
	out = termrt.NewDiff(colorprofile.ANSI256, "xterm-256color", false).Append(nil, m.final, true)
	got := vterm.New(240, 70)
	for range 240 * 70 / 8 {
		_, _ = got.Write([]byte("garbage "))
	}
	_, _ = got.Write(out)
	for y := range 70 {
		for x := range 240 {
			// Colours as the 256-colour terminal has them.
			e := m.final.Row(y)[x]
			if g := got.Cell(x, y); g.Content != e.Content || g.Width != e.Width || g.Attrs != e.Attrs || (g.Fg == 0) != (e.Fg == 0) {
				t.Fatalf("cell %d,%d after a full redraw: got %+v, want %+v", x, y, g, e)
			}
		}
	}
	const tmux = 6225
	if len(out) > tmux {
		t.Errorf("a full redraw is %d bytes, more than tmux's %d", len(out), tmux)
	}
	t.Logf("a full redraw of the idle session is %d bytes", len(out))
}

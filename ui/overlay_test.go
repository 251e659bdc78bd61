package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/orchestrator"
)

// TestOverlayOverWideCharacters is a golden frame: an overlay drawn over
// pane content of wide characters, borders and the status line. A wide
// character cut by the overlay's left or right edge leaves a blank, never
// half a character; everything else of the pane shows around the box.
func TestOverlayOverWideCharacters(t *testing.T) {
	wide := strings.Repeat("日本語", 8) // the 48 columns of the pane
	main := testPane(control.MainID, 0, agentstate.Idle, layout.Rect{W: 50, H: 8}, strings.TrimSuffix(strings.Repeat(wide+"\n", 5), "\n"))
	snap := orchestrator.Snapshot{Cols: 50, Rows: 8, Layout: layout.MainVertical, Focus: control.MainID, Main: &main}
	snap.Counts.Idle = 1
	m, _ := newTestModel(t, snap)
	m.Update(teaWindowSize(50, 9))
	m.setOverlay(newConfirm("Stop?", m.width, m.height, m.ui, func() tea.Cmd { return nil }))
	m.View()
	checkWidths(t, m.final, 50, 9)
	compare(t, m.final, `
┌─ 0 main-title ○ idle <1m ──────────────────────┐
│日本語日本語日本語日本語日本語日本語日本語日本語│
│日本語日 ┌─ confirm ──────────────────┐ 語日本語│
│日本語日 │ Stop?                      │ 語日本語│
│日本語日 └─ y yes · n no ─────────────┘ 語日本語│
│日本語日本語日本語日本語日本語日本語日本語日本語│
│                                                │
└────────────────────────────────────────────────┘
 0 running · 1 idle │ main-title                  `)
	// The box is in the overlay's looks, the status line in its own.
	if !hasStyled(m.final, "┌─", m.ui.box.border) || !hasStyled(m.final, " confirm ", m.ui.box.title) ||
		!hasStyled(m.final, " Stop?", m.ui.box.text) {
		t.Error("the overlay is not drawn in its looks")
	}
}

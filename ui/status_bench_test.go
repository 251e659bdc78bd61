package ui

import (
	"fmt"
	"testing"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// BenchmarkStatusLineCells is the status line's way from the store's
// entries to the cells of the bottom row, as a frame takes it when the line
// changed: 50 entries (some stale, some an agent's) at 240 columns.
func BenchmarkStatusLineCells(b *testing.B) {
	ui := newUIStyles(testStyles())
	entries := make([]hooks.StatusEntry, 50)
	for i := range entries {
		entries[i] = hooks.StatusEntry{Key: fmt.Sprintf("k%02d", i), Text: fmt.Sprintf("entry %d ✓ 日本", i), Stale: i%5 == 0}
		if i%3 == 0 {
			entries[i].Agent = fmt.Sprintf("a%d", i)
		}
	}
	in := hooks.StatusLineInput{Counts: agentstate.Counts{Running: 5, Waiting: 1, Done: 9, Failed: 1}, Entries: entries, Focus: "a3 tests"}
	var cells []vterm.Cell
	b.ReportAllocs()
	for b.Loop() {
		l := ui.statusLine(hooks.RenderStatusLine(in, 240))
		cells = l.appendCells(cells[:0], 240, termrt.Style{})
	}
	if len(cells) != 240 {
		b.Fatalf("%d cells", len(cells))
	}
}

package ui

import (
	tea "charm.land/bubbletea/v2"

	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

func overlayText(rows [][]vterm.Cell) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		var b strings.Builder
		for _, c := range r {
			b.WriteString(c.Content)
		}
		out[i] = b.String()
	}
	return out
}

// The agents overlay draws the family tree as agentgrid list --tree does:
// each agent below the one that started it, indented by its depth, after
// the main view.
func TestAgentsOverlayDrawsTheTree(t *testing.T) {
	now := time.Unix(1000, 0)
	ag := func(id, parent, title string) control.AgentInfo {
		return control.AgentInfo{ID: id, Parent: parent, Title: title, State: agentstate.Running, Created: now}
	}
	snap := orchestrator.Snapshot{
		Main: &orchestrator.PaneView{Agent: control.AgentInfo{ID: control.MainID, Title: "sh", State: agentstate.Running}},
		Agents: []control.AgentInfo{
			ag("a1", "", "lead"), ag("a2", "main", "solo"), ag("a3", "a1", "child"), ag("a4", "a3", "grandchild"), ag("a5", "a1", "second"),
		},
	}
	o := newAgentsOverlay(120, 30, newUIStyles(testStyles()))
	o.setAgents(snap, now)
	cells, _, _ := o.View()
	var ids []string
	for _, row := range overlayText(cells) {
		for _, want := range []string{"main ", "a1 ", "└─ a3 ", "  └─ a4 ", "└─ a5 ", "a2 "} {
			if strings.Contains(row, "│"+want) || strings.Contains(row, "│ "+want) {
				ids = append(ids, strings.TrimSpace(want))
				break
			}
		}
	}
	want := []string{"main", "a1", "└─ a3", "└─ a4", "└─ a5", "a2"}
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("rows in order %q, want %q:\n%s", ids, want, strings.Join(overlayText(cells), "\n"))
	}
	// Moving down follows the drawn order.
	o.selected = "a1"
	o.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	if o.selected != "a3" {
		t.Errorf("down from a1 selects %s, want its child a3", o.selected)
	}
}

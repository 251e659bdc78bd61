package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
)

// TestPrefixSStopsTheFocusedLoop runs the real engine: the loop shows in the
// pane's border and the status line, prefix S stops it, and pressed again
// says there is nothing to stop.
func TestPrefixSStopsTheFocusedLoop(t *testing.T) {
	cfg := config.Default()
	eng := realEngine(t, cfg, "loopkey", 100, 29)
	a, err := eng.Spawn(control.SpawnRequest{Argv: []string{"/bin/cat"}, Loop: &control.LoopSpec{Promise: "DONE", Max: 3, Task: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(eng, cfg, testStyles(), time.Now)
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	m.Update(teaWindowSize(100, 30))
	eng.Focus(a.ID)
	waitFor(t, "the loop in the border and the status line", func() bool {
		m.refresh()
		m.View()
		var entries []string
		for _, p := range m.in.panes {
			if p.id == a.ID {
				entries = p.label.entries
			}
		}
		return strings.Contains(strings.Join(entries, " "), "loop 1/3") &&
			strings.Contains(m.in.status.text(), a.ID+": loop 1/3")
	})
	press(t, m, "ctrl+b", "S")
	if in, _ := eng.Agent(a.ID); in.Loop == nil || in.Loop.Status != control.LoopStopped || in.Loop.Reason != "stopped on request" {
		t.Fatalf("after prefix S the loop is %+v", in.Loop)
	}
	press(t, m, "ctrl+b", "S")
	waitFor(t, "the notice that there is no loop", func() bool {
		m.refresh()
		m.View()
		return strings.Contains(m.in.status.text(), "has no running loop to stop")
	})
}

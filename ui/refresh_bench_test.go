package ui

import (
	"strconv"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/orchestrator"
)

// BenchmarkLabelRefresh16 is the once-a-second label refresh of a quiet
// 240x70 session with 16 running panes: every badge's elapsed time changes
// (as in the first minute of a running agent's state), nothing else does.
func BenchmarkLabelRefresh16(b *testing.B) {
	const w, h = 240, 70
	plan := layout.Compute(layout.Rect{W: w, H: h - 1}, 15, layout.Options{Name: layout.Tiled, HasMain: true, MinAgentWidth: 20, MinAgentHeight: 5, Zoom: -1})
	main := testPane(control.MainID, 0, agentstate.Idle, plan.Main, "$ ")
	snap := orchestrator.Snapshot{Cols: w, Rows: h - 1, Layout: layout.Tiled, Focus: control.MainID, Main: &main}
	for i, box := range plan.Slots {
		p := testPane("a"+strconv.Itoa(i+1), i+1, agentstate.Running, box, "$ ")
		snap.Panes = append(snap.Panes, p)
		snap.Agents = append(snap.Agents, p.Agent)
	}
	snap.Counts.Idle = 1
	snap.Counts.Running = len(snap.Panes)
	now := testNow
	clock := func() time.Time { return now }
	eng := newFakeEngine(snap, clock)
	eng.status.Set("build", "✓ green", "", "test", 0)
	eng.status.Set("a3", "Bash: go test ./...", "a3", "test", 0)
	m := newModel(eng, testConfig(), testStyles(), clock)
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	m.Update(teaWindowSize(w, h))
	m.View()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		// Stay in the first minute, where the labels change every second.
		i++
		now = testNow.Add(time.Duration(i%40+1) * time.Second)
		m.Update(labelTickMsg{gen: m.labelGen})
		m.View()
	}
}

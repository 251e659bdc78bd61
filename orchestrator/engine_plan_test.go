package orchestrator

import (
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/panes/panestest"
)

// Closing a running agent gives its slot to the head of the queue before
// Close returns: one pass decides both.
func TestCloseHandsTheSlotOnInTheSamePass(t *testing.T) {
	sp := &panestest.Spawner{}
	e := newTestEngine(t, sp, nil, func(c *config.Config) {
		c.Agents.StartOffscreen = false
		c.Layout.MinAgentWidth = 20
	})
	e.Resize(24, 5) // capacity 1
	a1, a2 := spawn(t, e, "x"), spawn(t, e, "y")
	if a2.QueuePos != 1 {
		t.Fatalf("a2 = %+v", a2)
	}
	if err := e.Close(a1.ID); err != nil {
		t.Fatal(err)
	}
	// No waiting: the snapshot published by Close shows the hand-off.
	in, _ := e.Agent(a2.ID)
	if !in.Visible || in.QueuePos != 0 || (in.State != StateRunning && in.State != StateStarting) {
		t.Fatalf("after the close a2 = %+v", in)
	}
	if snap := e.Snapshot(); snap.Focus != control.MainID && snap.Focus != a2.ID {
		t.Fatalf("focus = %q", snap.Focus)
	}
	if got := waitFinished(t, e, a1.ID); got.State != StateKilled || got.Visible {
		t.Fatalf("a1 = %+v", got)
	}
}

// A finished agent whose pane was reclaimed comes back when shown,
// swapping out the oldest finished pane.
func TestShowBringsBackAReclaimedPane(t *testing.T) {
	clock := newFakeClock()
	sp := &panestest.Spawner{}
	e := newClockedEngine(t, sp, clock, nil, func(c *config.Config) {
		c.Agents.FinishedLinger = config.Duration{Duration: time.Second}
		c.Layout.MinAgentWidth = 20
	})
	e.Resize(24, 5) // capacity 1
	a1, a2 := spawn(t, e, "x"), spawn(t, e, "y")
	pollUntil(t, 15*time.Second, "both processes", func() bool { return len(sp.Procs()) == 2 })
	sp.Procs()[0].Exit(0)
	waitFinished(t, e, a1.ID)
	clock.Advance(time.Second)
	waitAgent(t, e, a2.ID, "placed", func(a control.AgentInfo) bool { return a.Visible })
	sp.Procs()[1].Exit(0)
	waitFinished(t, e, a2.ID)
	if in, _ := e.Agent(a1.ID); in.Visible || in.QueuePos != 0 {
		t.Fatalf("a1 should be reclaimed: %+v", in)
	}
	if err := e.Show(a1.ID); err != nil {
		t.Fatal(err)
	}
	snap := e.Snapshot()
	if len(snap.Panes) != 1 || snap.Panes[0].Agent.ID != a1.ID || snap.Focus != a1.ID {
		t.Fatalf("after show: focus %s panes %+v", snap.Focus, snap.Panes)
	}
	if in, _ := e.Agent(a2.ID); in.Visible || in.QueuePos != 0 {
		t.Fatalf("the swapped-out finished pane must close, not queue: %+v", in)
	}
}

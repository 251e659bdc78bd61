package orchestrator

import (
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/panes"
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
	if !in.Visible || in.QueuePos != 0 || (in.State != agentstate.Running && in.State != agentstate.Starting) {
		t.Fatalf("after the close a2 = %+v", in)
	}
	if snap := e.Snapshot(); snap.Focus != control.MainID && snap.Focus != a2.ID {
		t.Fatalf("focus = %q", snap.Focus)
	}
	if got := waitFinished(t, e, a1.ID); got.State != agentstate.Killed || got.Visible {
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

// A start that hangs (a command on a file system that does not answer)
// fails the agent at its deadline, leaves the engine working, and the
// process, if it comes later, is ended.
func TestHangingStartFailsAtItsDeadline(t *testing.T) {
	clock := newFakeClock()
	release := make(chan struct{})
	sp := &panestest.Spawner{Fail: func(s panes.StartSpec) error {
		if s.Argv[0] == "hang" {
			<-release
		}
		return nil
	}}
	e := newClockedEngine(t, sp, clock, nil, nil)
	e.Resize(48, 10)
	type result struct {
		in  control.AgentInfo
		err error
	}
	res := make(chan result, 1)
	go func() {
		in, err := e.Spawn(control.SpawnRequest{Argv: []string{"hang"}})
		res <- result{in, err}
	}()
	clock.waitTimerAt(t, clock.Now().Add(startTimeout), "the start's deadline")
	clock.Advance(startTimeout)
	var r result
	select {
	case r = <-res:
	case <-time.After(15 * time.Second):
		t.Fatal("Spawn did not return after the start's deadline")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	got := waitFinished(t, e, r.in.ID)
	if got.State != agentstate.Failed || !strings.Contains(got.Why, "did not start within 5s") || got.ExitCode != nil {
		t.Fatalf("hung start = %+v", got)
	}
	if s, err := e.Capture(r.in.ID, false, 0); err != nil || !strings.Contains(strings.ReplaceAll(s, "\n", ""), "did not start within") {
		t.Fatalf("capture = %q, %v", s, err)
	}
	// The engine goes on.
	ok := spawn(t, e, "fine")
	waitAgent(t, e, ok.ID, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	// The late process is ended and changes nothing.
	close(release)
	pollUntil(t, 15*time.Second, "the late process to be signalled", func() bool {
		for _, p := range sp.Procs() {
			if p.Spec.Argv[0] == "hang" && len(p.Signals()) > 0 {
				return true
			}
		}
		return false
	})
	if a, _ := e.Agent(r.in.ID); a.State != agentstate.Failed || a.ExitCode != nil || a.PID != 0 {
		t.Fatalf("after the late start: %+v", a)
	}
}

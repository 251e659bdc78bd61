package ui

import (
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// TestHubDrawsAHookStateAhead: an agent's new state from its hook reaches
// each client's pump as news, which the pump draws at once unless a frame
// went out a moment ago (TestFramePumpNewsWaitsOnlyAGap). As an ordinary
// change it waited for the frame budget: up to an interval after the last
// frame.
func TestHubDrawsAHookStateAhead(t *testing.T) {
	h, eng, a := startHubEngine(t, "ready-1")
	// A client of the hub's fan-out without a program: the test reads the
	// pokes its pump would get.
	c := &client{changed: make(chan struct{}, 1), urgent: make(chan struct{}, 1), fresh: make(chan struct{}, 1), news: make(chan struct{}, 1)}
	h.add(c)
	h.fan.Do(func() { go h.fanOut() })
	const why = "permission: Bash: rm -rf build"
	if err := eng.Signal(a.ID, agentstate.Signal{Event: "PermissionRequest", State: agentstate.Waiting, Why: why, Status: why}, "claude"); err != nil {
		t.Fatal(err)
	}
	// Earlier pokes (the agent's start) may still be on their way: wait
	// for the one after which the snapshot shows the wait.
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-c.news:
		case <-deadline:
			t.Fatal("the hook's new state never reached the client's pump as news")
		}
		for _, in := range eng.Snapshot().Agents {
			if in.ID == a.ID && in.State == agentstate.Waiting && in.Why == why {
				return
			}
		}
	}
}

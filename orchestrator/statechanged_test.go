package orchestrator

import (
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// TestHookStatePokesStateChanged: a hook's new state pokes StateChanged,
// the UI's cue to draw it ahead of its frame budget, and only once the
// published snapshot shows it; a hook event that changes nothing shown
// does not poke (the engine's clock is a fake one, so no idle timer
// changes a state meanwhile).
func TestHookStatePokesStateChanged(t *testing.T) {
	e := newClockedEngine(t, nil, newFakeClock(), nil, nil)
	a := spawn(t, e, "sleep", "60")
	waitAgent(t, e, a.ID, "running", func(in control.AgentInfo) bool { return in.State == agentstate.Running })
	select { // the poke of the start itself
	case <-e.StateChanged():
	default:
	}
	// Signal returns once the engine applied and published it.
	signalFixture(t, e, a.ID, "claude", "live_permission_request")
	select {
	case <-e.StateChanged():
	default:
		t.Fatal("a hook's new state did not poke StateChanged")
	}
	const want = "permission: Bash: touch live-file3.txt"
	var shown bool
	for _, in := range e.Snapshot().Agents {
		shown = shown || in.ID == a.ID && in.State == agentstate.Waiting && in.Why == want
	}
	if !shown {
		t.Fatalf("StateChanged was poked before the snapshot showed the agent waiting with %q", want)
	}
	signalFixture(t, e, a.ID, "claude", "live_permission_request")
	select {
	case <-e.StateChanged():
		t.Fatal("the same hook event again, which changes nothing on screen, poked StateChanged")
	default:
	}
	// The end of the wait is news again, and so is the status it clears.
	signalFixture(t, e, a.ID, "claude", "live_stop_failure")
	select {
	case <-e.StateChanged():
	default:
		t.Fatal("the end of the wait did not poke StateChanged")
	}
}

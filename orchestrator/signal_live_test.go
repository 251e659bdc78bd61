package orchestrator

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentcli/registry"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// signalFixture feeds a recorded hook payload of cli through its adapter
// to the engine, as `agentgrid hook` does.
func signalFixture(t *testing.T, e *Engine, id, cli, name string) {
	t.Helper()
	payload, err := os.ReadFile(filepath.Join("..", "internal", "agentcli", cli, "testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	sig, err := registry.Adapt(cli, payload)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Signal(id, sig, cli); err != nil {
		t.Fatal(err)
	}
}

// Claude Code sends PermissionRequest (the tool and its input) and, some
// seconds later, a generic Notification "Claude needs your permission":
// the agent stays waiting with the precise reason and status (payloads
// recorded from Claude Code 2.1.332).
func TestGenericNoticeKeepsThePreciseWait(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	a := spawn(t, e, "sleep", "60")
	waitAgent(t, e, a.ID, "running", func(in control.AgentInfo) bool { return in.State == agentstate.Running })
	signalFixture(t, e, a.ID, "claude", "live_permission_request")
	signalFixture(t, e, a.ID, "claude", "live_notification_permission")
	in, _ := e.Agent(a.ID)
	const want = "permission: Bash: touch live-file3.txt"
	if in.State != agentstate.Waiting || in.Why != want {
		t.Errorf("after the notice: %s %q, want waiting %q", in.State, in.Why, want)
	}
	var status string
	for _, s := range e.Status().Entries() {
		if s.Key == a.ID {
			status = s.Text
		}
	}
	if status != want {
		t.Errorf("status entry %q, want %q", status, want)
	}
	// Without a precise wait before it, the notice is the reason.
	b := spawn(t, e, "sleep", "60")
	waitAgent(t, e, b.ID, "running", func(in control.AgentInfo) bool { return in.State == agentstate.Running })
	signalFixture(t, e, b.ID, "claude", "live_notification_permission")
	if in, _ := e.Agent(b.ID); in.State != agentstate.Waiting || in.Why != "Claude needs your permission" {
		t.Errorf("a notice alone: %s %q", in.State, in.Why)
	}
}

// A turn that ends on an API error leaves Claude Code at its prompt: the
// agent is idle, with the error as the reason (payload recorded from
// Claude Code 2.1.332 answering a 400 from the model server).
func TestClaudeStopFailureEndsTheTurn(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	a := spawn(t, e, "sleep", "60")
	waitAgent(t, e, a.ID, "running", func(in control.AgentInfo) bool { return in.State == agentstate.Running })
	signalFixture(t, e, a.ID, "claude", "live_stop_failure")
	if in, _ := e.Agent(a.ID); in.State != agentstate.Idle || in.Why != "turn failed: API Error: 400 scripted failure" || in.Source != "hook:claude" {
		t.Errorf("after StopFailure: %s %s %q", in.State, in.Source, in.Why)
	}
}

// Codex runs one hook process per event, and the session may read two of
// them the other way round: the live suite saw PermissionRequest (waiting)
// applied before the PreToolUse (running) that Codex sent 30 ms earlier,
// leaving the pane running under an approval prompt. The hook's start time
// orders them (payloads recorded from Codex 0.171.0).
func TestOvertakenHookChangesNoState(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	a := spawn(t, e, "sleep", "60")
	waitAgent(t, e, a.ID, "running", func(in control.AgentInfo) bool { return in.State == agentstate.Running })
	read := func(name string) agentstate.Signal {
		payload, err := os.ReadFile(filepath.Join("..", "internal", "agentcli", "codex", "testdata", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		sig, err := registry.Adapt("codex", payload)
		if err != nil {
			t.Fatal(err)
		}
		return sig
	}
	pre, perm := read("live_pre_tool_use"), read("live_permission_request")
	t0 := time.Now()
	pre.At, perm.At = t0, t0.Add(30*time.Millisecond)
	if err := e.Signal(a.ID, perm, "codex"); err != nil {
		t.Fatal(err)
	}
	if err := e.Signal(a.ID, pre, "codex"); err != nil {
		t.Fatal(err)
	}
	if in, _ := e.Agent(a.ID); in.State != agentstate.Waiting || in.Why != "permission: Bash: touch cx-file.txt" {
		t.Errorf("after the overtaken PreToolUse: %s %q", in.State, in.Why)
	}
}

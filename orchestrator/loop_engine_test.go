package orchestrator

import (
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

var stopSig = agentstate.Signal{Event: "Stop", State: agentstate.Idle, Why: "turn finished"}

func stopAsk(said string, repeat bool) agentstate.Ask {
	return agentstate.Ask{Point: agentstate.PointStop, Said: said, Repeat: repeat}
}

func loopOf(t *testing.T, e *Engine, id string) control.LoopInfo {
	t.Helper()
	in, ok := e.Agent(id)
	if !ok || in.Loop == nil {
		t.Fatalf("agent %s has no loop in its info: %+v", id, in)
	}
	return *in.Loop
}

func statusText(e *Engine, key string) string {
	for _, s := range e.Status().Entries() {
		if s.Key == key {
			return s.Text
		}
	}
	return ""
}

// TestLoopContinuesThroughClaudesStopAndPausesOnEsc runs a loop on a real
// process: Claude's Stop is answered with the continuation (also when the
// Stop says a hook kept the turn going), Esc pauses it at once, a paused
// loop answers nothing, resume types the next iteration into the pane, and
// the promise ends it.
func TestLoopContinuesThroughClaudesStopAndPausesOnEsc(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	in, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}, Loop: &control.LoopSpec{Promise: "DONE", Max: 4, Task: "port the parser"}})
	if err != nil {
		t.Fatal(err)
	}
	id := in.ID
	waitAgent(t, e, id, "started", func(a control.AgentInfo) bool { return a.PID > 0 })
	if l := loopOf(t, e, id); l.Status != control.LoopRunning || l.Iteration != 1 || l.Task != "port the parser" {
		t.Fatalf("loop after spawn: %+v", l)
	}

	d, err := e.Decide(id, "claude", stopSig, stopAsk("Half of it is ported.", false))
	if err != nil {
		t.Fatal(err)
	}
	if d.Action != agentstate.ActionBlock || !strings.Contains(d.Message, "iteration 2/4") || !strings.Contains(d.Message, "port the parser") || d.Policy != "loop" {
		t.Fatalf("first Stop: %+v, want a block carrying iteration 2/4 and the task", d)
	}
	// stop_hook_active: the turn went on for our hook; the loop still decides.
	d, _ = e.Decide(id, "claude", stopSig, stopAsk("Three quarters.", true))
	if d.Action != agentstate.ActionBlock || !strings.Contains(d.Message, "iteration 3/4") {
		t.Fatalf("second Stop: %+v, want iteration 3/4", d)
	}
	waitAgent(t, e, id, "loop 3/4 in its info", func(a control.AgentInfo) bool { return a.Loop != nil && a.Loop.Iteration == 3 })
	if got := statusText(e, "loop:"+id); got != "loop 3/4" {
		t.Errorf("status entry %q, want loop 3/4", got)
	}

	if err := e.Input(id, []byte("\x1b")); err != nil {
		t.Fatal(err)
	}
	if l := loopOf(t, e, id); l.Status != control.LoopPaused || l.Reason != "paused: interrupted by user" {
		t.Fatalf("after Esc: %+v", l)
	}
	if d, _ = e.Decide(id, "claude", stopSig, stopAsk("Stopped.", false)); d.Action != agentstate.ActionNone {
		t.Fatalf("a paused loop answered the Stop: %+v", d)
	}
	if _, err := e.Loop(id, control.LoopResume, control.LoopSpec{}); err != nil {
		t.Fatal(err)
	}
	// Resumed with the agent idle: iteration 4 is typed into the pane.
	pollUntil(t, 15*time.Second, "the continuation typed into the pane", func() bool {
		text, _ := e.Capture(id, false, 0)
		return strings.Contains(text, "[agentgrid loop: iteration 4/4] port the parser")
	})
	if l := loopOf(t, e, id); l.Iteration != 4 || l.Status != control.LoopRunning {
		t.Fatalf("after resume: %+v", l)
	}
	d, _ = e.Decide(id, "claude", stopSig, stopAsk("Ported and tested.\n<promise>DONE</promise>", true))
	if d.Action != agentstate.ActionNone {
		t.Fatalf("the promise on the last iteration was answered with %+v", d)
	}
	if l := loopOf(t, e, id); l.Status != control.LoopSucceeded || !strings.Contains(l.Reason, "iteration 4") {
		t.Fatalf("promise on the last iteration: %+v, want succeeded", l)
	}
	ex, err := e.Explain(id)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Agent.Loop == nil || ex.Agent.Loop.Status != control.LoopSucceeded {
		t.Errorf("explain shows loop %+v", ex.Agent.Loop)
	}
	var steps []string
	for _, d := range ex.Decisions {
		if d.Policy == "loop" {
			// cat stands in for Claude: its start carries the plain-program
			// warning (TestLoopOnAPlainProgramSaysItWaitsForTurns).
			reason, _, _ := strings.Cut(d.Reason, "; it runs a plain program")
			steps = append(steps, d.Action+": "+reason)
		}
	}
	want := []string{
		"running: started with the agent", "running: continued: iteration 2", "running: continued: iteration 3",
		"paused: paused: interrupted by user", "running: resumed", "running: continued: iteration 4",
		"running: continued: iteration 4 typed", "succeeded: succeeded: the promise came in iteration 4",
	}
	if strings.Join(steps, "\n") != strings.Join(want, "\n") {
		t.Errorf("explain's loop steps:\n%s\nwant:\n%s", strings.Join(steps, "\n"), strings.Join(want, "\n"))
	}
	if _, err := e.Loop(id, control.LoopResume, control.LoopSpec{}); err == nil {
		t.Error("resuming a finished loop: no error")
	}
}

// TestLoopTypedAfterCooldownAndPausedByTyping drives the typed fallback on
// a fake clock: a CLI that does not go on through its Stop answer gets the
// continuation typed after the cooldown, not before; the user's typing
// pauses the loop at the next turn's end; max ends it.
func TestLoopTypedAfterCooldownAndPausedByTyping(t *testing.T) {
	clock := newFakeClock()
	e := newClockedEngine(t, nil, clock, nil, nil)
	in := spawn(t, e, "cat")
	id := in.ID
	waitAgent(t, e, id, "started", func(a control.AgentInfo) bool { return a.PID > 0 })
	if _, err := e.Loop(id, control.LoopStart, control.LoopSpec{Promise: "DONE", Max: 3}); err == nil {
		t.Fatal("a loop without a task on an agent that was never prompted: no error")
	}
	// The task defaults to the prompt the agent was given.
	if _, err := e.Decide(id, "codex", agentstate.Signal{Event: "UserPromptSubmit", State: agentstate.Running}, agentstate.Ask{Point: agentstate.PointPrompt, Prompt: "fix the flaky test"}); err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, id, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	if _, err := e.Loop(id, control.LoopStart, control.LoopSpec{Promise: "DONE", Max: 3, CooldownMS: 10000}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Loop(id, control.LoopStart, control.LoopSpec{Promise: "DONE", Max: 3}); err == nil {
		t.Error("a second loop on the same agent: no error")
	}
	d, _ := e.Decide(id, "codex", stopSig, stopAsk("Not yet.", false))
	if d.Action != agentstate.ActionNone {
		t.Fatalf("codex's Stop was answered with %+v; its continuation is typed", d)
	}
	waitAgent(t, e, id, "idle", func(a control.AgentInfo) bool { return a.State == agentstate.Idle })
	clock.Advance(9 * time.Second)
	if l := loopOf(t, e, id); l.Iteration != 2 || strings.Contains(l.Reason, "typed") {
		t.Fatalf("9s into a 10s cooldown: %+v, want iteration 2 not typed yet", l)
	}
	clock.Advance(2 * time.Second)
	pollUntil(t, 15*time.Second, "the continuation typed after the cooldown", func() bool {
		text, _ := e.Capture(id, false, 0)
		return strings.Contains(text, "[agentgrid loop: iteration 2/3] fix the flaky test")
	})
	if got := loopOf(t, e, id).Reason; got != "continued: iteration 2 typed" {
		t.Errorf("reason %q", got)
	}

	// The user types mid-turn: the turn's end pauses the loop.
	if err := e.Input(id, []byte("also check windows")); err != nil {
		t.Fatal(err)
	}
	e.Decide(id, "codex", stopSig, stopAsk("Done?", false))
	if l := loopOf(t, e, id); l.Status != control.LoopPaused || !strings.Contains(l.Reason, "you typed") {
		t.Fatalf("after the user typed: %+v", l)
	}
	if _, err := e.Loop(id, control.LoopResume, control.LoopSpec{}); err != nil {
		t.Fatal(err)
	}
	if l := loopOf(t, e, id); l.Iteration != 3 {
		t.Fatalf("resume: %+v, want iteration 3 under way", l)
	}
	e.Decide(id, "codex", stopSig, stopAsk("Still failing.", false))
	if l := loopOf(t, e, id); l.Status != control.LoopStopped || !strings.Contains(l.Reason, "3 iterations") {
		t.Fatalf("max reached: %+v, want stopped", l)
	}
	if _, err := e.Loop(id, control.LoopStop, control.LoopSpec{}); err == nil {
		t.Error("stopping a stopped loop: no error")
	}
}

// TestLoopStopsWhenTheAgentEnds: an agent's exit ends its loop, a paused
// one too; a closed agent's loop leaves nothing in the status line.
func TestLoopStopsWhenTheAgentEnds(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	in, err := e.Spawn(control.SpawnRequest{Argv: []string{"sh", "-c", "read x"}, Loop: &control.LoopSpec{Promise: "DONE", Max: 2, Task: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, in.ID, "started", func(a control.AgentInfo) bool { return a.PID > 0 })
	if err := e.Send(in.ID, []byte("\r")); err != nil {
		t.Fatal(err)
	}
	waitFinished(t, e, in.ID)
	waitAgent(t, e, in.ID, "loop stopped", func(a control.AgentInfo) bool {
		return a.Loop != nil && a.Loop.Status == control.LoopStopped && a.Loop.Reason == "stopped: the agent ended"
	})

	paused, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}, Loop: &control.LoopSpec{Promise: "DONE", Max: 2, Task: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, paused.ID, "started", func(a control.AgentInfo) bool { return a.PID > 0 })
	if err := e.Input(paused.ID, []byte("\x1b")); err != nil {
		t.Fatal(err)
	}
	if l := loopOf(t, e, paused.ID); l.Status != control.LoopPaused {
		t.Fatalf("after Esc: %+v", l)
	}
	if got := statusText(e, "loop:"+paused.ID); got != "loop 1/2 paused" {
		t.Errorf("status entry %q", got)
	}
	if err := e.Close(paused.ID); err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, paused.ID, "the paused loop stopped", func(a control.AgentInfo) bool {
		return a.Loop != nil && a.Loop.Status == control.LoopStopped
	})
	if got := statusText(e, "loop:"+paused.ID); got != "" {
		t.Errorf("a closed agent's loop is still in the status line: %q", got)
	}
}

// TestLoopTypesAContinuationWhoseStopAnswerWasLost: a continuation answered
// at Claude's Stop that never reached it (the hook gave up on its budget)
// shows as Claude's idle notice with no work in between: the continuation
// is typed instead. Work in between means it was taken: nothing is typed.
func TestLoopTypesAContinuationWhoseStopAnswerWasLost(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	in, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}, Loop: &control.LoopSpec{Promise: "DONE", Max: 5, Task: "port the parser"}})
	if err != nil {
		t.Fatal(err)
	}
	id := in.ID
	waitAgent(t, e, id, "started", func(a control.AgentInfo) bool { return a.PID > 0 })
	idleNotice := agentstate.Signal{Event: "Notification", State: agentstate.Idle, Why: "Claude is waiting for your input"}

	// Taken: a tool ran after the answer; the later idle notice types nothing.
	if d, _ := e.Decide(id, "claude", stopSig, stopAsk("Half.", false)); d.Action != agentstate.ActionBlock {
		t.Fatalf("Stop: %+v", d)
	}
	if err := e.Signal(id, agentstate.Signal{Event: "PreToolUse", State: agentstate.Running, Status: "Bash: go test"}, "claude"); err != nil {
		t.Fatal(err)
	}
	if err := e.Signal(id, idleNotice, "claude"); err != nil {
		t.Fatal(err)
	}
	if l := loopOf(t, e, id); l.Reason != "continued: iteration 2" {
		t.Fatalf("an idle notice after work changed the loop: %+v", l)
	}

	// Lost: the idle notice follows the answer directly.
	if d, _ := e.Decide(id, "claude", stopSig, stopAsk("More.", true)); d.Action != agentstate.ActionBlock || !strings.Contains(d.Message, "iteration 3/5") {
		t.Fatalf("second Stop: %+v", d)
	}
	if err := e.Signal(id, idleNotice, "claude"); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, 15*time.Second, "the lost continuation typed into the pane", func() bool {
		text, _ := e.Capture(id, false, 0)
		return strings.Contains(text, "[agentgrid loop: iteration 3/5] port the parser")
	})
	// The engine publishes the loop's new reason after the pass that typed
	// it, which can come after cat has echoed the text.
	waitAgent(t, e, id, "its loop reporting the lost continuation typed", func(a control.AgentInfo) bool {
		return a.Loop != nil && a.Loop.Iteration == 3 && a.Loop.Reason == "continued: iteration 3 typed"
	})
}

// TestLoopOnTheMainView: the orchestrator in the main view loops like any
// agent, and its loop is in its info.
func TestLoopOnTheMainView(t *testing.T) {
	e := newTestEngine(t, nil, []string{"cat"}, nil)
	waitAgent(t, e, control.MainID, "started", func(a control.AgentInfo) bool { return a.PID > 0 })
	if _, err := e.Loop(control.MainID, control.LoopStart, control.LoopSpec{Promise: "DONE", Max: 2, Task: "plan the release"}); err != nil {
		t.Fatal(err)
	}
	d, err := e.Decide(control.MainID, "claude", stopSig, stopAsk("Planned half.", false))
	if err != nil || d.Action != agentstate.ActionBlock || !strings.Contains(d.Message, "iteration 2/2") {
		t.Fatalf("main's Stop: %+v, %v", d, err)
	}
	waitAgent(t, e, control.MainID, "its loop at iteration 2", func(a control.AgentInfo) bool { return a.Loop != nil && a.Loop.Iteration == 2 })
}

// TestLoopWhileTodosFollowsClaudesTodoList: a --while-todos loop goes on
// while the TodoWrite list has open items, seen through the hooks' asks,
// and succeeds once none is open.
func TestLoopWhileTodosFollowsClaudesTodoList(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	in := spawn(t, e, "cat")
	id := in.ID
	waitAgent(t, e, id, "started", func(a control.AgentInfo) bool { return a.PID > 0 })
	todoWrite := func(open, done int) {
		t.Helper()
		ask := agentstate.Ask{Point: agentstate.PointPostTool, Tool: "TodoWrite", Todos: &agentstate.Todos{Open: open, Done: done}}
		if _, err := e.Decide(id, "claude", agentstate.Signal{Event: "PostToolUse", State: agentstate.Running}, ask); err != nil {
			t.Fatal(err)
		}
	}
	todoWrite(3, 0) // before the loop: the loop starts from this list
	waitAgent(t, e, id, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	if _, err := e.Loop(id, control.LoopStart, control.LoopSpec{WhileTodos: true, Max: 10, Task: "port the parser"}); err != nil {
		t.Fatal(err)
	}
	todoWrite(2, 1)
	d, _ := e.Decide(id, "claude", stopSig, stopAsk("One done.", false))
	if d.Action != agentstate.ActionBlock || !strings.Contains(d.Message, "todo list") {
		t.Fatalf("Stop with open items: %+v", d)
	}
	if l := loopOf(t, e, id); l.Todos == nil || l.Todos.Open != 2 || !strings.Contains(l.Label(), "· 2 open") {
		t.Errorf("loop info %+v, label %q", l, l.Label())
	}
	todoWrite(0, 3)
	if d, _ = e.Decide(id, "claude", stopSig, stopAsk("All done.", true)); d.Action != agentstate.ActionNone {
		t.Fatalf("Stop with no open items: %+v", d)
	}
	if l := loopOf(t, e, id); l.Status != control.LoopSucceeded || !strings.Contains(l.Reason, "no open items") {
		t.Errorf("loop %+v, want succeeded on the todo list", l)
	}
}

// TestLoopOnAPlainProgramSaysItWaitsForTurns: a loop on a program that
// reports no turns (no agent-CLI hooks) says so in its reason, where the
// loop command and explain show it, instead of a silent "running"; an agent
// whose kind wires a CLI's hooks, or whose hooks were heard, gets no such
// warning.
func TestLoopOnAPlainProgramSaysItWaitsForTurns(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	in, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}, Loop: &control.LoopSpec{Promise: "DONE", Max: 3, Task: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	if l := loopOf(t, e, in.ID); !strings.Contains(l.Reason, "plain program") || !strings.Contains(l.Reason, "--kind") {
		t.Fatalf("loop of a plain program: reason %q, want it to say no turns are seen", l.Reason)
	}
	if !e.reportsTurns("claude", time.Time{}) || !e.reportsTurns("codex", time.Time{}) {
		t.Fatal("the claude and codex kinds wire hooks that end turns")
	}
	if e.reportsTurns("", time.Time{}) || e.reportsTurns("no-such-kind", time.Time{}) {
		t.Fatal("a program without a kind reports no turns")
	}
	if !e.reportsTurns("", time.Now()) {
		t.Fatal("an agent whose hooks were heard reports turns")
	}
}

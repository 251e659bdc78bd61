package orchestrator

import (
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

func TestFuseState(t *testing.T) {
	cfg := fusionConfig{StaleAfter: 60 * time.Second, IdleAfter: 5 * time.Second}
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	started := evidence{Kind: evStarted, Time: at(0)}
	hook := func(s int, state, why string) evidence {
		return evidence{Kind: evHook, Time: at(s), HookState: agentstate.State(state), Why: why, Source: "hook:claude"}
	}
	tests := []struct {
		name   string
		evs    []evidence
		state  agentstate.State
		source string
		why    string // substring
		check  func(t *testing.T, f fusion)
	}{
		{"process start means running", []evidence{started}, agentstate.Running, sourceProcess, "process started", nil},
		{"exit 0 is done", []evidence{started, {Kind: evExited, Time: at(3)}}, agentstate.Done, sourceProcess, "code 0", nil},
		{"non-zero exit is failed", []evidence{started, {Kind: evExited, Time: at(3), Code: 2}}, agentstate.Failed, sourceProcess, "exited with code 2", nil},
		{"signal exit is described", []evidence{started, {Kind: evExited, Time: at(3), Code: 137}}, agentstate.Failed, sourceProcess, "signal 9", nil},
		{"a kill by the user is killed", []evidence{started, {Kind: evExited, Time: at(3), Code: 129, Killed: true, Why: "closed by the user"}}, agentstate.Killed, sourceProcess, "closed by the user", nil},
		{"start failure is failed with the error", []evidence{{Kind: evStartFailed, Time: at(0), Why: "command not found: x"}}, agentstate.Failed, sourceProcess, "command not found: x", nil},
		{"nothing revives a finished agent", []evidence{started, {Kind: evExited, Time: at(1)}, hook(2, "running", "x"), {Kind: evActivity, Time: at(3)}, {Kind: evTerminal, Time: at(4)}}, agentstate.Done, sourceProcess, "code 0", nil},
		{"hook sets waiting with its why", []evidence{started, hook(1, "waiting", "permission: Bash")}, agentstate.Waiting, "hook:claude", "permission: Bash", nil},
		{"hook idle", []evidence{started, hook(1, "idle", "turn complete")}, agentstate.Idle, "hook:claude", "turn complete", nil},
		{"bell means waiting", []evidence{started, {Kind: evTerminal, Time: at(1), Why: "terminal bell"}}, agentstate.Waiting, sourceTerminal, "bell", nil},
		{"a fresh hook outranks the bell", []evidence{started, hook(1, "idle", "done"), {Kind: evTerminal, Time: at(2), Why: "terminal bell"}}, agentstate.Idle, "hook:claude", "done", nil},
		{"a stale hook yields to the bell", []evidence{started, hook(1, "running", "tool"), {Kind: evTerminal, Time: at(100), Why: "terminal bell"}}, agentstate.Waiting, sourceTerminal, "bell", nil},
		{"a later hook overrides the bell", []evidence{started, {Kind: evTerminal, Time: at(1)}, hook(2, "running", "prompt submitted")}, agentstate.Running, "hook:claude", "prompt submitted", nil},
		{"input answers a waiting agent", []evidence{started, hook(1, "waiting", "permission"), {Kind: evInput, Time: at(2), Answer: true}}, agentstate.Running, sourceInput, "user answered", nil},
		{"quiet right after an answer does not idle", []evidence{started, hook(1, "waiting", "permission"), {Kind: evInput, Time: at(30), Answer: true}, {Kind: evQuiet, Time: at(30)}}, agentstate.Running, sourceInput, "user answered", nil},
		{"quiet idles once running for idle_after", []evidence{started, hook(1, "waiting", "permission"), {Kind: evInput, Time: at(30), Answer: true}, {Kind: evQuiet, Time: at(35)}}, agentstate.Idle, sourceActivity, "no output", nil},
		{"moving in a menu answers nothing", []evidence{started, hook(1, "waiting", "permission"), {Kind: evInput, Time: at(2)}}, agentstate.Waiting, "hook:claude", "permission", nil},
		{"input to an idle agent changes nothing", []evidence{started, hook(1, "idle", "x"), {Kind: evInput, Time: at(2)}}, agentstate.Idle, "hook:claude", "x", nil},
		{"esc then Stop is labelled interrupted", []evidence{started, hook(1, "running", "tool"), {Kind: evInput, Time: at(2), Interrupt: true}, hook(3, "idle", "stop")}, agentstate.Idle, "hook:claude", "interrupted by user",
			func(t *testing.T, f fusion) {
				if !f.Interrupted {
					t.Error("not marked interrupted")
				}
			}},
		{"an interrupt is forgotten once running again", []evidence{started, {Kind: evInput, Time: at(2), Interrupt: true}, hook(3, "running", "prompt"), hook(4, "idle", "stop")}, agentstate.Idle, "hook:claude", "stop", nil},
		{"activity wakes an activity-idle agent", []evidence{started, {Kind: evQuiet, Time: at(6)}, {Kind: evActivity, Time: at(7)}}, agentstate.Running, sourceActivity, "output", nil},
		{"quiet makes a running agent idle", []evidence{started, {Kind: evQuiet, Time: at(6)}}, agentstate.Idle, sourceActivity, "no output for 5s", nil},
		{"activity does not override a fresh hook idle", []evidence{started, hook(1, "idle", "x"), {Kind: evActivity, Time: at(2)}}, agentstate.Idle, "hook:claude", "x", nil},
		{"activity does not override a fresh terminal wait", []evidence{started, {Kind: evTerminal, Time: at(1), Why: "terminal bell"}, {Kind: evActivity, Time: at(2)}}, agentstate.Waiting, sourceTerminal, "bell", nil},
		{"activity overrides a stale hook", []evidence{started, hook(1, "waiting", "x"), {Kind: evActivity, Time: at(62)}}, agentstate.Running, sourceActivity, "output", nil},
		{"quiet does not idle a fresh hook running", []evidence{started, hook(1, "running", "Bash"), {Kind: evQuiet, Time: at(10)}}, agentstate.Running, "hook:claude", "Bash", nil},
		{"quiet idles a stale hook running", []evidence{started, hook(1, "running", "Bash"), {Kind: evQuiet, Time: at(70)}}, agentstate.Idle, sourceActivity, "no output", nil},
		{"subagents are counted and never end the agent", []evidence{started, hook(1, "running", "x"),
			{Kind: evHook, Time: at(2), SubagentDelta: 1, HookState: "running"}, {Kind: evHook, Time: at(3), SubagentDelta: 1},
			{Kind: evHook, Time: at(4), SubagentDelta: -1, HookState: "idle"}}, agentstate.Running, sourceHook, "",
			func(t *testing.T, f fusion) {
				if f.Subagents != 1 {
					t.Errorf("subagents = %d, want 1", f.Subagents)
				}
			}},
		{"subagent count never goes negative", []evidence{started, {Kind: evHook, Time: at(1), SubagentDelta: -1}}, agentstate.Running, sourceProcess, "",
			func(t *testing.T, f fusion) {
				if f.Subagents != 0 {
					t.Errorf("subagents = %d", f.Subagents)
				}
			}},
		{"a status-only hook changes nothing", []evidence{started, {Kind: evHook, Time: at(1), Source: "hook:claude"}}, agentstate.Running, sourceProcess, "process started", nil},
		{"a hook cannot finish an agent", []evidence{started, hook(1, "done", "x")}, agentstate.Running, sourceProcess, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := fusion{State: agentstate.Pending, Source: sourceEngine, Since: t0, Confirmed: t0}
			for _, ev := range tc.evs {
				f = fuseState(f, ev, cfg)
			}
			if f.State != tc.state || f.Source != tc.source || !strings.Contains(f.Why, tc.why) {
				t.Fatalf("got %s/%s/%q, want %s/%s/%q", f.State, f.Source, f.Why, tc.state, tc.source, tc.why)
			}
			if tc.check != nil {
				tc.check(t, f)
			}
		})
	}
}

func TestFuseStateSinceAndConfirmed(t *testing.T) {
	cfg := fusionConfig{StaleAfter: time.Minute, IdleAfter: time.Second}
	f := fusion{State: agentstate.Pending}
	f = fuseState(f, evidence{Kind: evStarted, Time: t0}, cfg)
	f = fuseState(f, evidence{Kind: evHook, Time: t0.Add(time.Second), HookState: "running", Source: "hook:x"}, cfg)
	f = fuseState(f, evidence{Kind: evHook, Time: t0.Add(2 * time.Second), HookState: "running", Source: "hook:x"}, cfg)
	if !f.Since.Equal(t0) {
		t.Errorf("since = %v, want the first running time %v", f.Since, t0)
	}
	if !f.Confirmed.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("confirmed = %v", f.Confirmed)
	}
}

// TestAnswerKeys: the bytes agentgrid's key encoder writes for each key
// (normal and application cursor mode, the kitty keyboard protocol); only
// keys that can answer a prompt end a wait. The live suite saw Down in
// Claude Code's permission menu mark the agent running while the menu
// stayed on screen.
func TestAnswerKeys(t *testing.T) {
	answers := map[string]string{
		"Enter": "\r", "kitty Enter": "\x1b[13u", "Esc": "\x1b", "ctrl+c": "\x03",
		"1": "1", "y": "y", "n": "N", "a pasted line": "yes please\r",
	}
	moves := map[string]string{
		"Down": "\x1b[B", "Up": "\x1b[A", "app Down": "\x1bOB", "Right": "\x1b[C", "Tab": "\t",
		"shift+Tab": "\x1b[Z", "PageDown": "\x1b[6~", "focus in": "\x1b[I", "focus out": "\x1b[O",
		"SGR mouse": "\x1b[<0;10;5M", "space": " ", "half a word": "ye",
	}
	for name, b := range answers {
		if !isAnswerKey([]byte(b)) {
			t.Errorf("%s (%q) should answer a prompt", name, b)
		}
	}
	for name, b := range moves {
		if isAnswerKey([]byte(b)) {
			t.Errorf("%s (%q) should not answer a prompt", name, b)
		}
	}
}

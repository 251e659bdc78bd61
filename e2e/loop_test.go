package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// loopOf is the loop in `agentgrid list --json`.
type loopOf struct {
	Loop *struct {
		Iteration int    `json:"iteration"`
		Max       int    `json:"max"`
		Status    string `json:"status"`
		Reason    string `json:"reason"`
		Promise   string `json:"promise"`
	} `json:"loop"`
	ID string `json:"id"`
}

// TestLoopContinuesTwiceAndStopsOnThePromise: a scripted agent ends three
// turns with recorded Claude Code Stop payloads through `agentgrid hook
// claude`. The loop answers the first two with the continuation (the
// task's own <promise> text ends nothing) and the third, which carries the
// promise, with nothing: the loop succeeded at iteration 3, as list --json,
// explain and the pane's border say.
func TestLoopContinuesTwiceAndStopsOnThePromise(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"stop1.json", "stop2.json", "stop3.json", "agent.sh"} {
		b, err := os.ReadFile(filepath.Join("testdata", "loop", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, 160, 40, "")
	h.startSession("--", "sh")

	// No loop without a bound.
	if out, err := h.client("spawn", "--loop", "--promise", "DONE", "--task", "x", "--", "cat"); err == nil || !strings.Contains(err.Error(), "exit status 2") || !strings.Contains(err.Error(), "--max N is required") {
		t.Fatalf("spawn --loop without --max: %q, %v; want a usage error", out, err)
	}

	id := h.spawn("--title", "scripted", "--env", "AG="+binary, "--loop", "--promise", "DONE", "--max", "5",
		"--task", "port the parser; write <promise>DONE</promise> when it is done", "--", "sh", filepath.Join(dir, "agent.sh"), dir)
	h.waitFor(30*time.Second, func() bool {
		out, _ := h.client("capture", id)
		return strings.Contains(out, "script over")
	}, "the scripted agent's three turns")

	answer := func(n int) map[string]string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, "answer"+string(rune('0'+n))+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(b)) == "" {
			return nil
		}
		var m map[string]string
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("answer %d is not Claude Code's hook output: %q", n, b)
		}
		return m
	}
	for n, iter := range map[int]string{1: "iteration 2/5", 2: "iteration 3/5"} {
		a := answer(n)
		if a["decision"] != "block" || !strings.Contains(a["reason"], iter) || !strings.Contains(a["reason"], "port the parser") ||
			!strings.Contains(a["reason"], "<promise>DONE</promise>") {
			t.Errorf("Stop %d was answered %v, want a block carrying %s, the task and the promise's format", n, a, iter)
		}
	}
	if a := answer(3); a != nil {
		t.Errorf("the Stop with the promise was answered %v, want nothing (the turn ends)", a)
	}

	out := h.mustClient("list", "--json")
	var as []loopOf
	if err := json.Unmarshal([]byte(out), &as); err != nil {
		t.Fatal(err)
	}
	if len(as) != 1 || as[0].Loop == nil || as[0].Loop.Status != "succeeded" || as[0].Loop.Iteration != 3 || as[0].Loop.Max != 5 || as[0].Loop.Promise != "DONE" {
		t.Fatalf("list --json: %s", out)
	}
	if ex := h.mustClient("explain", id); !strings.Contains(ex, "loop 3/5 succeeded, promise DONE") || !strings.Contains(ex, "succeeded: the promise came in iteration 3") {
		t.Errorf("explain does not show the loop:\n%s", ex)
	}
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "loop 3/5 succeeded") }, "the loop in the pane's border")

	// A finished loop neither resumes nor stops; a new one needs a bound.
	if _, err := h.client("loop", "resume", id); err == nil || !strings.Contains(err.Error(), "no paused loop") {
		t.Errorf("loop resume of a finished loop: %v", err)
	}
	if _, err := h.client("loop", id, "--promise", "DONE"); err == nil || !strings.Contains(err.Error(), "exit status 2") {
		t.Errorf("loop without --max: %v", err)
	}
}

// TestLoopTypesContinuationsIntoACodexPane: a CLI whose Stop answer does not
// continue it (Codex) gets each continuation typed into its terminal once
// it is idle, as one line followed by Enter; the loop ends on the promise.
func TestLoopTypesContinuationsIntoACodexPane(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"codex_stop1.json", "codex_stop2.json", "codex_stop3.json", "codex_agent.sh"} {
		b, err := os.ReadFile(filepath.Join("testdata", "loop", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, 160, 40, "")
	h.startSession("--", "sh")
	id := h.spawn("--title", "codex-ish", "--env", "AG="+binary, "--loop", "--promise", "DONE", "--max", "3",
		"--task", "port the parser", "--", "sh", filepath.Join(dir, "codex_agent.sh"), dir)
	h.waitFor(60*time.Second, func() bool {
		out, _ := h.client("capture", id)
		return strings.Contains(out, "script over")
	}, "the scripted agent's three turns")
	b, err := os.ReadFile(filepath.Join(dir, "typed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("typed into the pane: %q, want two continuations", lines)
	}
	for i, iter := range []string{"[agentgrid loop: iteration 2/3] port the parser", "[agentgrid loop: iteration 3/3] port the parser"} {
		if !strings.HasPrefix(lines[i], iter) || !strings.Contains(lines[i], "<promise>DONE</promise>") {
			t.Errorf("continuation %d: %q, want %q ... and the promise's format on one line", i+1, lines[i], iter)
		}
	}
	var as []loopOf
	out := h.mustClient("list", "--json")
	if err := json.Unmarshal([]byte(out), &as); err != nil {
		t.Fatal(err)
	}
	if len(as) != 1 || as[0].Loop == nil || as[0].Loop.Status != "succeeded" || as[0].Loop.Iteration != 3 {
		t.Fatalf("list --json: %s", out)
	}
}

// TestLoopSurvivesADetach: a loop goes on while no client is attached, and
// a client that attaches later shows it in the pane's border.
func TestLoopSurvivesADetach(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 40, "")
	h.startSession("--", "sh")
	id := h.spawn("--title", "looping", "--loop", "--promise", "DONE", "--max", "5", "--task", "port the parser", "--", "cat")
	h.waitAgent(id, 10*time.Second, func(a agent) bool { return a.PID > 0 }, "the agent's process")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "loop 1/5") }, "the loop in the border")

	h.prefix("d")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "[detached from session "+h.session) }, "the detach")
	// A turn ends while nobody watches: the loop answers it.
	env := append(append([]string{}, h.env...), "AGENTGRID_SOCKET="+h.socketPath(), "AGENTGRID_AGENT_ID="+id)
	out, _, err := hookCmd(t, env, fixture(t, "stop.json"), "claude")
	if err != nil || !strings.Contains(out, `"decision":"block"`) || !strings.Contains(out, "iteration 2/5") {
		t.Fatalf("the Stop while detached was answered %q, %v", out, err)
	}

	w2 := h.newTerminal("w2", 120, 40)
	w2.run("agentgrid attach")
	w2.waitFor(func(s string) bool { return strings.Contains(s, "loop 2/5") && strings.Contains(s, "looping") },
		"the loop at iteration 2 in the attached client's border")
	var as []loopOf
	if err := json.Unmarshal([]byte(h.mustClient("list", "--json")), &as); err != nil || len(as) != 1 || as[0].Loop == nil ||
		as[0].Loop.Iteration != 2 || as[0].Loop.Status != "running" {
		t.Fatalf("list --json after the attach: %+v, %v", as, err)
	}
}

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// agentgrid wait --until turn returns when the child's Stop arrives with
// output, and not for a session that only started.
func TestWaitUntilTurnReturnsOnStopWithOutput(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 160, 40, "")
	h.startSession("--", "sh")
	id := h.spawn("--title", "child", "--", "cat")
	h.waitAgent(id, 10*time.Second, func(a agent) bool { return a.PID > 0 }, "the agent started")
	env := append(append([]string{}, h.env...), "AGENTGRID_SOCKET="+h.socketPath(), "AGENTGRID_AGENT_ID="+id)
	hook := func(name string) {
		t.Helper()
		if out, _, err := hookCmd(t, env, fixture(t, name), "claude"); err != nil || out != "" {
			t.Fatalf("agentgrid hook claude < %s: %q, %v", name, out, err)
		}
	}

	// Only a session start: no turn finished, so the wait times out (124).
	hook("session_start.json")
	h.waitAgent(id, 15*time.Second, func(a agent) bool { return a.State == "idle" }, "idle after the session start")
	out, err := h.client("wait", id, "--until", "turn", "--timeout", "1s")
	if err == nil || !strings.Contains(err.Error(), "exit status 124") || !strings.Contains(err.Error(), "before --until turn") {
		t.Fatalf("wait --until turn after only a session start: %q, %v; want a timeout (124)", out, err)
	}

	// The prompt arrives (once: the harness's hook budget is not missed),
	// then wait starts, then the Stop.
	hook("user_prompt_submit.json")
	h.waitAgent(id, 15*time.Second, func(a agent) bool { return a.State == "running" }, "the agent running after its prompt")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "wait", id, "--until", "turn", "--json")
	cmd.Env = append(append([]string{}, h.env...), "AGENTGRID_SOCKET="+h.socketPath())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		t.Fatalf("wait --until turn returned before the Stop: %v %s %s", err, stdout.String(), stderr.String())
	case <-time.After(500 * time.Millisecond): // a check that it waits, not synchronisation
	}
	// One Stop, sent once: the hook waits for the session's answer (the
	// harness's budget), so by the time it returns the turn has ended. A
	// loop that sent the Stop again until wait returned would hide a lost
	// or ignored first Stop.
	hook("stop.json")
	var werr error
	select {
	case werr = <-waited:
	case <-time.After(30 * time.Second):
		a, _ := h.agent(id)
		cancel()
		<-waited // stderr is the wait's until it ended
		t.Fatalf("wait --until turn still waits 30s after the Stop was answered (agent %s: %s, %s); stderr: %s", id, a.State, a.Why, stderr.String())
	}
	if werr != nil {
		t.Fatalf("wait --until turn: %v: %s", werr, stderr.String())
	}
	var res struct {
		Agents []struct {
			ID       string `json:"id"`
			Turns    int    `json:"turns"`
			LastTurn string `json:"last_turn"`
		} `json:"agents"`
		TimedOut bool `json:"timed_out"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("wait --json printed %q: %v", stdout.String(), err)
	}
	if res.TimedOut || len(res.Agents) != 1 || res.Agents[0].Turns != 1 || !strings.HasPrefix(res.Agents[0].LastTurn, "All 42 tests pass now.") {
		t.Errorf("wait --until turn --json = %+v, want one turn with the Stop's first line", res)
	}
}

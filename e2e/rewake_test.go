package e2e

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRewakeHookOfTheBinary runs the real `agentgrid hook claude --rewake`
// as Claude Code's generated settings do at the end of main's turn: it
// waits while main's child runs, and when the child is closed it prints the
// notice on stderr and exits 2 (which wakes Claude Code's model), nothing on
// stdout; main's next hook then carries nothing.
func TestRewakeHookOfTheBinary(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 160, 40, "[orchestrator]\nkind = \"orch\"\n\n[kinds.orch]\ncommand = [\"sh\"]\nhooks = \"opencode\"\n")
	h.startSession("--", "sh")
	h.typeText("agentgrid spawn --title kid -- cat")
	h.keys("Enter")
	h.waitFor(20*time.Second, func() bool {
		// Started: cat is quiet, so it may count as idle already.
		a, ok := h.agent("a1")
		return ok && a.PID > 0 && slices.Contains(liveStates, a.State)
	}, "main's child to run")

	env := append(append([]string{}, h.env...), "AGENTGRID_SOCKET="+h.socketPath(), "AGENTGRID_AGENT_ID=main")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "hook", "claude", "--rewake")
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(fixture(t, "stop.json"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.waitFor(20*time.Second, func() bool {
		out, _ := h.client("explain", "main")
		return strings.Contains(out, "a rewake hook waits")
	}, "the rewake hook waiting for main's children")
	h.mustClient("close", "a1")
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("agentgrid hook claude --rewake ended with %v, want exit status 2; stderr %q", err, stderr.String())
	}
	if stderr.String() != "agentgrid: a1 was closed\n" || stdout.Len() != 0 {
		t.Errorf("it printed %q on stderr and %q on stdout, want the notice on stderr only", stderr.String(), stdout.String())
	}
	if out, _, err := hookCmd(t, env, fixture(t, "user_prompt_submit.json"), "claude"); err != nil || out != "" {
		t.Errorf("main's next UserPromptSubmit printed %q, %v; want nothing: the rewake hook delivered the notice", out, err)
	}
}

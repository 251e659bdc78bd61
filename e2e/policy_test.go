package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const policyConfig = `
[[policies]]
name = "protect-secrets"
on = "pre_tool"
tools = ["Edit", "Write", "Bash"]
paths = ["secrets/**", ".env"]
action = "block"
message = "secrets/ and .env are off limits; ask the user"

[[policies]]
use = "delegation_nudge"
`

// ask runs `agentgrid hook claude` with a fixture and returns what it
// printed, which must be something: the harness gives the hook a budget
// (hookBudget) no live session misses, so one call is enough.
func ask(t *testing.T, h *harness, env []string, fixtureName string) string {
	t.Helper()
	out, took, err := hookCmd(t, env, fixture(t, fixtureName), "claude")
	if err != nil {
		t.Fatalf("agentgrid hook claude < %s: %v", fixtureName, err)
	}
	if out == "" {
		logged, _ := os.ReadFile(filepath.Join(h.home, ".state", "agentgrid", "agentgrid.log"))
		t.Fatalf("agentgrid hook claude < %s printed nothing (in %v); agentgrid.log:\n%s", fixtureName, took, logged)
	}
	t.Logf("agentgrid hook claude < %s answered in %v", fixtureName, took)
	return out
}

func TestPolicyBlockAnswersClaudePreToolUse(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 160, 40, policyConfig)
	h.startSession("--", "sh")
	id := h.spawn("--title", "claude-ish", "--", "cat")
	h.waitAgent(id, 10*time.Second, func(a agent) bool { return a.PID > 0 }, "the agent started")
	env := append(append([]string{}, h.env...), "AGENTGRID_SOCKET="+h.socketPath(), "AGENTGRID_AGENT_ID="+id)

	out := ask(t, h, env, "pre_tool_use_write_env.json")
	var got struct {
		HookSpecificOutput map[string]string `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("the hook printed %q, not JSON: %v", out, err)
	}
	want := map[string]string{"hookEventName": "PreToolUse", "permissionDecision": "deny",
		"permissionDecisionReason": "secrets/ and .env are off limits; ask the user"}
	for k, v := range want {
		if got.HookSpecificOutput[k] != v {
			t.Errorf("hookSpecificOutput.%s = %q, want %q (printed %s)", k, got.HookSpecificOutput[k], v, out)
		}
	}

	// An edit of another file: nothing printed, and the state still arrives.
	out, _, err := hookCmd(t, env, fixture(t, "pre_tool_use_edit.json"), "claude")
	if err != nil || out != "" {
		t.Errorf("agentgrid hook claude < pre_tool_use_edit.json: stdout %q, %v; want nothing", out, err)
	}
	h.waitFor(15*time.Second, func() bool { return strings.Contains(statusLine(h.capture()), id+": Edit: layout/layout.go") },
		"the PreToolUse status of the allowed edit in the status line")

	ex := h.mustClient("explain", id)
	if !strings.Contains(ex, "block at pre_tool") || !strings.Contains(ex, "protect-secrets") || !strings.Contains(ex, "off limits") {
		t.Errorf("agentgrid explain %s does not record the block with its policy and reason:\n%s", id, ex)
	}
}

func TestDelegationNudgeReachesMainOnly(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 160, 40, policyConfig)
	h.startSession("--", "sh")
	id := h.spawn("--title", "worker", "--", "cat")
	h.waitAgent(id, 10*time.Second, func(a agent) bool { return a.PID > 0 }, "the agent started")
	envOf := func(agent string) []string {
		return append(append([]string{}, h.env...), "AGENTGRID_SOCKET="+h.socketPath(), "AGENTGRID_AGENT_ID="+agent)
	}
	// File work in both; a PostToolUse has nothing to answer yet.
	for _, a := range []string{"main", id} {
		for _, f := range []string{"post_tool_use_read.json", "post_tool_use_read.json", "post_tool_use.json"} {
			if out, _, err := hookCmd(t, envOf(a), fixture(t, f), "claude"); err != nil || out != "" {
				t.Fatalf("agentgrid hook claude < %s as %s: stdout %q, %v", f, a, out, err)
			}
		}
	}
	// The background agent's prompt carries nothing. Its file work was sent
	// before, on the same socket, so its mark would be there by now.
	if out, _, err := hookCmd(t, envOf(id), fixture(t, "user_prompt_submit.json"), "claude"); err != nil || out != "" {
		t.Errorf("the worker's UserPromptSubmit printed %q, %v; want nothing", out, err)
	}
	out := ask(t, h, envOf("main"), "user_prompt_submit.json")
	if !strings.Contains(out, `"hookEventName":"UserPromptSubmit"`) || !strings.Contains(out, "additionalContext") || !strings.Contains(out, "background agent") {
		t.Errorf("main's UserPromptSubmit printed %s; want the reminder as additional context", out)
	}
	// One reminder: the next prompt carries none.
	if out, _, err := hookCmd(t, envOf("main"), fixture(t, "user_prompt_submit.json"), "claude"); err != nil || out != "" {
		t.Errorf("main's second UserPromptSubmit printed %q, %v; want nothing", out, err)
	}
}

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A child the main view started exits; the status line counts the notice
// (a main view without hooks or MCP would collect none),
// main's next UserPromptSubmit carries it as additional context (once),
// and the MCP tool agent_events returns it and long-polls for the next.
func TestNoticesReachTheMainView(t *testing.T) {
	t.Parallel()
	// The main view's kind wires hooks (OpenCode's wiring leaves sh's argv
	// alone), so it hears about its children; this test plays its hooks.
	h := newHarness(t, 160, 40, "[orchestrator]\nkind = \"orch\"\n\n[kinds.orch]\ncommand = [\"sh\"]\nhooks = \"opencode\"\n")
	h.startSession("--", "sh")
	h.typeText("agentgrid spawn --title kid -- sh -c 'exit 3'")
	h.keys("Enter")
	h.waitFor(20*time.Second, func() bool {
		a, ok := h.agent("a1")
		return ok && a.State == "failed"
	}, "the main view's child to fail")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(statusLine(h.capture()), "1 notice for main") },
		"the undelivered notice in the status line")

	env := append(append([]string{}, h.env...), "AGENTGRID_SOCKET="+h.socketPath(), "AGENTGRID_AGENT_ID=main")
	out := ask(t, h, env, "user_prompt_submit.json")
	var got struct {
		HookSpecificOutput map[string]string `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("the hook printed %q: %v", out, err)
	}
	if c := got.HookSpecificOutput["additionalContext"]; !strings.Contains(c, "a1 failed (exit 3)") {
		t.Errorf("main's UserPromptSubmit context is %q, want the child's exit", c)
	}
	if out, _, err := hookCmd(t, env, fixture(t, "user_prompt_submit.json"), "claude"); err != nil || out != "" {
		t.Errorf("the next UserPromptSubmit printed %q, %v; want nothing: a notice is delivered once", out, err)
	}
	h.waitFor(10*time.Second, func() bool { return !strings.Contains(statusLine(h.capture()), "notice") },
		"the status line without notices once delivered")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := h.mcpClient(ctx)
	type events struct {
		Events []struct {
			Agent, Event, Text string
			Seq                int64
		}
		Cursor int64
	}
	call := func(args map[string]any) events {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "agent_events", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("agent_events %v: %v %s", args, err, mcpText(res))
		}
		var ev events
		if err := json.Unmarshal([]byte(mcpText(res)), &ev); err != nil {
			t.Fatalf("agent_events printed %s: %v", mcpText(res), err)
		}
		return ev
	}
	// The hook delivered a1's exit: agent_events does not repeat it, and
	// its cursor goes past it.
	first := call(map[string]any{})
	if len(first.Events) != 0 || first.Cursor != 1 {
		t.Fatalf("agent_events from the start, after the hook delivered the only notice: %+v, want none and cursor 1", first)
	}
	// The next one arrives while the call waits.
	waited := make(chan events, 1)
	go func() { waited <- call(map[string]any{"cursor": first.Cursor, "timeout_seconds": 40}) }()
	h.typeText("agentgrid spawn --title kid2 -- true")
	h.keys("Enter")
	ev := <-waited
	if len(ev.Events) != 1 || ev.Events[0].Agent != "a2" || ev.Events[0].Text != "a2 finished (exit 0)" || ev.Cursor <= first.Cursor {
		t.Errorf("agent_events after the cursor: %+v", ev)
	}
}

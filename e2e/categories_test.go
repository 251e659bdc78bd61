package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// catAgent is what list --json says of an agent's category.
type catAgent struct {
	ID          string   `json:"id"`
	PID         int      `json:"pid"`
	State       string   `json:"state"`
	Kind        string   `json:"kind"`
	Category    string   `json:"category"`
	Model       string   `json:"model"`
	Provider    string   `json:"provider"`
	Argv        []string `json:"argv"`
	QueueReason string   `json:"queue_reason"`
}

func (h *harness) catAgent(id string) catAgent {
	h.t.Helper()
	var as []catAgent
	if err := json.Unmarshal([]byte(h.mustClient("list", "--json")), &as); err != nil {
		h.t.Fatal(err)
	}
	for _, a := range as {
		if a.ID == id {
			return a
		}
	}
	h.t.Fatalf("no agent %s in list --json", id)
	return catAgent{}
}

// started reports whether the agent's process runs: it has a pid and a live
// state. Not "running" alone: a program that prints nothing more turns idle
// after agents.idle_after (5 s), which a loaded machine can reach before
// the next look.
func (a catAgent) started() bool { return a.PID > 0 && slices.Contains(liveStates, a.State) }

// TestCategoriesEndToEnd: spawn --category runs the category's kind with
// its model and prompt prefix; a category whose command does not exist
// falls back to the next one under the same id, which then waits for its
// model's limit, named in its reason; agentgrid kinds and the MCP tools
// list_kinds and spawn_agent(category) see the same.
func TestCategoriesEndToEnd(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	claude := filepath.Join(bin, "claude")
	if err := os.WriteFile(claude, []byte("#!/bin/sh\nfor a in \"$@\"; do printf '>%s<\\n' \"$a\"; done\nexec cat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, 200, 50, `
[kinds.cl]
command = ["`+claude+`"]
prompt_args = ["{prompt}"]
description = "a scripted claude"

[kinds.gone]
command = ["`+filepath.Join(bin, "missing", "claude")+`"]
prompt_args = ["{prompt}"]

[categories.quick]
description = "small, well-defined changes"
kind = "cl"
model = "claude-haiku-4-5"
prompt_prefix = "Small change. "

[categories.first]
kind = "gone"
model = "claude-opus-4-5"
fallback = ["quick"]

[limits.models]
"claude-haiku-4-5" = 1
`)
	h.startSession("--", "sh")

	q := h.spawn("--category", "quick", "--prompt", "fix the typo")
	h.waitFor(20*time.Second, func() bool { return h.catAgent(q).started() }, q+" to run")
	a := h.catAgent(q)
	want := []string{claude, "--model", "claude-haiku-4-5", "Small change. fix the typo"}
	if !slices.Equal(a.Argv, want) || a.Kind != "cl" || a.Category != "quick" || a.Model != "claude-haiku-4-5" || a.Provider != "anthropic" {
		t.Fatalf("list --json: %+v\nwant argv %q", a, want)
	}
	h.waitFor(10*time.Second, func() bool {
		out, _ := h.client("capture", q)
		return strings.Contains(out, ">--model<\n>claude-haiku-4-5<")
	}, "the model among the program's arguments")

	f := h.spawn("--category", "first", "--prompt", "go")
	h.waitFor(20*time.Second, func() bool { return h.catAgent(f).Kind == "cl" }, f+" to fall back")
	a = h.catAgent(f)
	if a.State != "pending" || a.QueueReason != "waiting for a slot: model claude-haiku-4-5 1/1 (limits.models.claude-haiku-4-5 = 1)" {
		t.Fatalf("the fallback does not wait for its model's limit: %+v", a)
	}
	ex := h.mustClient("explain", f)
	if !strings.Contains(ex, "category first → gone, model claude-opus-4-5; fell back to category quick → cl, model claude-haiku-4-5: could not start:") {
		t.Errorf("explain lacks the resolution:\n%s", ex)
	}

	var kinds struct {
		Kinds []struct {
			Name            string
			Running, Queued int
			Limits          []struct {
				Name      string
				Used, Max int
			}
		}
	}
	if err := json.Unmarshal([]byte(h.mustClient("kinds", "--json")), &kinds); err != nil {
		t.Fatal(err)
	}
	for _, k := range kinds.Kinds {
		if k.Name == "quick" && (k.Running != 1 || len(k.Limits) != 1 || k.Limits[0].Used != 1 || k.Limits[0].Max != 1) {
			t.Errorf("kinds: quick = %+v", k)
		}
		if k.Name == "first" && k.Queued != 1 {
			t.Errorf("kinds: first = %+v", k)
		}
	}

	// The orchestrating model's view, through agentgrid mcp.
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cs := h.mcpClient(ctx)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_kinds", Arguments: map[string]any{}})
	if err != nil || res.IsError || !strings.Contains(mcpText(res), `"small, well-defined changes"`) || !strings.Contains(mcpText(res), `"limits.models.claude-haiku-4-5"`) {
		t.Fatalf("list_kinds: %v %s", err, mcpText(res))
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "spawn_agent", Arguments: map[string]any{"category": "quick", "prompt": "more"}})
	if err != nil || res.IsError || !strings.Contains(mcpText(res), `"category": "quick"`) {
		t.Fatalf("spawn_agent(category): %v %s", err, mcpText(res))
	}

	// Closing the haiku agent hands its slot to the fallback, in order.
	h.mustClient("close", q)
	h.waitFor(20*time.Second, func() bool { return h.catAgent(f).started() }, f+" to start")
	if a := h.catAgent(f); !slices.Equal(a.Argv, []string{claude, "--model", "claude-haiku-4-5", "Small change. go"}) {
		t.Errorf("the fallback's argv = %q", a.Argv)
	}
}

// TestCategoryFallsBackOnClaudesRateLimitHook: a Claude-like agent whose
// hook reports StopFailure with a rate limit (the recorded payload, through
// the real `agentgrid hook claude`) is ended and its category falls back.
func TestCategoryFallsBackOnClaudesRateLimitHook(t *testing.T) {
	t.Parallel()
	payload, err := filepath.Abs(filepath.Join("..", "internal", "agentcli", "claude", "testdata", "stop_failure_rate_limit.json"))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	claude := filepath.Join(bin, "claude")
	// The hook answers within its budget or gives up (it never slows an
	// agent), so the scripted CLI reports its failure until it is ended.
	script := "#!/bin/sh\necho limited\nwhile :; do agentgrid hook claude < '" + payload + "'; sleep 0.2; done\n"
	if err := os.WriteFile(claude, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, 200, 50, `
[kinds.cl]
command = ["`+claude+`"]

[kinds.ok]
command = ["cat"]

[categories.quick]
kind = "cl"
model = "claude-haiku-4-5"
fallback = ["ok"]
`)
	h.startSession("--", "sh")
	id := h.spawn("--category", "quick")
	h.waitFor(30*time.Second, func() bool {
		a := h.catAgent(id)
		return a.Kind == "ok" && a.started()
	}, id+" to fall back to ok")
	ex := h.mustClient("explain", id)
	if !strings.Contains(ex, "the CLI reported rate_limit; ending it to move on; fell back to ok: rate_limit") {
		t.Errorf("explain lacks the hook's rate limit and the fallback:\n%s", ex)
	}
}

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSpawnKindWithModel: agentgrid spawn --kind K --model M and the MCP
// spawn_agent(kind, model) run the kind's CLI with the model as its own
// argument, the pane's border names the model, and a model that begins
// with "-" or a --model without --kind is refused with one sentence.
func TestSpawnKindWithModel(t *testing.T) {
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
`)
	h.startSession("--", "sh")

	id := h.spawn("--kind", "cl", "--model", "opus", "--title", "rev", "--prompt", "review it")
	h.waitFor(20*time.Second, func() bool { return h.catAgent(id).started() }, id+" to run")
	if a := h.catAgent(id); !slices.Equal(a.Argv, []string{claude, "--model", "opus", "review it"}) || a.Model != "opus" || a.Provider != "anthropic" {
		t.Fatalf("list --json: %+v", a)
	}
	h.waitFor(10*time.Second, func() bool {
		out, _ := h.client("capture", id)
		return strings.Contains(out, ">--model<\n>opus<\n>review it<")
	}, "the model among the program's arguments")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "rev [opus]") }, "the model on the pane's border")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--kind", "cl", "--model", "-p"}, `agentgrid: spawn: cannot start kind cl with model "-p": begins with "-", which the CLI would read as a flag`},
		{[]string{"--model", "opus", "--", "sh"}, "agentgrid: --model needs --kind"},
	} {
		out, err := h.client(append([]string{"spawn"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("spawn %q: %q, %v; want the error %q", c.args, out, err, c.want)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cs := h.mcpClient(ctx)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spawn_agent", Arguments: map[string]any{"kind": "cl", "model": "sonnet", "prompt": "go"}})
	if err != nil || res.IsError || !strings.Contains(mcpText(res), `"model": "sonnet"`) {
		t.Fatalf("spawn_agent(kind, model): %v %s", err, mcpText(res))
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "spawn_agent", Arguments: map[string]any{"kind": "cl", "model": "--yolo"}})
	if err != nil || !res.IsError || !strings.Contains(mcpText(res), `begins with "-"`) {
		t.Fatalf("spawn_agent(model --yolo): %v %s", err, mcpText(res))
	}
}

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestKindMCPToolsLimitAWorker: a kind with mcp_tools = ["list_agents"]
// may list but not spawn: agentgrid's own command inside the pane is
// refused with the limit named, and the MCP server acting with the agent's
// secret offers only list_agents.
func TestKindMCPToolsLimitAWorker(t *testing.T) {
	t.Parallel()
	tokDir := t.TempDir()
	tokFile := filepath.Join(tokDir, "token")
	h := newHarness(t, 160, 50, `
[kinds.worker]
command = ["sh"]
mcp_tools = ["list_agents"]
`)
	h.startSession("--", "sh")
	script := `agentgrid spawn -- true; echo "spawn=$?"
agentgrid list >/dev/null; echo "list=$?"
printf %s "$AGENTGRID_TOKEN" > ` + tokFile + `
echo done; sleep 1000`
	w := h.spawn("--kind", "worker", "--title", "worker", "--", "sh", "-c", script)
	var out string
	h.waitFor(20*time.Second, func() bool {
		out, _ = h.client("capture", w)
		return strings.Contains(out, "done")
	}, "the worker's script to finish")
	for _, want := range []string{"spawn=1", "list=0", "may not use spawn_agent", "mcp_tools"} {
		if !strings.Contains(strings.ReplaceAll(out, "\n", ""), want) {
			t.Errorf("the worker's screen lacks %q:\n%s", want, out)
		}
	}

	tok, err := os.ReadFile(tokFile)
	if err != nil || len(tok) == 0 {
		t.Fatalf("the worker's token: %q, %v", tok, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cs := h.mcpClient(ctx, "AGENTGRID_TOKEN="+string(tok))
	// The MCP server lists only the worker's tools; the session refuses the
	// others whoever calls (agentgrid spawn above).
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "list_agents" {
		t.Errorf("the worker's MCP server lists %v, want only list_agents", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spawn_agent", Arguments: map[string]any{"argv": []string{"true"}}})
	if err == nil && !res.IsError {
		t.Errorf("spawn_agent as the worker succeeded: %s", mcpText(res))
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_agents", Arguments: map[string]any{}})
	if err != nil || res.IsError || !strings.Contains(mcpText(res), w) {
		t.Errorf("list_agents as the worker: %v %s", err, mcpText(res))
	}
	if as, _ := h.list(); len(as) != 1 {
		t.Errorf("%d agents after the refused spawns, want the worker alone: %+v", len(as), as)
	}
}

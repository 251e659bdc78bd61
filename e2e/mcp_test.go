package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpText joins the text parts of a tool result.
func mcpText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// mcpClient connects an MCP client to `agentgrid mcp` run against the
// harness's session, with env added to its environment (a token, say); it
// is closed when the test ends.
func (h *harness) mcpClient(ctx context.Context, env ...string) *mcp.ClientSession {
	h.t.Helper()
	cmd := exec.Command(binary, "mcp")
	cmd.Env = append(append(append([]string{}, h.env...), "AGENTGRID_SOCKET="+h.socketPath()), env...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agentgrid-e2e", Version: "1.0.0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		h.t.Fatalf("connect an MCP client to agentgrid mcp: %v", err)
	}
	h.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func TestMCPClientDrivesSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 200, 50, "")
	h.startSession("--", "sh")

	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cs := h.mcpClient(ctx)

	call := func(name string, args any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError {
			t.Fatalf("%s answered a tool error: %s", name, mcpText(res))
		}
		return res
	}

	// The tools and their annotations.
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tl := range tools.Tools {
		byName[tl.Name] = tl
	}
	for _, name := range []string{"spawn_agent", "list_agents", "read_agent_output", "send_to_agent", "wait_agent", "close_agent", "set_status"} {
		if byName[name] == nil {
			t.Errorf("tools/list lacks %s", name)
		}
	}
	for _, name := range []string{"list_agents", "read_agent_output", "wait_agent"} {
		if tl := byName[name]; tl != nil && (tl.Annotations == nil || !tl.Annotations.ReadOnlyHint) {
			t.Errorf("%s is not annotated read-only: %+v", name, tl.Annotations)
		}
	}
	for _, name := range []string{"spawn_agent", "send_to_agent", "close_agent", "set_status"} {
		if tl := byName[name]; tl != nil && tl.Annotations != nil && tl.Annotations.ReadOnlyHint {
			t.Errorf("%s changes the session but is annotated read-only", name)
		}
	}
	if tl := byName["close_agent"]; tl != nil && (tl.Annotations == nil || tl.Annotations.DestructiveHint == nil || !*tl.Annotations.DestructiveHint) {
		t.Errorf("close_agent is not annotated destructive: %+v", tl.Annotations)
	}
	if t.Failed() {
		t.FailNow()
	}

	// spawn_agent: the agent appears in list_agents and in the grid.
	res := call("spawn_agent", map[string]any{"title": "mcp-agent", "argv": []string{"sh", "-c", "echo mcp-hello-$((6*7)); sleep 30"}})
	var spawned struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(mcpText(res)), &spawned); err != nil || spawned.ID == "" {
		t.Fatalf("spawn_agent answered %q, want JSON with the agent id (%v)", mcpText(res), err)
	}
	id := spawned.ID

	var listed struct {
		Agents []struct {
			ID, Title, State string
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(mcpText(call("list_agents", map[string]any{}))), &listed); err != nil {
		t.Fatalf("list_agents answered something that is not JSON: %v", err)
	}
	if !slices.ContainsFunc(listed.Agents, func(a struct{ ID, Title, State string }) bool {
		return a.ID == id && a.Title == "mcp-agent"
	}) {
		t.Errorf("list_agents does not show %s mcp-agent: %+v", id, listed.Agents)
	}
	h.waitFor(10*time.Second, func() bool {
		s := h.capture()
		return strings.Contains(s, "mcp-agent") && strings.Contains(s, "mcp-hello-42")
	}, "the MCP-spawned agent's pane with its output in the grid")

	// read_agent_output sees what the agent printed.
	var text string
	waitFor(t, 10*time.Second, func() bool {
		text = mcpText(call("read_agent_output", map[string]any{"id": id}))
		return strings.Contains(text, "mcp-hello-42")
	}, "read_agent_output to return the agent's output", func() string { return text })

	// wait_agent on a running agent returns in time with finished false.
	var waited struct {
		Finished bool `json:"finished"`
	}
	if err := json.Unmarshal([]byte(mcpText(call("wait_agent", map[string]any{"ids": []string{id}, "timeout_seconds": 0.2}))), &waited); err != nil {
		t.Errorf("wait_agent answered something that is not JSON: %v", err)
	} else if waited.Finished {
		t.Errorf("wait_agent says %s finished while it sleeps", id)
	}

	// wait_agent on an agent that ends returns finished with its exit code.
	res = call("spawn_agent", map[string]any{"title": "mcp-quick", "argv": []string{"sh", "-c", "echo quick; exit 4"}})
	var quick struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(mcpText(res)), &quick); err != nil || quick.ID == "" {
		t.Fatalf("spawn_agent answered %q, want JSON with the agent id (%v)", mcpText(res), err)
	}
	var done struct {
		Finished bool `json:"finished"`
		Agents   []struct {
			ID       string `json:"id"`
			State    string `json:"state"`
			ExitCode *int   `json:"exit_code"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(mcpText(call("wait_agent", map[string]any{"ids": []string{quick.ID}, "timeout_seconds": 20}))), &done); err != nil {
		t.Errorf("wait_agent answered something that is not JSON: %v", err)
	} else if !done.Finished || len(done.Agents) != 1 || done.Agents[0].ExitCode == nil || *done.Agents[0].ExitCode != 4 {
		t.Errorf("wait_agent for %s = %+v, want finished with exit code 4", quick.ID, done)
	}

	// Malformed inputs get tool errors, and the server keeps serving.
	bad := []struct {
		name string
		args any
	}{
		{"read_agent_output", map[string]any{"id": 42}},                        // wrong type
		{"read_agent_output", map[string]any{}},                                // missing required id
		{"close_agent", map[string]any{"id": ""}},                              // below minLength
		{"spawn_agent", map[string]any{"argv": "sh -c true"}},                  // string, not array
		{"wait_agent", map[string]any{"ids": []string{id}, "x": true}},         // unknown property
		{"send_to_agent", map[string]any{"id": "no-such-agent", "text": "hi"}}, // valid shape, unknown agent
	}
	for _, b := range bad {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: b.name, Arguments: b.args})
		switch {
		case err != nil:
			t.Logf("%s(%v): JSON-RPC error: %v", b.name, b.args, err)
		case res == nil || !res.IsError:
			t.Errorf("%s(%v) succeeded, want a tool error: %s", b.name, b.args, mcpText(res))
		default:
			t.Logf("%s(%v): tool error: %s", b.name, b.args, mcpText(res))
		}
	}

	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}}); err == nil {
		t.Error("calling an unknown tool succeeded, want a JSON-RPC error")
	}

	// close_agent stops it; the session and the server still answer.
	call("close_agent", map[string]any{"id": id})
	h.waitFor(10*time.Second, func() bool {
		a, ok := h.agent(id)
		return !ok || a.State == "killed" || a.State == "done" || a.State == "failed"
	}, "the closed agent to stop")
	h.waitFor(10*time.Second, func() bool { return !strings.Contains(h.capture(), "mcp-agent") },
		"the closed agent's pane to leave the grid")
	call("set_status", map[string]any{"key": "mcp", "text": "from-mcp"})
	h.waitFor(10*time.Second, func() bool { return strings.Contains(statusLine(h.capture()), "from-mcp") },
		"set_status from MCP in the status line")
	if _, err := h.client("list"); err != nil {
		t.Errorf("the session stopped answering after the MCP calls: %v", err)
	}
}

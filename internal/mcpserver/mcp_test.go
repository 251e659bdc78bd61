package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpBackend is a small in-memory session behind a real control socket, so
// the MCP tools are tested through the same client `agentgrid mcp` uses.
type mcpBackend struct {
	mu      sync.Mutex
	agents  map[string]control.AgentInfo
	order   []string
	changed chan struct{} // closed and replaced on every change
	status  *hooks.StatusStore
	sent    map[string][]byte
	closed  []string
}

func newMCPBackend() *mcpBackend {
	return &mcpBackend{agents: map[string]control.AgentInfo{}, changed: make(chan struct{}), status: hooks.NewStatusStore(nil), sent: map[string][]byte{}}
}

func (b *mcpBackend) pokeLocked() { close(b.changed); b.changed = make(chan struct{}) }

func (b *mcpBackend) finish(id string, code int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.agents[id]
	a.State, a.ExitCode = agentstate.Done, &code
	if code != 0 {
		a.State = agentstate.Failed
	}
	b.agents[id] = a
	b.pokeLocked()
}

func (b *mcpBackend) Spawn(req control.SpawnRequest) (control.AgentInfo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(req.Argv) > 0 && req.Argv[0] == "full" {
		return control.AgentInfo{}, fmt.Errorf("the queue is full (100 agents waiting); close some agents or raise agents.max_queued")
	}
	now := time.Now()
	a := control.AgentInfo{ID: fmt.Sprintf("a%d", len(b.order)+1), Title: req.Title, Kind: req.Kind, Category: req.Category, Argv: req.Argv,
		State: agentstate.Running, Since: now, Created: now, Visible: true}
	if req.Worktree != nil {
		a.Worktree, a.Branch = "/repo/.agentgrid/worktrees/"+req.Worktree.Name, "agentgrid/"+req.Worktree.Name
	}
	b.agents[a.ID] = a
	b.order = append(b.order, a.ID)
	b.pokeLocked()
	return a, nil
}

func (b *mcpBackend) Close(id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.agents[id]
	if !ok {
		return fmt.Errorf("no agent with id %q", id)
	}
	a.State = agentstate.Killed
	b.agents[id] = a
	b.closed = append(b.closed, id)
	b.pokeLocked()
	return nil
}

func (b *mcpBackend) Send(id string, data []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.agents[id]; !ok {
		return fmt.Errorf("no agent with id %q", id)
	}
	b.sent[id] = append(b.sent[id], data...)
	return nil
}

func (b *mcpBackend) List() []control.AgentInfo {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []control.AgentInfo
	for _, id := range b.order {
		out = append(out, b.agents[id])
	}
	return out
}

func (b *mcpBackend) Agent(id string) (control.AgentInfo, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.agents[id]
	return a, ok
}

func (b *mcpBackend) Capture(id string, escapes bool, scrollback int) (string, error) {
	if _, ok := b.Agent(id); !ok {
		return "", fmt.Errorf("no agent with id %q", id)
	}
	return fmt.Sprintf("screen of %s\nscrollback=%d", id, scrollback), nil
}

func (b *mcpBackend) Wait(ctx context.Context, ids []string) ([]control.AgentInfo, error) {
	for {
		b.mu.Lock()
		ch := b.changed
		var out []control.AgentInfo
		all := true
		for _, id := range ids {
			a, ok := b.agents[id]
			if !ok {
				b.mu.Unlock()
				return nil, fmt.Errorf("no agent with id %q", id)
			}
			all = all && a.State.Finished()
			out = append(out, a)
		}
		b.mu.Unlock()
		if all {
			return out, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
}

func (b *mcpBackend) Signal(string, agentstate.Signal, string) error { return nil }
func (b *mcpBackend) Explain(id string) (control.Explanation, error) {
	return control.Explanation{}, fmt.Errorf("no agent with id %q", id)
}
func (b *mcpBackend) Status() *hooks.StatusStore { return b.status }

func startMCPSocket(t testing.TB) (*control.Server, *mcpBackend) {
	t.Helper()
	fb := newMCPBackend()
	srv, err := control.StartServer(filepath.Join(t.TempDir(), "s.sock"), fb, control.ServerOptions{Session: "mcp-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, fb
}

// mcpSession connects an SDK client to the server (Run over pipes, as
// `agentgrid mcp` runs over stdio), with the server bound to a fake session
// behind a real socket.
func mcpSession(t *testing.T) (*mcp.ClientSession, *mcpBackend) {
	t.Helper()
	srv, fb := startMCPSocket(t)
	client, err := control.Dial(srv.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return sdkSession(t, client), fb
}

// sdkSession runs the server for client over pipes and connects the MCP
// SDK's client to it: the tests speak to it as another implementation of
// the protocol does.
func sdkSession(t *testing.T, client *control.Client) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()   // client -> server
	outR, outW := io.Pipe() // server -> client
	done := make(chan struct{})
	go func() { defer close(done); _ = Run(ctx, client, inR, outW); _ = outW.Close() }()
	t.Cleanup(func() { cancel(); _ = inW.Close(); _ = outR.Close(); <-done })
	cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
	defer ccancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(cctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return res, text.String()
}

func mustOK(t *testing.T, cs *mcp.ClientSession, name string, args any, v any) string {
	t.Helper()
	res, text := callTool(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", name, args, text)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(text), v); err != nil {
			t.Fatalf("%s: result is not JSON: %v\n%s", name, err, text)
		}
	}
	return text
}

func TestMCPToolsAndAnnotations(t *testing.T) {
	cs, _ := mcpSession(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		byName[tool.Name] = tool
	}
	sort.Strings(names)
	// Exactly the tools [kinds.NAME] mcp_tools may name.
	want := slices.Sorted(slices.Values(control.MCPTools))
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	for _, n := range []string{"list_agents", "list_kinds", "read_agent_output", "wait_agent", "agent_events"} {
		if a := byName[n].Annotations; a == nil || !a.ReadOnlyHint {
			t.Errorf("%s is not annotated read-only", n)
		}
	}
	if a := byName["close_agent"].Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("close_agent is not annotated destructive: %+v", a)
	}
	for _, n := range []string{"spawn_agent", "send_to_agent", "set_status"} {
		if a := byName[n].Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("%s annotations = %+v", n, a)
		}
	}
}

func TestMCPAgentLifecycle(t *testing.T) {
	cs, fb := mcpSession(t)
	var spawned agentSummary
	mustOK(t, cs, "spawn_agent", map[string]any{"title": "tests", "argv": []string{"go", "test", "./..."}}, &spawned)
	if spawned.ID != "a1" || spawned.State != agentstate.Running || spawned.Title != "tests" {
		t.Fatalf("spawned = %+v", spawned)
	}
	var list struct{ Agents []agentSummary }
	mustOK(t, cs, "list_agents", map[string]any{}, &list)
	if len(list.Agents) != 1 || list.Agents[0].ID != "a1" {
		t.Fatalf("list = %+v", list)
	}

	var waited struct {
		Finished bool
		Note     string
		Agents   []agentSummary
	}
	mustOK(t, cs, "wait_agent", map[string]any{"ids": []string{"a1"}, "timeout_seconds": 0.05}, &waited)
	if waited.Finished || waited.Note == "" || waited.Agents[0].State != agentstate.Running {
		t.Fatalf("wait on a running agent = %+v", waited)
	}
	fb.finish("a1", 0)
	mustOK(t, cs, "wait_agent", map[string]any{"ids": []string{"a1"}}, &waited)
	if !waited.Finished || waited.Agents[0].State != agentstate.Done || *waited.Agents[0].ExitCode != 0 {
		t.Fatalf("wait on a finished agent = %+v", waited)
	}

	var out struct {
		ID, State, Text string
	}
	mustOK(t, cs, "read_agent_output", map[string]any{"id": "a1", "scrollback": 100}, &out)
	if out.Text != "screen of a1\nscrollback=100" || out.State != string(agentstate.Done) {
		t.Errorf("output = %+v", out)
	}

	mustOK(t, cs, "send_to_agent", map[string]any{"id": "a1", "text": "yes"}, nil)
	mustOK(t, cs, "send_to_agent", map[string]any{"id": "a1", "text": "\x1b", "enter": false}, nil)
	fb.mu.Lock()
	sent := string(fb.sent["a1"])
	fb.mu.Unlock()
	if sent != "yes\r\x1b" {
		t.Errorf("sent %q", sent)
	}

	mustOK(t, cs, "set_status", map[string]any{"key": "plan", "text": "3 agents on it", "ttl": "1m"}, nil)
	if es := fb.status.Entries(); len(es) != 1 || es[0].Text != "3 agents on it" || es[0].TTL != time.Minute || es[0].Source != "mcp" {
		t.Errorf("status = %+v", es)
	}
	mustOK(t, cs, "set_status", map[string]any{"key": "plan", "text": ""}, nil)
	if es := fb.status.Entries(); len(es) != 0 {
		t.Errorf("status not cleared: %+v", es)
	}

	mustOK(t, cs, "close_agent", map[string]any{"id": "a1"}, nil)
	fb.mu.Lock()
	closed := fb.closed
	fb.mu.Unlock()
	if len(closed) != 1 || closed[0] != "a1" {
		t.Errorf("closed = %v", closed)
	}
}

// Malformed input and engine errors come back as tool errors; the server
// keeps serving.
func TestMCPToolErrors(t *testing.T) {
	cs, _ := mcpSession(t)
	cases := []struct {
		tool string
		args any
		want string
	}{
		{"read_agent_output", map[string]any{}, "id"},
		{"read_agent_output", map[string]any{"id": 7}, "id"},
		{"read_agent_output", map[string]any{"id": "a1", "bogus": true}, "bogus"},
		{"read_agent_output", map[string]any{"id": "a9"}, `no agent with id "a9"`},
		{"wait_agent", map[string]any{"ids": []string{}}, "ids"},
		{"wait_agent", map[string]any{"ids": []string{"a1"}, "timeout_seconds": 3600}, "timeout_seconds"},
		{"spawn_agent", map[string]any{}, "give argv"},
		{"spawn_agent", map[string]any{"argv": []string{}}, "argv"},
		{"spawn_agent", map[string]any{"argv": []string{"full"}}, "queue is full"},
		{"spawn_agent", map[string]any{"argv": []string{"x"}, "prompt": "p"}, "needs a kind"},
		{"send_to_agent", map[string]any{"id": "a9", "text": "x"}, "a9"},
		{"close_agent", map[string]any{"id": ""}, "id"},
		{"set_status", map[string]any{"key": "k", "text": "t", "ttl": "soon"}, "ttl"},
	}
	for _, tc := range cases {
		res, text := callTool(t, cs, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(text, tc.want) {
			t.Errorf("%s(%v): IsError=%v text=%q, want an error mentioning %q", tc.tool, tc.args, res.IsError, text, tc.want)
		}
	}
	// Still serving.
	mustOK(t, cs, "list_agents", map[string]any{}, nil)
}

// RunMCP over a pair of pipes, as `agentgrid mcp` runs over stdio.
func TestRunMCPOverStreams(t *testing.T) {
	srv, _ := startMCPSocket(t)
	client, err := control.Dial(srv.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	inR, inW := io.Pipe()   // client -> server
	outR, outW := io.Pipe() // server -> client
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), client, inR, outW); _ = outW.Close() }()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustOK(t, cs, "spawn_agent", map[string]any{"argv": []string{"sh"}}, nil)
	_ = cs.Close()
	_ = inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("RunMCP returned %v after the client hung up", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("RunMCP did not return after the client hung up")
	}
}

package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

// readyBackend is the fake session whose every caller is agent a7, and
// which records agent.mcp_ready.
type readyBackend struct {
	*mcpBackend
	ready chan string
}

type agentCaller string

func (c agentCaller) Agent() string                { return string(c) }
func (agentCaller) Full() bool                     { return true }
func (agentCaller) May(string, string) error       { return nil }
func (agentCaller) MayStatus(string, string) error { return nil }
func (b *readyBackend) IsAgentSession(int) bool    { return false }
func (b *readyBackend) MCPReady(id string) error   { b.ready <- id; return nil }
func (b *readyBackend) Authorize(control.Identity) (control.Caller, error) {
	return agentCaller("a7"), nil
}

// TestRunTellsTheSessionOnceToolsAreListed: `agentgrid mcp` tells the
// session (agent.mcp_ready, as the agent whose token it holds) once it has
// answered its CLI's tools/list — not on start, not on initialize — so a
// prompt that waits for the CLI to know agentgrid's tools can go.
func TestRunTellsTheSessionOnceToolsAreListed(t *testing.T) {
	b := &readyBackend{mcpBackend: newMCPBackend(), ready: make(chan string, 4)}
	srv, err := control.StartServer(filepath.Join(t.TempDir(), "s.sock"), b, control.ServerOptions{Session: "mcp-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	client, err := control.Dial(srv.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, client, inR, outW) }()
	t.Cleanup(func() { cancel(); _ = inW.Close(); <-done })
	replies := bufio.NewScanner(outR)
	replies.Buffer(nil, 1<<20)
	call := func(line string) map[string]json.RawMessage {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if !replies.Scan() {
			t.Fatalf("no reply to %s: %v", line, replies.Err())
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(replies.Bytes(), &m); err != nil {
			t.Fatalf("reply %q: %v", replies.Text(), err)
		}
		return m
	}
	noReady := func(when string) {
		t.Helper()
		select {
		case id := <-b.ready:
			t.Fatalf("agent.mcp_ready from %s %s", id, when)
		default:
		}
	}
	call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	// A request the server answers after the notification: by then the
	// notification has been handled too.
	call(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	noReady("before tools/list")
	if m := call(`{"jsonrpc":"2.0","id":"list-1","method":"tools/list"}`); len(m["result"]) == 0 {
		t.Fatalf("tools/list: %v", m)
	}
	select {
	case id := <-b.ready:
		if id != "a7" {
			t.Fatalf("agent.mcp_ready for %q, want the caller a7", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session never heard agent.mcp_ready after tools/list was answered")
	}
	// Once: a second listing tells nothing new.
	call(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	call(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	noReady("twice")
}

// TestMCPReadyNeedsAnAgent: agent.mcp_ready speaks for the caller's own
// agent; a caller that is no agent (the user's shell) is refused.
func TestMCPReadyNeedsAnAgent(t *testing.T) {
	srv, _ := startMCPSocket(t)
	client, err := control.Dial(srv.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := client.MCPReady(ctx); err == nil {
		t.Fatal("agent.mcp_ready from a caller that is no agent was taken")
	}
}

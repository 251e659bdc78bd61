package mcpserver

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

// loopBackend is the fake session with loops: it records what agent.loop
// was asked.
type loopBackend struct {
	*mcpBackend
	mu  sync.Mutex
	got []control.LoopParams
}

func (b *loopBackend) Loop(id, op string, spec control.LoopSpec) (control.LoopInfo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.got = append(b.got, control.LoopParams{ID: id, Op: op, LoopSpec: spec})
	return control.LoopInfo{LoopSpec: spec, Iteration: 1, Status: control.LoopRunning, Reason: "started"}, nil
}

func TestMCPLoopAgent(t *testing.T) {
	fb := &loopBackend{mcpBackend: newMCPBackend()}
	srv, err := control.StartServer(filepath.Join(t.TempDir(), "s.sock"), fb, control.ServerOptions{Session: "mcp-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	client, err := control.Dial(srv.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	cs := sdkSession(t, client)

	var l control.LoopInfo
	mustOK(t, cs, "loop_agent", map[string]any{"id": "a1", "promise": "DONE", "max": 5, "cooldown_seconds": 1.5, "task": "fix it"}, &l)
	if l.Status != control.LoopRunning || l.Iteration != 1 {
		t.Errorf("loop_agent returned %+v", l)
	}
	mustOK(t, cs, "loop_agent", map[string]any{"id": "a1", "op": "stop"}, nil)
	mustOK(t, cs, "loop_agent", map[string]any{"id": "a1", "promise": "DONE", "forever": true, "for_seconds": 3600}, nil)
	mustOK(t, cs, "loop_agent", map[string]any{"id": "a1", "while_todos": true, "max": 4, "stall": 2}, nil)
	fb.mu.Lock()
	got := fb.got
	fb.mu.Unlock()
	want := []control.LoopParams{
		{ID: "a1", Op: "start", LoopSpec: control.LoopSpec{Promise: "DONE", Max: 5, CooldownMS: 1500, Task: "fix it"}},
		{ID: "a1", Op: "stop"},
		{ID: "a1", Op: "start", LoopSpec: control.LoopSpec{Promise: "DONE", Forever: true, ForMS: int64(time.Hour / time.Millisecond)}},
		{ID: "a1", Op: "start", LoopSpec: control.LoopSpec{WhileTodos: true, Max: 4, Stall: 2}},
	}
	if len(got) != len(want) {
		t.Fatalf("agent.loop calls %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("call %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// No loop without a bound, whichever way it is asked.
	for _, args := range []map[string]any{
		{"id": "a1", "promise": "DONE"},
		{"id": "a1", "promise": "DONE", "forever": true},
		{"id": "a1", "max": 3},
		{"id": "a1", "promise": "DONE", "max": 0},
		{"id": "a1", "op": "pause"},
	} {
		if res, text := callTool(t, cs, "loop_agent", args); !res.IsError {
			t.Errorf("loop_agent(%v) succeeded: %s", args, text)
		}
	}
	if n := len(fb.got); n != 4 {
		t.Errorf("refused calls reached the session: %d calls", n)
	}
	if text := mustOK(t, cs, "list_agents", map[string]any{}, nil); strings.Contains(text, "loop") {
		t.Errorf("an agent without a loop lists one: %s", text)
	}
}

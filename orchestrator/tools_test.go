package orchestrator

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// startToolsEngine runs a real engine with its socket and kinds that limit
// their MCP tools.
func startToolsEngine(t *testing.T) (*Engine, string) {
	return startSocketEngine(t, "tools", func(cfg *config.Config, _ *Options) {
		cfg.Agents.MaxDepth = 3
		cfg.Kinds["worker"] = config.Kind{Command: []string{"cat"}, MCPTools: []string{"list_agents", "read_agent_output", "wait_agent", "set_status"}}
		cfg.Kinds["lead"] = config.Kind{Command: []string{"cat"}, MCPTools: []string{"spawn_agent", "list_agents"}}
		cfg.Kinds["mute"] = config.Kind{Command: []string{"cat"}, MCPTools: []string{}}
		cfg.Kinds["open"] = config.Kind{Command: []string{"cat"}}
	})
}

// TestKindMCPToolsAreEnforcedOnTheSocket: an agent of a kind with
// mcp_tools gets only the socket methods behind those tools, whichever
// client calls them with its token; the refusal names the limit. A kind
// without mcp_tools keeps every tool, and a child never gets a tool its
// parent lacks.
func TestKindMCPToolsAreEnforcedOnTheSocket(t *testing.T) {
	e, sock := startToolsEngine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	user := dialAs(t, sock, "")
	w, err := user.Spawn(ctx, control.SpawnParams{Kind: "worker", Title: "w"})
	if err != nil {
		t.Fatal(err)
	}
	wc := dialAs(t, sock, e.AgentToken(w.ID))
	_, err = wc.Spawn(ctx, control.SpawnParams{Argv: []string{"cat"}})
	wantForbidden(t, "a worker spawns", err)
	if err == nil || !strings.Contains(err.Error(), "spawn_agent") || !strings.Contains(err.Error(), "[kinds.worker] mcp_tools") {
		t.Errorf("the refusal does not name the tool and the limit: %v", err)
	}
	wantForbidden(t, "a worker sends to itself", wc.Send(ctx, w.ID, "x"))
	wantForbidden(t, "a worker closes itself", wc.CloseAgent(ctx, w.ID))
	_, err = wc.List(ctx)
	wantOK(t, "a worker lists", err)
	_, err = wc.Capture(ctx, w.ID, false, 0)
	wantOK(t, "a worker reads itself", err)
	wantOK(t, "a worker sets a status", wc.SetStatus(ctx, "note", "working", "", 0))
	_, err = wc.Wait(ctx, []string{w.ID}, time.Millisecond)
	wantOK(t, "a worker waits", err)
	// session.info tells the MCP server which tools to offer.
	if info, err := wc.SessionInfo(ctx); err != nil || !info.ToolsLimited || !slices.Equal(info.Tools, []string{"list_agents", "read_agent_output", "wait_agent", "set_status"}) {
		t.Errorf("session.info as the worker: %+v %v", info, err)
	}
	if info, err := user.SessionInfo(ctx); err != nil || info.ToolsLimited {
		t.Errorf("session.info as the user: %+v %v", info, err)
	}
	// Its own hooks still report.
	wantOK(t, "a worker's hook signals itself", wc.Signal(ctx, w.ID, "claude", agentstate.Signal{State: agentstate.Running, Why: "tool"}))

	m, err := user.Spawn(ctx, control.SpawnParams{Kind: "mute", Title: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = dialAs(t, sock, e.AgentToken(m.ID)).List(ctx)
	wantForbidden(t, "mcp_tools = [] lists", err)

	// A lead may spawn; its child of an unrestricted kind is capped by the
	// lead's list.
	lead, err := user.Spawn(ctx, control.SpawnParams{Kind: "lead", Title: "lead"})
	if err != nil {
		t.Fatal(err)
	}
	lc := dialAs(t, sock, e.AgentToken(lead.ID))
	child, err := lc.Spawn(ctx, control.SpawnParams{Kind: "open", Title: "child"})
	if err != nil {
		t.Fatalf("a lead spawns: %v", err)
	}
	cc := dialAs(t, sock, e.AgentToken(child.ID))
	wantForbidden(t, "the lead's child sends", cc.Send(ctx, child.ID, "x"))
	_, err = cc.Spawn(ctx, control.SpawnParams{Argv: []string{"cat"}})
	wantOK(t, "the lead's child spawns", err)

	// Unrestricted: an agent of a kind without mcp_tools, and the main view.
	o, err := user.Spawn(ctx, control.SpawnParams{Kind: "open", Title: "open"})
	if err != nil {
		t.Fatal(err)
	}
	oc := dialAs(t, sock, e.AgentToken(o.ID))
	wantOK(t, "an open kind sends to itself", oc.Send(ctx, o.ID, "x"))
	_, err = oc.Spawn(ctx, control.SpawnParams{Argv: []string{"cat"}})
	wantOK(t, "an open kind spawns", err)
	_, err = dialAs(t, sock, e.AgentToken(control.MainID)).Spawn(ctx, control.SpawnParams{Argv: []string{"cat"}})
	wantOK(t, "the main view spawns", err)
}

// A pane made through tmux is a spawn too: a kind without spawn_agent
// cannot make one.
func TestTmuxSplitNeedsSpawnTool(t *testing.T) {
	s := startShimSession(t, nil, func(c *config.Config) {
		c.Kinds["worker"] = config.Kind{Command: []string{"sleep", "600"}, MCPTools: []string{"list_agents"}}
	})
	w, err := s.e.Spawn(control.SpawnRequest{Kind: "worker"})
	if err != nil {
		t.Fatal(err)
	}
	waitAgent(t, s.e, w.ID, "running", func(a control.AgentInfo) bool { return a.State.Alive() })
	_, errOut, code := s.tmux(w.ID, "split-window", "-d", "sleep 600")
	if code == 0 || !strings.Contains(errOut, "spawn_agent") {
		t.Errorf("tmux split-window from a worker without spawn_agent: exit %d, %q; want it refused naming the tool", code, errOut)
	}
	if n := len(s.e.Snapshot().Agents); n != 1 {
		t.Errorf("%d agents after the refused split, want 1", n)
	}
}

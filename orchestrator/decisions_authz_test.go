package orchestrator

import (
	"context"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// An agent's hooks ask for that agent only: a background agent cannot use
// agent.decide to forge another agent's state, take the main view's nudge,
// or plant decisions in another agent's explain.
func TestDecideIsHeldToTheCallersRights(t *testing.T) {
	e, sock := startSocketEngine(t, "decide", func(cfg *config.Config, _ *Options) {
		cfg.Policies = []config.Policy{{Use: "delegation_nudge"},
			{Name: "no-env", On: "pre_tool", Paths: []string{".env"}, Action: "block", Message: "no"}}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	user := dialAs(t, sock, "")
	a1, err := user.Spawn(ctx, control.SpawnParams{Title: "a1", Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	sib, err := user.Spawn(ctx, control.SpawnParams{Title: "sib", Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	c := dialAs(t, sock, e.AgentToken(a1.ID))

	fileWork := control.DecideParams{ID: control.MainID, CLI: "claude", Ask: agentstate.Ask{Point: agentstate.PointPostTool, Tool: "Edit", SessionID: "s"}}
	if _, err := user.Decide(ctx, fileWork); err != nil {
		t.Fatal(err)
	}
	prompt := control.DecideParams{ID: control.MainID, CLI: "claude", Ask: agentstate.Ask{Point: agentstate.PointPrompt, Prompt: "go", SessionID: "s"}}
	_, err = c.Decide(ctx, prompt)
	wantForbidden(t, "decide for main", err)
	forged := control.DecideParams{ID: sib.ID, CLI: "claude", Signal: agentstate.Signal{State: "waiting", Why: "permission: rm -rf /"},
		Ask: agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Write", Paths: []string{".env"}}}
	_, err = c.Decide(ctx, forged)
	wantForbidden(t, "decide for a sibling", err)
	if got, _ := e.Agent(sib.ID); got.State == agentstate.Waiting {
		t.Errorf("a refused decide changed the sibling's state")
	}
	if ex, _ := e.Explain(sib.ID); len(ex.Decisions) != 0 {
		t.Errorf("a refused decide left decisions in the sibling's explain: %+v", ex.Decisions)
	}
	if d, err := user.Decide(ctx, prompt); err != nil || d.Action != agentstate.ActionHint {
		t.Errorf("main's own prompt after the refused one: %+v, %v; want the nudge still there", d, err)
	}
	own := forged
	own.ID = a1.ID
	if d, err := c.Decide(ctx, own); err != nil || d.Action != agentstate.ActionBlock {
		t.Errorf("a1 asking for itself: %+v, %v; want the block", d, err)
	}
}

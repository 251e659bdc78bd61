package orchestrator

import (
	"context"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
)

// What the user copied may come from any pane: agentgrid paste is the
// user's, and a background agent's token may not read it (nor remove
// another agent's worktree).
func TestPasteIsNotForBackgroundAgents(t *testing.T) {
	buffers := control.NewBuffers()
	buffers.Add("a secret the user copied")
	e, sock := startSocketEngine(t, "paste", func(_ *config.Config, o *Options) { o.Buffers = buffers })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	user := dialAs(t, sock, "")
	a, err := user.Spawn(ctx, control.SpawnParams{Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := user.Spawn(ctx, control.SpawnParams{Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := user.Paste(ctx, 0); err != nil || r.Text != "a secret the user copied" {
		t.Errorf("the user's paste: %q, %v", r.Text, err)
	}
	ac := dialAs(t, sock, e.AgentToken(a.ID))
	_, err = ac.Paste(ctx, 0)
	wantForbidden(t, "a background agent reads the paste buffer", err)
	_, err = ac.RemoveWorktree(ctx, b.ID)
	wantForbidden(t, "a background agent removes another's worktree", err)
}

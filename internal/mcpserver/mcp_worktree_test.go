package mcpserver

import (
	"fmt"
	"testing"
)

// RemoveWorktree removes the fake agent's worktree (control.WorktreeRemover).
func (b *mcpBackend) RemoveWorktree(id string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.agents[id]
	if !ok || a.Worktree == "" {
		return "", fmt.Errorf("agent %s has no worktree of its own", id)
	}
	path := a.Worktree
	a.Worktree = ""
	b.agents[id] = a
	return path, nil
}

// spawn_agent worktree=NAME asks for a worktree (and "auto" for one named by
// the session); close_agent remove_worktree=true removes it after the close.
func TestMCPWorktrees(t *testing.T) {
	cs, _ := mcpSession(t)
	var a agentSummary
	mustOK(t, cs, "spawn_agent", map[string]any{"argv": []string{"sh"}, "worktree": "feat"}, &a)
	if a.Worktree != "/repo/.agentgrid/worktrees/feat" || a.Branch != "agentgrid/feat" {
		t.Errorf("spawned %+v, want its worktree and branch", a)
	}
	mustOK(t, cs, "spawn_agent", map[string]any{"argv": []string{"sh"}, "worktree": "auto"}, &a)
	if a.Branch != "agentgrid/" {
		t.Errorf("worktree=auto asked for the name %q, want none (the session makes one)", a.Branch)
	}
	var closed struct {
		OK              bool   `json:"ok"`
		RemovedWorktree string `json:"removed_worktree"`
	}
	mustOK(t, cs, "close_agent", map[string]any{"id": "a1", "remove_worktree": true}, &closed)
	if !closed.OK || closed.RemovedWorktree != "/repo/.agentgrid/worktrees/feat" {
		t.Errorf("close_agent remove_worktree: %+v", closed)
	}
}

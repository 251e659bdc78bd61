package mcpserver

import (
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/internal/control"
)

// Kinds answers session.kinds for the fake session: its agents counted by
// category, or by kind.
func (b *mcpBackend) Kinds() control.KindsResult {
	b.mu.Lock()
	defer b.mu.Unlock()
	quick := control.KindInfo{Name: "quick", Category: true, Kind: "claude", Model: "claude-haiku-4-5", Description: "small changes",
		Limits: []control.LimitUsage{{Name: "limits.models.claude-haiku-4-5", Max: 2}}}
	claude := control.KindInfo{Name: "claude", Description: "Claude Code"}
	for _, id := range b.order {
		switch a := b.agents[id]; {
		case a.Category == "quick":
			quick.Running++
			quick.Limits[0].Used++
		case a.Kind == "claude":
			claude.Running++
		}
	}
	return control.KindsResult{Kinds: []control.KindInfo{claude, quick}}
}

func TestMCPListKindsAndSpawnByCategory(t *testing.T) {
	cs, _ := mcpSession(t)
	var spawned agentSummary
	mustOK(t, cs, "spawn_agent", map[string]any{"category": "quick", "prompt": "fix it"}, &spawned)
	if spawned.Category != "quick" {
		t.Fatalf("spawned = %+v", spawned)
	}
	res, text := callTool(t, cs, "spawn_agent", map[string]any{"category": "quick", "kind": "claude"})
	if !res.IsError || !strings.Contains(text, "not both") {
		t.Fatalf("kind and category: %v %s", res.IsError, text)
	}
	var kinds control.KindsResult
	mustOK(t, cs, "list_kinds", map[string]any{}, &kinds)
	if len(kinds.Kinds) != 2 || kinds.Kinds[1].Name != "quick" || kinds.Kinds[1].Running != 1 || kinds.Kinds[1].Limits[0].Used != 1 {
		t.Fatalf("list_kinds = %+v", kinds)
	}
}

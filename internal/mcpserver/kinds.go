package mcpserver

import (
	"context"
	"fmt"

	"github.com/agentgrid/agentgrid/internal/control"
)

type kindsInput struct{}

// addKindTools adds list_kinds: what the session can spawn, generated from
// its config and its live usage at each call.
func addKindTools(s *server, t mcpTools) {
	addTool(s, control.ToolKinds, "List what spawn_agent can start: every kind (an agent CLI preset) and category (a kind of work that picks a kind, a model and fallbacks) "+
		"of this session, with its description, how many of its agents run and wait, and the concurrency limits that hold them "+
		"(used/max, most specific first), so you can choose one with room. Spawning beyond a full limit queues the agent.",
		&toolAnnotations{Title: "List kinds", ReadOnlyHint: true, OpenWorldHint: boolPtr(false)}, t.kinds)
}

func (t mcpTools) kinds(ctx context.Context, _ kindsInput) (any, error) {
	ctx, cancel := callCtx(ctx)
	defer cancel()
	res, err := t.c.Kinds(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the kinds: %w", err)
	}
	return res, nil
}

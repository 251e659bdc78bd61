package control

import (
	"context"
	"encoding/json"
)

// MethodAgentRemoveWorktree removes the git worktree a finished agent ran
// in (agentgrid close --remove-worktree).
const MethodAgentRemoveWorktree = "agent.remove_worktree"

// WorktreeSpec asks for a new git worktree for an agent. Name names its
// folder and branch (agentgrid/NAME); empty lets the session choose one
// from the title or command.
type WorktreeSpec struct {
	Name string `json:"name,omitempty"`
}

// WorktreeRemover is the part of a Backend that removes worktrees; a
// session whose backend lacks it answers agent.remove_worktree with an
// error.
type WorktreeRemover interface {
	// RemoveWorktree removes the worktree of finished agent id unless it
	// has uncommitted changes, and returns its path.
	RemoveWorktree(id string) (string, error)
}

// RemoveWorktreeResult is agent.remove_worktree's answer.
type RemoveWorktreeResult struct {
	Path string `json:"path"`
}

func init() {
	handlers[MethodAgentRemoveWorktree] = handleRemoveWorktree
	methodTools[MethodAgentRemoveWorktree] = ToolClose
}

func handleRemoveWorktree(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	// Removing an agent's worktree is part of closing it.
	id, e := agentParam(ctx, params, GrantClose)
	if e != nil {
		return nil, e
	}
	r, ok := s.b.(WorktreeRemover)
	if !ok {
		return nil, &RPCError{Code: CodeServerError, Message: "this session does not manage worktrees"}
	}
	path, err := r.RemoveWorktree(id)
	if err != nil {
		return nil, engineError(ctx, err)
	}
	return RemoveWorktreeResult{Path: path}, nil
}

// RemoveWorktree removes the worktree of finished agent id and returns its
// path; one with uncommitted changes is kept, with an error saying so.
func (c *Client) RemoveWorktree(ctx context.Context, id string) (string, error) {
	var r RemoveWorktreeResult
	err := c.Call(ctx, MethodAgentRemoveWorktree, IDParams{ID: id}, &r)
	return r.Path, err
}

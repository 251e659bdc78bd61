package control

import (
	"context"
	"encoding/json"
)

// MethodSessionKinds is what `agentgrid kinds` and the MCP list_kinds tool
// call: every kind and category of the session with its description, its
// live usage against the limits that hold it, and how many agents wait.
const MethodSessionKinds = "session.kinds"

// KindInfo is one kind or category in session.kinds.
type KindInfo struct {
	Name string `json:"name"`
	// Category is set for a [categories.NAME]; Kind is then the kind that
	// runs it, Model its model and Fallback what it tries next.
	Category    bool     `json:"category,omitempty"`
	Kind        string   `json:"kind,omitempty"`
	Model       string   `json:"model,omitempty"`
	Provider    string   `json:"provider,omitempty"`
	Description string   `json:"description,omitempty"`
	Fallback    []string `json:"fallback,omitempty"`
	// Running counts its live agents (started, not finished); Queued those
	// waiting to start, for a slot or a limit.
	Running int `json:"running"`
	Queued  int `json:"queued"`
	// Limits are the concurrency limits that hold its agents, most
	// specific first.
	Limits []LimitUsage `json:"limits,omitempty"`
}

// LimitUsage is one concurrency limit and how much of it is used.
type LimitUsage struct {
	// Name is the limit's key in the config: limits.models."gpt-4.1",
	// limits.providers.anthropic, limits.kinds.claude, limits.default.
	Name string `json:"name"`
	Used int    `json:"used"`
	Max  int    `json:"max"`
}

// KindsResult is the result of session.kinds.
type KindsResult struct {
	Kinds []KindInfo `json:"kinds"`
	// Pending counts the agents of the session not started yet (waiting
	// for a limit or a pane); Queued those waiting for a pane in the grid,
	// started or not.
	Pending int `json:"pending"`
	Queued  int `json:"queued"`
}

// KindsBackend is what a Backend implements to answer session.kinds.
type KindsBackend interface {
	Kinds() KindsResult
}

func init() { handlers[MethodSessionKinds] = handleKinds }

func handleKinds(_ context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p struct{}
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	kb, ok := s.b.(KindsBackend)
	if !ok {
		return nil, rpcErrorf(CodeMethodNotFound, "this session does not list its kinds")
	}
	return kb.Kinds(), nil
}

// Kinds lists the session's kinds and categories (session.kinds).
func (c *Client) Kinds(ctx context.Context) (KindsResult, error) {
	var r KindsResult
	err := c.Call(ctx, MethodSessionKinds, struct{}{}, &r)
	return r, err
}

package control

import (
	"context"
	"encoding/json"
)

// MethodAgentMCPReady is sent by an agent's MCP server (`agentgrid mcp`)
// once it has answered its CLI's tools/list: from then on the CLI offers
// agentgrid's tools to its model. The session types a spawn's first prompt
// into a CLI that would otherwise send it before its MCP servers are
// connected only after this (see orchestrator's typed prompts).
const MethodAgentMCPReady = "agent.mcp_ready"

// MCPReadyBackend is what a Backend implements to take agent.mcp_ready.
type MCPReadyBackend interface {
	// MCPReady notes that agent id's CLI has listed agentgrid's MCP tools.
	MCPReady(id string) error
}

func init() { handlers[MethodAgentMCPReady] = handleMCPReady }

func handleMCPReady(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p struct{}
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	// Only an agent speaks for its own MCP server: the caller is the agent
	// its token names, never one given in the parameters.
	id := callerFrom(ctx).Agent()
	if id == "" {
		return nil, rpcErrorf(CodeInvalidRequest, "agent.mcp_ready comes from an agent's MCP server; this caller is not an agent of the session")
	}
	b, ok := s.b.(MCPReadyBackend)
	if !ok {
		return OKResult{OK: true}, nil
	}
	if err := b.MCPReady(id); err != nil {
		return nil, engineError(ctx, err)
	}
	return OKResult{OK: true}, nil
}

// MCPReady tells the session that the calling agent's CLI has listed
// agentgrid's MCP tools (agent.mcp_ready).
func (c *Client) MCPReady(ctx context.Context) error {
	return c.Call(ctx, MethodAgentMCPReady, nil, nil)
}

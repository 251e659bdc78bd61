package control

import (
	"context"

	"github.com/agentgrid/agentgrid/config"
)

// The agentgrid MCP tools (internal/mcpserver), by the names
// [kinds.NAME] mcp_tools lists (the names are config's, which validates
// that list). Each is a call over this socket; the session allows a caller
// the methods behind the tools its kind allows, whichever program makes
// the call.
const (
	ToolSpawn  = config.ToolSpawn
	ToolList   = config.ToolList
	ToolRead   = config.ToolRead
	ToolSend   = config.ToolSend
	ToolWait   = config.ToolWait
	ToolClose  = config.ToolClose
	ToolStatus = config.ToolStatus
	ToolEvents = config.ToolEvents
	ToolKinds  = config.ToolKinds
	ToolLoop   = config.ToolLoop
)

// MCPTools lists every MCP tool, in the order the server offers them.
var MCPTools = config.MCPTools

// methodTools maps a method to the MCP tool that stands for it. Methods not
// listed (session.info, agent.signal and agent.decide, which an agent's own
// hooks send, tmux.command, whose spawns the engine checks) need no tool.
var methodTools = map[string]string{
	MethodAgentSpawn:   ToolSpawn,
	MethodAgentList:    ToolList,
	MethodAgentGet:     ToolList,
	MethodAgentCapture: ToolRead,
	MethodAgentExplain: ToolRead,
	MethodAgentSend:    ToolSend,
	MethodAgentWait:    ToolWait,
	MethodAgentClose:   ToolClose,
	MethodStatusSet:    ToolStatus,
	MethodAgentEvents:  ToolEvents,
	MethodSessionKinds: ToolKinds,
	MethodAgentLoop:    ToolLoop,
}

// ToolOf is the MCP tool behind a method, "" for a method that needs none.
func ToolOf(method string) string { return methodTools[method] }

// ToolCaller is a Caller whose kind may restrict the MCP tools it uses.
type ToolCaller interface {
	// MayTool returns nil when the caller may use tool, and otherwise an
	// error that names the limit and how to lift it.
	MayTool(tool string) error
}

// mayTool checks the method's tool against the request's caller.
func mayTool(ctx context.Context, method string) *RPCError {
	tool := ToolOf(method)
	if tool == "" {
		return nil
	}
	tc, ok := callerFrom(ctx).(ToolCaller)
	if !ok {
		return nil
	}
	if err := tc.MayTool(tool); err != nil {
		return &RPCError{Code: CodeForbidden, Message: err.Error()}
	}
	return nil
}

// toolsOf lists the MCP tools c may use; limited is false when it may use
// every one.
func toolsOf(c Caller) (tools []string, limited bool) {
	tc, ok := c.(ToolCaller)
	if !ok {
		return nil, false
	}
	tools = []string{}
	for _, t := range MCPTools {
		if tc.MayTool(t) == nil {
			tools = append(tools, t)
		}
	}
	if len(tools) == len(MCPTools) {
		return nil, false
	}
	return tools, true
}

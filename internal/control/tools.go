package control

import "context"

// The agentgrid MCP tools (internal/mcpserver), by the names
// [kinds.NAME] mcp_tools lists. Each is a call over this socket; the
// session allows a caller the methods behind the tools its kind allows,
// whichever program makes the call.
const (
	ToolSpawn  = "spawn_agent"
	ToolList   = "list_agents"
	ToolRead   = "read_agent_output"
	ToolSend   = "send_to_agent"
	ToolWait   = "wait_agent"
	ToolClose  = "close_agent"
	ToolStatus = "set_status"
	ToolEvents = "agent_events"
	ToolKinds  = "list_kinds"
	ToolLoop   = "loop_agent"
)

// MCPTools lists every MCP tool, in the order the server offers them.
var MCPTools = []string{ToolSpawn, ToolList, ToolRead, ToolSend, ToolWait, ToolClose, ToolStatus, ToolEvents, ToolKinds, ToolLoop}

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

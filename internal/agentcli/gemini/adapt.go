package gemini

import (
	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// geminiPayload holds the fields agentgrid reads from a Gemini CLI hook's stdin.
type geminiPayload struct {
	SessionID      string         `json:"session_id"`
	Cwd            string         `json:"cwd"`
	HookEventName  string         `json:"hook_event_name"`
	Source         string         `json:"source"`          // SessionStart: startup, resume, clear
	Reason         string         `json:"reason"`          // SessionEnd
	Prompt         string         `json:"prompt"`          // BeforeAgent, AfterAgent
	PromptResponse string         `json:"prompt_response"` // AfterAgent
	ToolName       string         `json:"tool_name"`       // BeforeTool, AfterTool
	ToolInput      map[string]any `json:"tool_input"`
	NotifType      string         `json:"notification_type"` // Notification: ToolPermission
	Message        string         `json:"message"`
	Details        map[string]any `json:"details"`
	Trigger        string         `json:"trigger"` // PreCompress
	// MCPContext names an MCP tool's server and tool (BeforeTool,
	// AfterTool); tool_name is then mcp_<server>_<tool>.
	MCPContext struct {
		Server string `json:"server_name"`
		Tool   string `json:"tool_name"`
	} `json:"mcp_context"`
}

// adapt maps Gemini CLI hook events (stdin JSON).
func adapt(payload []byte) (agentstate.Signal, error) {
	var p geminiPayload
	if err := agentcli.DecodeObject(payload, &p); err != nil {
		return agentstate.Signal{}, err
	}
	s := agentstate.Signal{Event: p.HookEventName, SessionID: p.SessionID}
	switch p.HookEventName {
	case "SessionStart":
		s.State, s.Why = agentstate.Idle, "session started"
		if p.Source != "" {
			s.Why += " (" + p.Source + ")"
		}
	case "BeforeAgent":
		s.State, s.Why = agentstate.Running, "prompt submitted"
		if p.Prompt != "" {
			s.Why += ": " + agentcli.FirstLine(p.Prompt)
		}
	case "BeforeTool", "AfterTool":
		s.State = agentstate.Running
		s.Status = geminiToolStatus(p.ToolName, p.ToolInput, p.Cwd)
		if c := p.MCPContext; c.Server != "" && c.Tool != "" {
			s.Status = "MCP " + c.Server + "." + c.Tool
		}
		s.Why = "tool: " + s.Status
		if p.HookEventName == "AfterTool" {
			s.Why = "tool finished: " + s.Status
		}
	case "BeforeModel", "AfterModel", "BeforeToolSelection":
		s.State, s.Why = agentstate.Running, "model working"
	case "Notification":
		reason := agentcli.FirstLine(p.Message)
		if reason == "" {
			reason = "needs attention"
		}
		if p.NotifType == "ToolPermission" {
			if what := permissionOf(p.Details, p.Cwd); what != "" {
				reason = "permission: " + what
			} else if tool := agentcli.FirstStr(p.Details, "tool_name", "toolName", "name"); tool != "" && reason == "needs attention" {
				reason = "permission: " + tool
			}
		}
		s.State, s.Why, s.Status = agentstate.Waiting, reason, reason
	case "AfterAgent":
		s.State, s.Why = agentstate.Idle, "turn finished"
		s.Status = agentcli.Summary(p.PromptResponse)
	case "PreCompress":
		// Gemini CLI 0.61 sends an automatic PreCompress before every
		// model call, ahead of its check whether the context is full at
		// all: only a /compress the user asked for says compressing.
		if p.Trigger != "manual" {
			break
		}
		s.State, s.Why, s.Status = agentstate.Running, "compressing the context", "compressing"
	case "SessionEnd":
		s.SessionEnd = true
		s.Why = "session ended"
		if p.Reason != "" {
			s.Why += " (" + p.Reason + ")"
		}
	}
	return s, nil
}

// geminiToolStatus describes a Gemini CLI tool call: "Shell: go test ./...".
func geminiToolStatus(tool string, in map[string]any, cwd string) string {
	switch tool {
	case "":
		return "tool"
	case "run_shell_command":
		return agentcli.ToolStatus("Shell", agentcli.FirstStr(in, "command", "description"))
	case "read_file":
		return agentcli.ToolStatus("Read", agentcli.RelPath(agentcli.FirstStr(in, "file_path", "absolute_path", "path"), cwd))
	case "read_many_files":
		return agentcli.ToolStatus("Read", "many files")
	case "write_file":
		return agentcli.ToolStatus("Write", agentcli.RelPath(agentcli.FirstStr(in, "file_path", "path"), cwd))
	case "replace", "edit":
		return agentcli.ToolStatus("Edit", agentcli.RelPath(agentcli.FirstStr(in, "file_path", "path"), cwd))
	case "glob":
		return agentcli.ToolStatus("Glob", agentcli.Str(in, "pattern"))
	case "search_file_content", "grep", "grep_search":
		return agentcli.ToolStatus("Grep", agentcli.Str(in, "pattern"))
	case "list_directory", "ls":
		return agentcli.ToolStatus("List", agentcli.RelPath(agentcli.FirstStr(in, "dir_path", "path"), cwd))
	case "web_fetch":
		return agentcli.ToolStatus("Fetch", agentcli.FirstStr(in, "url", "prompt"))
	case "google_web_search":
		return agentcli.ToolStatus("Search", agentcli.Str(in, "query"))
	case "save_memory":
		return "Memory"
	}
	if server, name, ok := agentcli.SplitMCPTool(tool); ok {
		return "MCP " + server + "." + name
	}
	return agentcli.ToolStatus(tool, agentcli.FirstStr(in, "command", "file_path", "path", "pattern", "query", "url"))
}

// permissionOf describes what a ToolPermission notification asks to allow,
// from its details (Gemini CLI 0.61: type exec, edit, mcp or info, with
// that type's fields): "Shell: touch x", "Edit: main.go",
// "MCP agentgrid.spawn_agent". "" when the details say nothing usable.
func permissionOf(d map[string]any, cwd string) string {
	switch agentcli.Str(d, "type") {
	case "exec":
		return agentcli.ToolStatus("Shell", agentcli.Str(d, "command"))
	case "edit":
		return agentcli.ToolStatus("Edit", agentcli.RelPath(agentcli.FirstStr(d, "filePath", "fileName"), cwd))
	case "mcp":
		server, tool := agentcli.Str(d, "serverName"), agentcli.Str(d, "toolName")
		if server != "" && tool != "" {
			return "MCP " + server + "." + tool
		}
	case "info":
		if title := agentcli.Str(d, "title"); title != "" {
			return agentcli.ToolStatus(title, agentcli.Str(d, "prompt"))
		}
	}
	return ""
}

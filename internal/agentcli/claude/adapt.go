package claude

import (
	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// claudePayload holds the fields agentgrid reads from a Claude Code hook's
// stdin. The common fields come with every event; the rest with some.
type claudePayload struct {
	SessionID     string         `json:"session_id"`
	Cwd           string         `json:"cwd"`
	HookEventName string         `json:"hook_event_name"`
	Source        string         `json:"source"`       // SessionStart: startup, resume, clear, compact
	Reason        string         `json:"reason"`       // SessionEnd
	Prompt        string         `json:"prompt"`       // UserPromptSubmit
	ToolName      string         `json:"tool_name"`    // PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest
	ToolInput     map[string]any `json:"tool_input"`   // idem
	IsInterrupt   bool           `json:"is_interrupt"` // PostToolUseFailure
	Error         string         `json:"error"`        // PostToolUseFailure, StopFailure
	Message       string         `json:"message"`      // Notification
	Title         string         `json:"title"`        // Notification
	NotifType     string         `json:"notification_type"`
	LastMessage   string         `json:"last_assistant_message"` // Stop, StopFailure, SubagentStop
	AgentID       string         `json:"agent_id"`               // set inside subagents
	AgentType     string         `json:"agent_type"`
	Trigger       string         `json:"trigger"` // PreCompact
}

// adapt maps Claude Code hook events (stdin JSON, one object per run).
func adapt(payload []byte) (agentstate.Signal, error) {
	var p claudePayload
	if err := agentcli.DecodeObject(payload, &p); err != nil {
		return agentstate.Signal{}, err
	}
	s := agentstate.Signal{Event: p.HookEventName, SessionID: p.SessionID}
	switch p.HookEventName {
	case "SessionStart":
		// A compaction restarts the session mid-turn; the agent keeps working.
		if p.Source == "compact" {
			s.State, s.Why = agentstate.Running, "context compacted"
			break
		}
		s.State, s.Why = agentstate.Idle, "session started"
		if p.Source != "" {
			s.Why += " (" + p.Source + ")"
		}
	case "UserPromptSubmit":
		s.State, s.Why = agentstate.Running, "prompt submitted"
		if p.Prompt != "" {
			s.Why += ": " + agentcli.FirstLine(p.Prompt)
		}
	case "PreToolUse", "PostToolUse":
		s.State = agentstate.Running
		s.Status = claudeToolStatus(p.ToolName, p.ToolInput, p.Cwd)
		s.Why = "tool: " + s.Status
		if p.HookEventName == "PostToolUse" {
			s.Why = "tool finished: " + s.Status
		}
	case "PostToolUseFailure":
		if p.IsInterrupt {
			s.State, s.Why = agentstate.Idle, "interrupted by the user"
			break
		}
		s.State = agentstate.Running
		s.Status = claudeToolStatus(p.ToolName, p.ToolInput, p.Cwd)
		s.Why = "tool failed: " + s.Status
		if p.Error != "" {
			s.Why += ": " + agentcli.FirstLine(p.Error)
		}
	case "PermissionRequest":
		what := claudeToolStatus(p.ToolName, p.ToolInput, p.Cwd)
		s.State, s.Why, s.Status = agentstate.Waiting, "permission: "+what, "permission: "+what
	case "Notification":
		reason := p.Message
		if reason == "" {
			reason = p.Title
		}
		if reason == "" {
			reason = "needs attention"
		}
		switch p.NotifType {
		case "idle_prompt":
			// The turn ended a while ago and nothing was typed since: idle, not blocked.
			s.State, s.Why = agentstate.Idle, reason
		case "auth_success":
			// Nothing about the agent's work.
		case "permission_prompt":
			// Follows PermissionRequest, which named the tool and its input.
			s.State, s.Why, s.Status = agentstate.Waiting, reason, reason
			s.Restates = true
		default: // elicitation_dialog, or an older CLI without a type
			s.State, s.Why, s.Status = agentstate.Waiting, reason, reason
		}
	case "Stop":
		s.State, s.Why = agentstate.Idle, "turn finished"
		s.Status = agentcli.Summary(p.LastMessage)
	case "StopFailure":
		// The turn ended on an API error (rate limit, overload, a refused
		// request): the CLI waits for the next prompt.
		what := p.LastMessage
		if what == "" || what == "unknown" {
			what = p.Error
		}
		if what == "" || what == "unknown" {
			what = "API error"
		}
		s.State, s.Why, s.Status = agentstate.Idle, "turn failed: "+agentcli.FirstLine(what), agentcli.FirstLine(what)
		// The error field names the kind of failure ("rate_limit",
		// "server_error", "unknown"); the message carries the status.
		if s.Failure = agentcli.ClassifyFailure(p.Error + " " + p.LastMessage); p.Error == "rate_limit" {
			s.Failure = agentcli.FailureRateLimit
		}
	case "SubagentStart":
		s.SubagentDelta = 1
		s.State, s.Why = agentstate.Running, "subagent started"
		if p.AgentType != "" {
			s.Why += ": " + p.AgentType
		}
	case "SubagentStop":
		// Never the agent's own stop: only one of its children finished.
		s.SubagentDelta = -1
		s.Why = "subagent finished"
		if p.AgentType != "" {
			s.Why += ": " + p.AgentType
		}
	case "PreCompact":
		s.State, s.Why, s.Status = agentstate.Running, "compacting the context", "compacting"
	case "SessionEnd":
		s.SessionEnd = true
		s.Why = "session ended"
		if p.Reason != "" {
			s.Why += " (" + p.Reason + ")"
		}
	}
	return s, nil
}

// claudeToolStatus describes a tool call in a few words: "Bash: go test ./...".
func claudeToolStatus(tool string, in map[string]any, cwd string) string {
	if tool == "" {
		return "tool"
	}
	var detail string
	switch tool {
	case "Bash", "BashOutput":
		detail = agentcli.FirstStr(in, "command", "description", "bash_id")
	case "Edit", "MultiEdit", "Write", "Read":
		detail = agentcli.RelPath(agentcli.Str(in, "file_path"), cwd)
	case "NotebookEdit", "NotebookRead":
		detail = agentcli.RelPath(agentcli.FirstStr(in, "notebook_path", "file_path"), cwd)
	case "Grep", "Glob":
		detail = agentcli.Str(in, "pattern")
		if path := agentcli.Str(in, "path"); path != "" {
			detail += " in " + agentcli.RelPath(path, cwd)
		}
	case "LS":
		detail = agentcli.RelPath(agentcli.Str(in, "path"), cwd)
	case "Task", "Agent":
		detail = agentcli.FirstStr(in, "description", "subagent_type")
	case "WebFetch":
		detail = agentcli.Str(in, "url")
	case "WebSearch":
		detail = agentcli.Str(in, "query")
	case "TodoWrite":
		detail = "updating the todo list"
	case "KillShell", "KillBash":
		detail = agentcli.FirstStr(in, "shell_id", "bash_id")
	default:
		if server, name, ok := agentcli.SplitMCPTool(tool); ok {
			return "MCP " + server + "." + name
		}
		detail = agentcli.FirstStr(in, "command", "file_path", "path", "pattern", "query", "url", "description")
	}
	return agentcli.ToolStatus(tool, detail)
}

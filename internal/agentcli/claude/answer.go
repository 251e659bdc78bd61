package claude

import (
	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// answerPayload is what Ask reads beyond claudePayload.
type answerPayload struct {
	claudePayload
	// StopHookActive is set on a Stop that follows a block of the previous
	// one: the turn went on because of a hook, and is not blocked again.
	StopHookActive bool `json:"stop_hook_active"`
	// TranscriptPath is where the session's transcript is: the last
	// assistant message comes from it when the payload lacks one.
	TranscriptPath string `json:"transcript_path"`
}

// Ask implements agentcli.Answerer: PreToolUse, PostToolUse,
// UserPromptSubmit and Stop take an answer.
func (CLI) Ask(payload []byte) (agentstate.Ask, bool, error) { return ask(payload) }

// Answer implements agentcli.Answerer.
func (CLI) Answer(a agentstate.Ask, d agentstate.Decision) []byte { return Answer(a, d) }

// ContinuesAtStop implements agentcli.StopContinuer: a Stop answered with
// {"decision":"block","reason":...} makes Claude Code go on with the reason
// as its next instruction, with nothing typed into its screen.
func (CLI) ContinuesAtStop() bool { return true }

func ask(payload []byte) (agentstate.Ask, bool, error) {
	var p answerPayload
	if err := agentcli.DecodeObject(payload, &p); err != nil {
		return agentstate.Ask{}, false, err
	}
	a := agentstate.Ask{Cwd: p.Cwd, SessionID: p.SessionID}
	switch p.HookEventName {
	case "PreToolUse", "PostToolUse":
		a.Point = agentstate.PointPreTool
		if p.HookEventName == "PostToolUse" {
			a.Point = agentstate.PointPostTool
		}
		a.Tool = p.ToolName
		a.Paths = agentcli.PathsOf(p.ToolInput, "file_path", "notebook_path", "path")
		if p.ToolName == "TodoWrite" {
			a.Todos = todosOf(p.ToolInput)
		}
	case "UserPromptSubmit":
		a.Point, a.Prompt = agentstate.PointPrompt, p.Prompt
	case "Stop":
		a.Point, a.Said, a.Repeat = agentstate.PointStop, p.LastMessage, p.StopHookActive
		if a.Said == "" && p.TranscriptPath != "" {
			a.Said = lastAssistantMessage(p.TranscriptPath)
		}
	default:
		return agentstate.Ask{}, false, nil
	}
	return a, true, nil
}

// Answer is Claude Code's hook output for a decision (Codex's lifecycle
// hooks read the same): a deny with its reason before a tool, additional
// context for a hint, and {"decision":"block"} to refuse a prompt, to tell
// the model about a tool's result, or to keep a turn going at Stop. A hint
// at Stop has no form there and prints nothing.
func Answer(a agentstate.Ask, d agentstate.Decision) []byte {
	event := map[agentstate.Point]string{
		agentstate.PointPreTool: "PreToolUse", agentstate.PointPostTool: "PostToolUse",
		agentstate.PointPrompt: "UserPromptSubmit", agentstate.PointStop: "Stop",
	}[a.Point]
	if event == "" || d.Message == "" {
		return nil
	}
	switch {
	case d.Action == agentstate.ActionBlock && a.Point == agentstate.PointPreTool:
		return agentcli.MustJSON(map[string]any{"hookSpecificOutput": map[string]string{
			"hookEventName": event, "permissionDecision": "deny", "permissionDecisionReason": d.Message}})
	case d.Action == agentstate.ActionBlock:
		return agentcli.MustJSON(map[string]string{"decision": "block", "reason": d.Message})
	case d.Action == agentstate.ActionHint && a.Point != agentstate.PointStop:
		return agentcli.MustJSON(map[string]any{"hookSpecificOutput": map[string]string{
			"hookEventName": event, "additionalContext": d.Message}})
	}
	return nil
}

// AskOf is Ask for a payload in Claude Code's shape (Codex's lifecycle
// hooks send the same).
func AskOf(payload []byte) (agentstate.Ask, bool, error) { return ask(payload) }

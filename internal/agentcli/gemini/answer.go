package gemini

import (
	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// answerPayload is what Ask reads beyond geminiPayload.
type answerPayload struct {
	geminiPayload
	// StopHookActive is set on an AfterAgent that follows a refused one.
	StopHookActive bool `json:"stop_hook_active"`
}

// Ask implements agentcli.Answerer: BeforeTool, AfterTool, BeforeAgent (the
// prompt) and AfterAgent (the turn's end) take an answer.
func (CLI) Ask(payload []byte) (agentstate.Ask, bool, error) {
	var p answerPayload
	if err := agentcli.DecodeObject(payload, &p); err != nil {
		return agentstate.Ask{}, false, err
	}
	a := agentstate.Ask{Cwd: p.Cwd, SessionID: p.SessionID}
	switch p.HookEventName {
	case "BeforeTool", "AfterTool":
		a.Point = agentstate.PointPreTool
		if p.HookEventName == "AfterTool" {
			a.Point = agentstate.PointPostTool
		}
		a.Tool = p.ToolName
		a.Paths = agentcli.PathsOf(p.ToolInput, "file_path", "absolute_path", "path")
	case "BeforeAgent":
		a.Point, a.Prompt = agentstate.PointPrompt, p.Prompt
	case "AfterAgent":
		a.Point, a.Said, a.Repeat = agentstate.PointStop, p.PromptResponse, p.StopHookActive
	default:
		return agentstate.Ask{}, false, nil
	}
	return a, true, nil
}

// Answer implements agentcli.Answerer with Gemini CLI's hook output: a
// block is {"decision":"deny","reason":...} (the tool does not run, its
// result is withheld, the prompt is refused, or at AfterAgent the turn
// goes on with the reason); a hint is additional context after a tool or
// with the prompt. A hint before a tool or at the turn's end has no form
// and prints nothing.
func (CLI) Answer(a agentstate.Ask, d agentstate.Decision) []byte {
	if a.Point == "" || d.Message == "" {
		return nil
	}
	switch d.Action {
	case agentstate.ActionBlock:
		return agentcli.MustJSON(map[string]string{"decision": "deny", "reason": d.Message})
	case agentstate.ActionHint:
		event := map[agentstate.Point]string{agentstate.PointPostTool: "AfterTool", agentstate.PointPrompt: "BeforeAgent"}[a.Point]
		if event == "" {
			return nil
		}
		return agentcli.MustJSON(map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": event, "additionalContext": d.Message}})
	}
	return nil
}

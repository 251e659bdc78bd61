package opencode

import (
	"encoding/json"

	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// answerPayload is what Ask reads: the plugin's event, the directory
// OpenCode runs in, and at session.idle what the assistant said last in the
// turn (the plugin follows the message events to know it).
type answerPayload struct {
	opencodePayload
	Directory string `json:"directory"`
	Said      string `json:"said"`
}

type answerProps struct {
	SessionID string         `json:"sessionID"`
	Tool      any            `json:"tool"`
	Args      map[string]any `json:"args"`
	Prompt    string         `json:"prompt"`
}

// Ask implements agentcli.Answerer: the plugin asks at tool.execute.before
// and tool.execute.after (a subagent's tools too: they run in this agent's
// process), at chat.message (the user's prompt), and tells at session.idle
// (the turn's end) of the agent's own session.
func (CLI) Ask(payload []byte) (agentstate.Ask, bool, error) {
	var p answerPayload
	if err := agentcli.DecodeObject(payload, &p); err != nil {
		return agentstate.Ask{}, false, err
	}
	var pr answerProps
	if len(p.Properties) > 0 && string(p.Properties) != "null" {
		if err := json.Unmarshal(p.Properties, &pr); err != nil {
			return agentstate.Ask{}, false, err
		}
	}
	a := agentstate.Ask{Cwd: p.Directory, SessionID: pr.SessionID}
	switch p.Type {
	case "tool.execute.before", "tool.execute.after":
		a.Point = agentstate.PointPreTool
		if p.Type == "tool.execute.after" {
			a.Point = agentstate.PointPostTool
		}
		a.Tool, _ = pr.Tool.(string)
		a.Paths = agentcli.PathsOf(pr.Args, "filePath", "file_path", "path")
	case "chat.message":
		if p.Subagent {
			return agentstate.Ask{}, false, nil
		}
		a.Point, a.Prompt = agentstate.PointPrompt, pr.Prompt
	case "session.idle":
		if p.Subagent {
			return agentstate.Ask{}, false, nil
		}
		a.Point, a.Said = agentstate.PointStop, p.Said
	default:
		return agentstate.Ask{}, false, nil
	}
	return a, true, nil
}

// Answer implements agentcli.Answerer with what the generated plugin reads
// from `agentgrid hook opencode`: {"block": reason} makes it throw before
// a tool (OpenCode refuses the call and shows the model the reason) or at
// a prompt (the prompt fails with the reason); {"hint": text} is appended
// to the tool's output or added to the prompt's message as context. A
// hint before a tool has no form: OpenCode calls tool.execute.after only
// for a tool that succeeded, so a hint kept for it could be lost. After a
// tool, a block has nothing left to stop and is given as a hint; the
// turn's end takes no answer, since OpenCode has no hook that keeps a turn
// going.
func (CLI) Answer(a agentstate.Ask, d agentstate.Decision) []byte {
	if d.Message == "" {
		return nil
	}
	switch a.Point {
	case agentstate.PointPreTool:
		if d.Action == agentstate.ActionBlock {
			return agentcli.MustJSON(map[string]string{"block": d.Message})
		}
	case agentstate.PointPrompt:
		if d.Action == agentstate.ActionBlock {
			return agentcli.MustJSON(map[string]string{"block": d.Message})
		}
		if d.Action == agentstate.ActionHint {
			return agentcli.MustJSON(map[string]string{"hint": d.Message})
		}
	case agentstate.PointPostTool:
		if d.Action != agentstate.ActionNone {
			return agentcli.MustJSON(map[string]string{"hint": d.Message})
		}
	}
	return nil
}

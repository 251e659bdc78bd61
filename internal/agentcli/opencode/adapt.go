package opencode

import (
	"encoding/json"
	"strings"

	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// opencodePayload is what agentgrid's OpenCode plugin (see Plugin)
// writes to `agentgrid hook opencode`: an OpenCode bus event {type,
// properties}, or a plugin hook call in the same shape. Subagent marks events
// of a child session (one the task tool started), which must never change the
// state of the agent itself.
type opencodePayload struct {
	Type       string          `json:"type"`
	Properties json.RawMessage `json:"properties"`
	Subagent   bool            `json:"subagent"`
}

type opencodeProps struct {
	SessionID string `json:"sessionID"`
	// session.status
	Status struct {
		Type    string `json:"type"` // idle, busy, retry
		Message string `json:"message"`
	} `json:"status"`
	// session.error
	Error struct {
		Name string `json:"name"`
		Data struct {
			Message    string `json:"message"`
			StatusCode int    `json:"statusCode"`
		} `json:"data"`
	} `json:"error"`
	// permission.updated (Permission.Info) and permission.asked / permission.ask
	Title      string   `json:"title"`
	Type       string   `json:"type"`
	Permission string   `json:"permission"`
	Pattern    any      `json:"pattern"`
	Patterns   []string `json:"patterns"`
	// tool.execute.before / after: the tool's name; permission.asked: the
	// call it asks about, {"messageID", "callID"} (so not always a string)
	Tool any            `json:"tool"`
	Args map[string]any `json:"args"`
	// session.created / session.updated
	Info struct {
		ID       string `json:"id"`
		ParentID string `json:"parentID"`
	} `json:"info"`
}

// adapt maps OpenCode events forwarded by agentgrid's plugin.
func adapt(payload []byte) (agentstate.Signal, error) {
	var p opencodePayload
	if err := agentcli.DecodeObject(payload, &p); err != nil {
		return agentstate.Signal{}, err
	}
	var pr opencodeProps
	if len(p.Properties) > 0 && string(p.Properties) != "null" {
		if err := json.Unmarshal(p.Properties, &pr); err != nil {
			return agentstate.Signal{}, err
		}
	}
	s := agentstate.Signal{Event: p.Type, SessionID: pr.SessionID}
	if s.SessionID == "" {
		s.SessionID = pr.Info.ID
	}
	if p.Subagent {
		// A child session: count it, never let it change the agent's state.
		switch p.Type {
		case "session.created":
			s.SubagentDelta, s.Why = 1, "subagent started"
		case "session.idle", "session.deleted":
			s.SubagentDelta, s.Why = -1, "subagent finished"
		}
		return s, nil
	}
	switch p.Type {
	case "session.idle":
		s.State, s.Why = agentstate.Idle, "session idle"
	case "session.status":
		switch pr.Status.Type {
		case "busy":
			s.State, s.Why = agentstate.Running, "session busy"
		case "idle":
			s.State, s.Why = agentstate.Idle, "session idle"
		case "retry":
			s.State, s.Why = agentstate.Running, "retrying"
			if pr.Status.Message != "" {
				s.Why += ": " + agentcli.FirstLine(pr.Status.Message)
			}
			s.Status = s.Why
		}
	case "chat.message":
		s.State, s.Why = agentstate.Running, "prompt submitted"
	case "permission.updated", "permission.asked", "permission.ask":
		what := agentcli.FirstLine(pr.Title)
		if what == "" {
			what = pr.Permission
			if what == "" {
				what = pr.Type
			}
			if pat := opencodePatterns(pr); pat != "" {
				what = strings.TrimSpace(what + " " + pat)
			}
		}
		if what == "" {
			what = "permission requested"
		} else {
			what = "permission: " + what
		}
		s.State, s.Why, s.Status = agentstate.Waiting, what, what
	case "permission.replied":
		s.State, s.Why = agentstate.Running, "permission answered"
	case "tool.execute.before", "tool.execute.after":
		s.State = agentstate.Running
		name, _ := pr.Tool.(string)
		s.Status = opencodeToolStatus(name, pr.Args)
		s.Why = "tool: " + s.Status
		if p.Type == "tool.execute.after" {
			s.Why = "tool finished: " + s.Status
		}
	case "session.error":
		msg := agentcli.FirstLine(pr.Error.Data.Message)
		if msg == "" {
			msg = pr.Error.Name
		}
		if msg == "" {
			msg = "unknown error"
		}
		s.State, s.Why, s.Status = agentstate.Idle, "error: "+msg, "error: "+msg
		// OpenCode retries a rate limit itself (session.status "retry");
		// the error comes when it gave up.
		switch code := pr.Error.Data.StatusCode; {
		case code == 429:
			s.Failure = agentcli.FailureRateLimit
		case code == 529 || code == 503:
			s.Failure = agentcli.FailureOverloaded
		case code == 0:
			s.Failure = agentcli.ClassifyFailure(pr.Error.Data.Message)
		}
	case "server.instance.disposed", "session.deleted":
		s.SessionEnd, s.Why = true, "session ended"
	}
	return s, nil
}

func opencodePatterns(pr opencodeProps) string {
	if len(pr.Patterns) > 0 {
		return strings.Join(pr.Patterns, " ")
	}
	switch v := pr.Pattern.(type) {
	case string:
		return v
	case []any:
		var parts []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " ")
	}
	return ""
}

// opencodeToolStatus describes an OpenCode tool call: "bash: go test ./...".
func opencodeToolStatus(tool string, args map[string]any) string {
	if tool == "" {
		return "tool"
	}
	return agentcli.ToolStatus(tool, agentcli.FirstStr(args, "command", "filePath", "file_path", "path", "pattern", "query", "url", "description"))
}

package codex

import (
	"strings"

	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentcli/claude"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// codexPayload is the JSON Codex passes as the last argument of its
// `notify` program. Its keys are kebab-case.
type codexPayload struct {
	Type          string   `json:"type"`
	ThreadID      string   `json:"thread-id"`
	TurnID        string   `json:"turn-id"`
	Cwd           string   `json:"cwd"`
	InputMessages []string `json:"input-messages"`
	LastMessage   string   `json:"last-assistant-message"`
	// Fields an approval notification may carry (newer or patched builds).
	Message string   `json:"message"`
	Reason  string   `json:"reason"`
	Command []string `json:"command"`
	// Codex builds with Claude-style lifecycle hooks send hook_event_name.
	HookEventName string `json:"hook_event_name"`
}

// adapt maps Codex notify payloads. The documented one is
// "agent-turn-complete"; approval-style types ("approval-requested",
// "exec-approval-request", ...) are treated as the agent waiting for the user.
func adapt(payload []byte) (agentstate.Signal, error) {
	var p codexPayload
	if err := agentcli.DecodeObject(payload, &p); err != nil {
		return agentstate.Signal{}, err
	}
	if p.Type == "" && p.HookEventName != "" {
		// Lifecycle hooks share Claude Code's payload shape.
		return claude.CLI{}.Adapt(payload)
	}
	s := agentstate.Signal{Event: p.Type, SessionID: p.ThreadID}
	switch {
	case p.Type == "agent-turn-complete":
		s.State, s.Why = agentstate.Idle, "turn complete"
		s.Status = agentcli.Summary(p.LastMessage)
	case strings.Contains(p.Type, "approval"):
		reason := agentcli.FirstLine(p.Message)
		if reason == "" {
			reason = agentcli.FirstLine(p.Reason)
		}
		if reason == "" && len(p.Command) > 0 {
			reason = "run " + strings.Join(p.Command, " ")
		}
		if reason == "" {
			reason = "approval requested"
		} else {
			reason = "approval: " + reason
		}
		s.State, s.Why, s.Status = agentstate.Waiting, reason, reason
	}
	return s, nil
}

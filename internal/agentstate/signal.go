package agentstate

import "time"

// Signal is what an agent CLI's hook said, in agentgrid's terms. The engine
// fuses it with the other evidence it has (process, terminal, input, output).
//
// Status is the agent's current activity for its pane border and the status
// line ("Bash: go test ./..."). A non-empty Status replaces the previous one;
// an empty Status with State idle or waiting, or with SessionEnd, clears it;
// an empty Status otherwise leaves it as it is.
type Signal struct {
	// Event is the CLI's own event name ("PreToolUse", "agent-turn-complete", ...).
	Event string `json:"event"`
	// State is "", running, waiting or idle (see State.Reported); "" changes nothing.
	State State `json:"state,omitempty"`
	// Why explains the state for `agentgrid explain` ("permission: Bash: rm -rf x").
	Why    string `json:"why,omitempty"`
	Status string `json:"status,omitempty"`
	// SubagentDelta is +1 when the agent started a subagent, -1 when one
	// finished; subagents never change the agent's own state.
	SubagentDelta int `json:"subagent_delta,omitempty"`
	// SessionEnd is set when the CLI's session ended (the process may still
	// run: the user may /clear and start another).
	SessionEnd bool   `json:"session_end,omitempty"`
	SessionID  string `json:"session_id,omitempty"`
	// Failure is set when the CLI's turn ended on a recoverable API error:
	// "rate_limit" or "overloaded". A category's retry policy and fallback
	// act on it.
	Failure string `json:"failure,omitempty"`
	// Restates is set on a CLI's generic notice of a wait that its own
	// hooks report more precisely (Claude Code's "Claude needs your
	// permission" after PermissionRequest): while the agent is waiting on
	// a hook's word, it keeps that word's reason and status.
	Restates bool `json:"restates,omitempty"`
	// At is when the hook program started. Each event runs its own hook
	// process, and two of them may reach the session the other way round
	// (Codex's PreToolUse and PermissionRequest, a few ms apart): a signal
	// older than one already applied changes no state.
	At time.Time `json:"at,omitzero"`
}

// Empty reports whether the signal says nothing to act on: an event the
// adapter does not map.
func (s Signal) Empty() bool {
	return s.State == "" && s.Status == "" && s.Why == "" && s.SubagentDelta == 0 && !s.SessionEnd && s.Failure == ""
}

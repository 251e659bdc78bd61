// Package hooks is agentgrid's outward-facing event layer: the events the
// engine publishes and the bus that carries them, the status store behind the
// status line and the line's renderer, and the runner for the hook handlers
// configured in [[hooks]]. (The adapters for agent CLIs' own hooks live in
// internal/agentcli.)
//
// # Event JSON
//
// Every event reaches a configured handler as one JSON object on stdin
// (hooks/EVENTS.md has worked examples):
//
//	{
//	  "type":    "agent_state",                  // see the Event* constants
//	  "time":    "2026-11-30T13:04:05.123Z",     // RFC 3339, when the engine published it
//	  "session": "agentgrid-4242",
//	  "agent": {                                 // absent for session_* and status_changed without an agent
//	    "id": "a3", "title": "tests", "kind": "claude",
//	    "state": "waiting", "prev_state": "running",
//	    "why": "permission: Bash: rm -rf build", "source": "hook:claude",
//	    "exit_code": 0,                          // only once the process has exited
//	    "created": "...", "started": "...", "ended": "..."  // started/ended only once known
//	  },
//	  "status": {                                // only for status_changed
//	    "key": "build", "text": "✓ green", "agent": "a3", "source": "socket",
//	    "updated": "...", "ttl": "10s", "stale": false, "cleared": false
//	  }
//	}
//
// The handler also finds AGENTGRID_EVENT (the type), AGENTGRID_AGENT_ID,
// AGENTGRID_SOCKET and AGENTGRID_SESSION in its environment.
package hooks

import (
	"encoding/json"
	"time"

	"github.com/agentgrid/agentgrid/config"
)

// Event types published on the Bus and matched by a handler's `on` list
// (the names are config's, which validates that list: config.Events).
const (
	EventSessionStart  = config.EventSessionStart  // the session is up (socket listening, orchestrator started)
	EventSessionEnd    = config.EventSessionEnd    // the session is shutting down
	EventAgentQueued   = config.EventAgentQueued   // a spawn request waits for a slot or a concurrency permit
	EventAgentStarted  = config.EventAgentStarted  // the agent's process is running
	EventAgentState    = config.EventAgentState    // every state transition (agent.state, agent.prev_state, why, source)
	EventAgentExited   = config.EventAgentExited   // the process exited (agent.exit_code set)
	EventAgentClosed   = config.EventAgentClosed   // the pane was closed and the agent forgotten by the grid
	EventStatusChanged = config.EventStatusChanged // a status entry was set, cleared or expired
	EventBell          = config.EventBell          // an agent rang the terminal bell or sent a notification
	// EventAgentTurnDone is published when an agent CLI finished a turn it
	// was prompted for and said something (agent.summary holds its first
	// line).
	EventAgentTurnDone = config.EventAgentTurnDone
)

// Event is one thing that happened in a session. Its JSON form is documented
// in the package comment and in hooks/EVENTS.md.
type Event struct {
	Type    string       `json:"type"`
	Time    time.Time    `json:"time"`
	Session string       `json:"session"`
	Agent   *AgentRef    `json:"agent,omitempty"`
	Status  *StatusEntry `json:"status,omitempty"`
}

// AgentRef is the part of an agent's state that events carry.
type AgentRef struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	Kind  string `json:"kind,omitempty"`
	State string `json:"state,omitempty"`
	// PrevState is the state before this transition (agent_state only).
	PrevState string     `json:"prev_state,omitempty"`
	Why       string     `json:"why,omitempty"`
	Source    string     `json:"source,omitempty"`
	ExitCode  *int       `json:"exit_code,omitempty"`
	Created   time.Time  `json:"created"`
	Started   *time.Time `json:"started,omitempty"`
	Ended     *time.Time `json:"ended,omitempty"`
	// Summary is the first line of what the agent said last (agent_turn_done).
	Summary string `json:"summary,omitempty"`
}

// StatusEntry is one entry of the status store. TTL 0 means it never expires;
// Stale is computed when the entry is read (not confirmed for stale_after).
type StatusEntry struct {
	Key     string
	Text    string
	Agent   string
	Source  string
	Updated time.Time
	TTL     time.Duration
	Stale   bool
	// Notice marks a message agentgrid itself shows the user (such as an
	// ignored config file): the status line draws it first and whole.
	Notice bool
	// Cleared is set only on the copy carried by a status_changed event when
	// the entry was removed (cleared, emptied or expired).
	Cleared bool
}

// statusEntryJSON is StatusEntry's wire form: the TTL as a Go duration string
// ("10s") rather than nanoseconds, so hook scripts can read it.
type statusEntryJSON struct {
	Key     string    `json:"key"`
	Text    string    `json:"text"`
	Agent   string    `json:"agent,omitempty"`
	Source  string    `json:"source,omitempty"`
	Updated time.Time `json:"updated"`
	TTL     string    `json:"ttl,omitempty"`
	Stale   bool      `json:"stale"`
	Cleared bool      `json:"cleared,omitempty"`
}

// MarshalJSON writes the entry with its TTL as a duration string.
func (e StatusEntry) MarshalJSON() ([]byte, error) {
	j := statusEntryJSON{Key: e.Key, Text: e.Text, Agent: e.Agent, Source: e.Source, Updated: e.Updated, Stale: e.Stale, Cleared: e.Cleared}
	if e.TTL > 0 {
		j.TTL = e.TTL.String()
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (e *StatusEntry) UnmarshalJSON(b []byte) error {
	var j statusEntryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*e = StatusEntry{Key: j.Key, Text: j.Text, Agent: j.Agent, Source: j.Source, Updated: j.Updated, Stale: j.Stale, Cleared: j.Cleared}
	if j.TTL != "" {
		d, err := time.ParseDuration(j.TTL)
		if err != nil {
			return err
		}
		e.TTL = d
	}
	return nil
}

package demo

import (
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// Agent is what the demo orchestrator needs to know about one agent; the
// socket client's snapshot is mapped onto it (see client.go).
type Agent struct {
	ID, Title, Why string
	State          agentstate.State
	ExitCode       *int
	Started, Ended *time.Time
	Visible        bool
	Number         int // pane number on screen, 0 when off screen
	QueuePos       int // 1-based position in the deferred-spawn queue, 0 when not queued
}

// Finished reports whether the agent has ended for good.
func (a Agent) Finished() bool {
	return a.State.Finished()
}

// Session is the part of a running agentgrid session the demo orchestrator
// drives. The real one talks to the control socket; tests use a fake.
type Session interface {
	// Spawn starts an agent with the given pane title and argv.
	Spawn(title string, argv []string) (Agent, error)
	// List returns every agent of the session.
	List() ([]Agent, error)
	// Capture returns an agent's screen as plain text.
	Capture(id string) (string, error)
	// SetStatus sets (or with "" clears) one status line entry.
	SetStatus(key, text string) error
}

package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// writeCounter counts the writes it takes.
type writeCounter struct {
	bytes.Buffer
	writes int
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// TestTablesAreWrittenInOnePiece: list, its tree, explain and kinds reach
// their output in one write each, not one per cell and gap (each write to
// a terminal or pipe is a system call; list of 17 agents made 239).
func TestTablesAreWrittenInOnePiece(t *testing.T) {
	now := time.Now()
	var agents []control.AgentInfo
	for i := range 17 {
		agents = append(agents, control.AgentInfo{ID: fmt.Sprintf("a%d", i+1), Title: fmt.Sprintf("job-%d", i+1),
			State: agentstate.Idle, Created: now.Add(-time.Minute), Number: i + 1, Why: "no output for 5s"})
	}
	agents[3].Parent = "a1"
	ex := control.Explanation{Agent: agents[0], History: []control.Transition{{Time: now, From: agentstate.Running, To: agentstate.Idle, Why: "quiet"}}}
	for name, write := range map[string]func(*writeCounter) error{
		"list":      func(w *writeCounter) error { return writeAgentTable(w, agents, now) },
		"list tree": func(w *writeCounter) error { return writeAgentTree(w, agents, now) },
		"explain":   func(w *writeCounter) error { return writeExplanation(w, ex, now) },
		"kinds": func(w *writeCounter) error {
			return writeKinds(w, control.KindsResult{Kinds: []control.KindInfo{{Name: "claude"}, {Name: "codex"}}})
		},
	} {
		var w writeCounter
		if err := write(&w); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w.writes != 1 {
			t.Errorf("%s took %d writes for %d bytes, want 1", name, w.writes, w.Len())
		}
		if !strings.Contains(w.String(), "a1") && name != "kinds" {
			t.Errorf("%s wrote %q", name, w.String())
		}
	}
}

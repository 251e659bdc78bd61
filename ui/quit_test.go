package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// TestQuitQuestion: the question names only the running agents, counts the
// waiting, idle and pending ones apart, and is never cut: a long list of
// agents wraps inside the box with its closing bracket.
func TestQuitQuestion(t *testing.T) {
	agents := func(states ...agentstate.State) []control.AgentInfo {
		var out []control.AgentInfo
		for i, s := range states {
			out = append(out, control.AgentInfo{ID: fmt.Sprintf("a%d", i+1), State: s})
		}
		return out
	}
	R, W, I, P, D := agentstate.Running, agentstate.Waiting, agentstate.Idle, agentstate.Pending, agentstate.Done
	tests := []struct {
		agents []control.AgentInfo
		want   string
	}{
		{agents(D, D), ""},
		{agents(R, I, P, D), "Quit agentgrid? 1 agent is running (a1); 1 idle and 1 pending too. They will be stopped."},
		{agents(I, R, R), "Quit agentgrid? 2 agents are running (a2, a3); 1 idle too. They will be stopped."},
		{agents(I, W, I), "Quit agentgrid? No agent is running; 2 idle and 1 waiting. They will be stopped."},
		{agents(R), "Quit agentgrid? 1 agent is running (a1). It will be stopped."},
		{agents(R, R, R, R, R, R, R, R, R, R), "Quit agentgrid? 10 agents are running (a1, a2, a3, a4, a5, a6, a7 and 3 more). They will be stopped."},
	}
	for _, tt := range tests {
		if got := quitQuestion(tt.agents); got != tt.want {
			t.Errorf("quitQuestion:\n got %q\nwant %q", got, tt.want)
		}
	}

	// Drawn at 80x24 with ten running agents: all of it shows.
	snap := testSnapshot()
	snap.Agents = agents(I, R, R, R, R, R, R, R, R, R)
	m, _ := newTestModel(t, snap)
	press(t, m, "ctrl+b", "q")
	text := ansi.Strip(viewText(m))
	// The words of the screen without the boxes' lines: the question's
	// wrapped lines join up.
	joined := strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if strings.ContainsRune("│─┌┐└┘", r) {
			return ' '
		}
		return r
	}, text)), " ")
	if !strings.Contains(joined, "9 agents are running (a2, a3, a4, a5, a6, a7, a8 and 2 more); 1 idle too. They will be stopped.") {
		t.Errorf("the question is cut:\n%s", text)
	}
}

// TestCloseMainViewAsks: prefix x on the main view quits the session, so
// it asks while the main view's program runs even when no agent is live;
// n keeps the session, y quits. A finished main view closes at once.
func TestCloseMainViewAsks(t *testing.T) {
	snap := testSnapshot()
	snap.Agents = nil
	m, _ := newTestModel(t, snap)
	if cmd := press(t, m, "ctrl+b", "x"); m.overlay == nil || cmd != nil {
		t.Fatalf("prefix x on a running main view: overlay %T, cmd %v; want a question", m.overlay, cmd)
	}
	if text := ansi.Strip(viewText(m)); !strings.Contains(strings.Join(strings.Fields(text), " "), "Close the main view (main-title)?") {
		t.Errorf("the question does not name the main view:\n%s", text)
	}
	press(t, m, "n")
	if m.overlay != nil || m.quitting {
		t.Fatalf("n: overlay %T, quitting %v", m.overlay, m.quitting)
	}
	press(t, m, "ctrl+b", "x")
	if cmd := press(t, m, "y"); cmd == nil || !m.quitting {
		t.Fatalf("y did not quit")
	}

	snap.Main.Agent.State = agentstate.Done
	m, _ = newTestModel(t, snap)
	if cmd := press(t, m, "ctrl+b", "x"); m.overlay != nil || cmd == nil {
		t.Errorf("prefix x on a finished main view: overlay %T, cmd %v; want a quit", m.overlay, cmd)
	}
}

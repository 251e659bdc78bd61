package orchestrator

import (
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// A pane's tmux commands carry its own authority: it may make panes (its
// children), act on them and read them, but not close, respawn, type into
// or read the command lines of agents outside its subtree.
func TestTmuxCallsActWithTheCallersRights(t *testing.T) {
	s := startShimSession(t, nil, nil)
	other := spawn(t, s.e, "sh", "-c", "echo secret-argv; exec sleep 600")
	me := spawn(t, s.e, "sleep", "600")
	mine := strings.TrimSpace(s.ok(me.ID, "split-window", "-d", "-P", "-F", "#{pane_id}", "sleep 600"))
	if in, _ := s.e.Agent(s.agentOfPane(mine)); in.Parent != me.ID {
		t.Fatalf("the pane %s made has parent %q, want %s", mine, in.Parent, me.ID)
	}
	otherPane := paneID(other.ID)
	for _, args := range [][]string{
		{"kill-pane", "-t", otherPane},
		{"send-keys", "-t", otherPane, "echo hi", "Enter"},
		{"respawn-pane", "-k", "-t", otherPane, "true"},
		{"select-pane", "-t", otherPane, "-T", "hijacked"},
		{"kill-pane", "-t", "%0"},
	} {
		if _, errOut, code := s.tmux(me.ID, args...); code != 1 || errOut == "" {
			t.Errorf("tmux %q from %s = %d %q; want it refused", args, me.ID, code, errOut)
		}
	}
	list := s.ok(me.ID, "list-panes", "-F", "#{pane_id} #{pane_width} [#{pane_start_command}]")
	if !strings.Contains(list, otherPane+" ") || strings.Contains(list, "secret-argv") {
		t.Fatalf("list-panes must list every pane but not what %s may not read:\n%s", me.ID, list)
	}
	if !strings.Contains(list, mine+" ") || !strings.Contains(list, "[sleep 600]") {
		t.Fatalf("list-panes hides the caller's own pane:\n%s", list)
	}
	s.ok(me.ID, "kill-pane", "-t", mine)
	if in, _ := s.e.Agent(other.ID); in.State != agentstate.Running {
		t.Fatalf("the other agent was touched: %+v", in)
	}
}

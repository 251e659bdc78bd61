package orchestrator

import (
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// send-keys is a program's input, not the user's: an agent waiting for the
// user stays waiting. And pane_active follows agentgrid's focus, which is
// how a tool learns that the user looked at one of its panes.
func TestTmuxSendKeysIsNotTheUsersAndActiveFollowsFocus(t *testing.T) {
	s := startShimSession(t, nil, nil)
	in := spawn(t, s.e, "cat")
	waitAgent(t, s.e, in.ID, "running", func(i control.AgentInfo) bool { return i.State == agentstate.Running })
	if err := s.e.Signal(in.ID, agentstate.Signal{Event: "PermissionRequest", State: "waiting", Why: "permission: Bash: ls"}, "claude"); err != nil {
		t.Fatal(err)
	}
	waitAgent(t, s.e, in.ID, "waiting", func(i control.AgentInfo) bool { return i.State == agentstate.Waiting })
	pane := paneID(in.ID)
	s.ok("main", "send-keys", "-t", pane, "-H", "68", "69")
	s.ok("main", "send-keys", "-t", pane, "there", "Enter")
	s.waitScreen(in.ID, "hithere")
	if got, _ := s.e.Agent(in.ID); got.State != agentstate.Waiting {
		t.Fatalf("send-keys counted as the user's answer: %+v", got)
	}
	active := func() string {
		return s.ok("main", "list-panes", "-F", "#{pane_id}=#{pane_active}")
	}
	if got := active(); got != "%0=1\n"+pane+"=0\n" {
		t.Fatalf("before the focus moves: %q", got)
	}
	s.e.Focus(in.ID)
	if got := active(); got != "%0=0\n"+pane+"=1\n" {
		t.Fatalf("pane_active does not follow agentgrid's focus: %q", got)
	}
	if got := s.ok("main", "list-windows", "-F", "#{window_id} #{window_panes}"); !strings.HasPrefix(got, "@0 2\n") {
		t.Fatalf("list-windows = %q", got)
	}
}

package orchestrator

import (
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// oh-my-opencode-slim 2.2.24's tmux panes ([kinds.opencode] omo = true),
// replayed as its TUI plugin makes them: every call with -S and the socket
// from $TMUX, a split-window that starts the attach command at once, the
// pane titled by select-pane -T, its debounced layout (select-layout,
// main-pane-width, select-layout again: with [tmux] follow_layout the
// main view takes that share), the list-panes -a sweep, and C-c then
// kill-pane to close. The focus never moves.
func TestTmuxSlimSubagentProtocol(t *testing.T) {
	s := startShimSession(t, nil, func(c *config.Config) { c.Tmux.FollowLayout = true })
	sock := s.sock
	id := strings.TrimSpace(s.ok("main", "-S", sock, "split-window", "-h", "-d", "-P", "-F", "#{pane_id}", "-t", "%0",
		`sh -c 'trap "echo got-interrupt" INT; echo slim-attached; while :; do sleep 1; done'`))
	a := s.agentOfPane(id)
	waitAgent(t, s.e, a, "started in the grid", func(in control.AgentInfo) bool { return in.Visible && in.State == agentstate.Running })
	s.waitScreen(a, "slim-attached")
	s.ok("main", "-S", sock, "select-pane", "-t", id, "-T", "explorer: find the config loader")
	s.ok("main", "-S", sock, "select-layout", "-t", "%0", "main-vertical")
	s.ok("main", "-S", sock, "set-window-option", "-t", "%0", "main-pane-width", "60%")
	s.ok("main", "-S", sock, "select-layout", "-t", "%0", "main-vertical")
	var name string
	var share int
	if err := s.e.do(func() { name, share = s.e.st.layoutName, s.e.st.mainSize }); err != nil {
		t.Fatal(err)
	}
	if name != "main-vertical" || share != 60 {
		t.Errorf("after the plugin's layout calls: layout %s, main share %d%%, want main-vertical 60%%", name, share)
	}
	if got := s.ok("main", "-S", sock, "list-panes", "-a", "-F", "#{pane_id}|#{pane_title}"); !strings.Contains(got, id+"|explorer: find the config loader\n") {
		t.Fatalf("list-panes -a = %q", got)
	}
	s.ok("main", "-S", sock, "send-keys", "-t", id, "C-c")
	s.waitScreen(a, "got-interrupt")
	s.ok("main", "-S", sock, "kill-pane", "-t", id)
	waitAgent(t, s.e, a, "closed", func(in control.AgentInfo) bool { return in.State == agentstate.Killed })
	if _, errOut, code := s.tmux("main", "-S", sock, "kill-pane", "-t", id); code != 1 || errOut != "can't find pane: "+id+"\n" {
		t.Fatalf("second kill-pane = %d %q", code, errOut)
	}
	s.focusStays("the slim pane protocol")
}

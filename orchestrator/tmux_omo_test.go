package orchestrator

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

const omoQuery = "#{pane_id}\t#{pane_width}\t#{pane_height}\t#{pane_left}\t#{pane_top}\t#{pane_active}\t#{window_width}\t#{window_height}\t#{window_active}\t#{session_attached}\t#{pane_title}"

// Oh My OpenCode's subagent panes: query, spawn a placeholder, activate it
// with respawn-pane, replace it, close it. list-panes lists every pane
// (queued ones too) with 11 fields of integer geometry and 0/1 flags, user
// options read back through formats, and a second close of a gone pane is
// tmux's "can't find pane".
func TestTmuxOpenCodeSubagentProtocol(t *testing.T) {
	s := startShimSession(t, nil, nil)
	s.e.Resize(100, 16)
	var agents []string
	for range 8 {
		agents = append(agents, spawn(t, s.e, "sleep", "600").ID)
	}
	queued := 0
	for _, id := range agents {
		if in, _ := s.e.Agent(id); in.QueuePos > 0 {
			queued++
		}
	}
	if queued == 0 {
		t.Fatal("the test needs a queued agent; make the window smaller")
	}
	if v := s.ok("main", "-V"); !strings.HasPrefix(v, "tmux ") {
		t.Fatalf("-V = %q", v)
	}
	rows := strings.Split(strings.TrimSuffix(s.ok("main", "list-panes", "-t", "%0", "-F", omoQuery), "\n"), "\n")
	if len(rows) != 1+len(agents) {
		t.Fatalf("list-panes listed %d panes, want the main view and %d agents:\n%s", len(rows), len(agents), strings.Join(rows, "\n"))
	}
	for i, r := range rows {
		f := strings.Split(r, "\t")
		if len(f) != 11 {
			t.Fatalf("row %q has %d fields, want 11", r, len(f))
		}
		for _, n := range f[1:8] {
			if _, err := strconv.Atoi(n); err != nil {
				t.Fatalf("row %q: %q is not an integer", r, n)
			}
		}
		for _, flag := range []string{f[5], f[8], f[9]} {
			if flag != "0" && flag != "1" {
				t.Fatalf("row %q: flag %q is not 0 or 1", r, flag)
			}
		}
		if active := f[5] == "1"; active != (i == 0) {
			t.Fatalf("row %q: pane_active must follow agentgrid's focus (the main view)", r)
		}
	}
	if !strings.HasPrefix(rows[0], "%0\t") {
		t.Fatalf("the main view must come first: %q", rows[0])
	}
	placeholder := `/bin/sh -c "printf '%s\n' 'subagent pane ready'; while :; do sleep 86400; done"`
	id := strings.TrimSpace(s.ok("main", "split-window", "-h", "-d", "-P", "-F", "#{pane_id}", "-t", "%0",
		"-e", "OPENCODE_SERVER_PASSWORD=pw", "-e", "AGENTGRID_TOKEN=forged", placeholder))
	a := s.agentOfPane(id)
	s.ok("main", "select-pane", "-t", id, "-T", "omo-subagent-explore")
	s.ok("main", "set-option", "-p", "-t", id, "@omo_attach_server_url", "http://127.0.0.1:4096")
	sweep := s.ok("main", "list-panes", "-a", "-F", "#{pane_id}\t#{pane_title}\t#{@omo_attach_server_url}\t#{pane_current_command} #{pane_start_command}")
	if !strings.Contains(sweep, id+"\tomo-subagent-explore\thttp://127.0.0.1:4096\tsh ") {
		t.Fatalf("list-panes -a does not read the user option back:\n%s", sweep)
	}
	s.ok("main", "select-layout", "main-vertical")
	s.ok("main", "set-window-option", "main-pane-width", "60%")
	s.ok("main", "resize-pane", "-t", "%0", "-x", "40")
	dims := strings.Split(strings.TrimSpace(s.ok("main", "display", "-p", "-t", id, "#{pane_width},#{window_width}")), ",")
	if w, err := strconv.Atoi(dims[1]); err != nil || w != 100 {
		t.Fatalf("window_width = %q", dims)
	}
	// Activate: the real attach replaces the placeholder in the same pane.
	s.ok("main", "respawn-pane", "-k", "-e", "ATTACH=yes", "-t", id, `/bin/sh -c "echo attached=$ATTACH pw=$OPENCODE_SERVER_PASSWORD token-forged=$([ \"$AGENTGRID_TOKEN\" = forged ] && echo yes || echo no); exec sleep 600"`)
	s.waitScreen(a, "attached=yes pw=pw token-forged=no")
	in, _ := s.e.Agent(a)
	if in.State != agentstate.Running || syscall.Kill(in.PID, 0) != nil {
		t.Fatalf("the activated pane is not running: %+v", in)
	}
	// Replace: C-c, then the placeholder again in the same pane.
	s.ok("main", "send-keys", "-t", id, "C-c")
	s.ok("main", "respawn-pane", "-k", "-t", id, placeholder)
	s.ok("main", "select-pane", "-t", id, "-T", "omo-subagent-plan")
	s.waitScreen(a, "subagent pane ready")
	if in, _ := s.e.Agent(a); in.State != agentstate.Running || in.Title != "omo-subagent-plan" {
		t.Fatalf("after replace: %+v", in)
	}
	// Close: C-c, kill-pane; closing again is "can't find pane".
	s.ok("main", "send-keys", "-t", id, "C-c")
	s.ok("main", "kill-pane", "-t", id)
	if _, errOut, code := s.tmux("main", "kill-pane", "-t", id); code != 1 || errOut != "can't find pane: "+id+"\n" {
		t.Fatalf("second kill-pane = %d %q", code, errOut)
	}
	if strings.Contains(s.ok("main", "list-panes", "-a", "-F", "#{pane_id}"), id+"\n") {
		t.Fatal("a killed pane is still listed")
	}
	s.focusStays("the subagent protocol")
}

// The session-isolation commands: a named group of agents, found by
// has-session and list-sessions, closed by kill-session.
func TestTmuxSessionsAreGroupsOfAgents(t *testing.T) {
	s := startShimSession(t, nil, nil)
	if _, errOut, code := s.tmux("main", "has-session", "-t", "omo-agents-1"); code != 1 || errOut != "can't find session: omo-agents-1\n" {
		t.Fatalf("has-session of a missing session = %d %q", code, errOut)
	}
	id := strings.TrimSpace(s.ok("main", "new-session", "-d", "-s", "omo-agents-1", "-P", "-F", "#{pane_id}", "sleep 600"))
	a := s.agentOfPane(id)
	s.ok("main", "has-session", "-t", "omo-agents-1")
	if got := s.ok("main", "list-sessions", "-F", "#{session_name}"); got != "shimtest\nomo-agents-1\n" {
		t.Fatalf("list-sessions = %q", got)
	}
	second := strings.TrimSpace(s.ok("main", "new-window", "-t", "omo-agents-1", "-P", "-F", "#{pane_id}", "sleep 600"))
	if got := s.ok("main", "list-panes", "-t", "omo-agents-1:", "-F", "#{pane_id}"); got != id+"\n"+second+"\n" {
		t.Fatalf("the group's panes = %q", got)
	}
	if strings.Contains(s.ok("main", "list-panes", "-t", "@0", "-F", "#{pane_id}"), id) {
		t.Fatal("a grouped agent is listed in agentgrid's own window")
	}
	s.ok("main", "kill-session", "-t", "omo-agents-1")
	if in, _ := s.e.Agent(a); in.Visible || in.QueuePos > 0 {
		t.Fatalf("kill-session left the agent: %+v", in)
	}
	if _, _, code := s.tmux("main", "has-session", "-t", "omo-agents-1"); code != 1 {
		t.Fatal("the session is still there after kill-session")
	}
	if _, errOut, code := s.tmux("main", "frobnicate"); code != 1 || errOut != "unknown command: frobnicate\n" {
		t.Fatalf("unknown command = %d %q", code, errOut)
	}
	s.ok("main", "wait-for", "-S", "done")
	// With AGENTGRID_TMUX_LOG=1 each call is recorded in the state folder.
	if _, _, code := s.tmuxEnv("main", []string{"AGENTGRID_TMUX_LOG=1"}, "display-message", "-p", "#{session_name}"); code != 0 {
		t.Fatal("display-message failed")
	}
	log, err := os.ReadFile(filepath.Join(s.dir, "tmux-shim.log"))
	if err != nil || !strings.Contains(string(log), "pane=%0\texit=0\t\"display-message\" \"-p\" \"#{session_name}\"") {
		t.Fatalf("tmux-shim.log = %q, %v", log, err)
	}
	s.focusStays("the session commands")
}

// The older teammate backend parks panes in a hidden session and brings
// them back: join-pane into it takes the agent off screen, still running;
// join-pane into agentgrid's window puts it back in the grid.
func TestTmuxJoinPaneHidesAndShows(t *testing.T) {
	s := startShimSession(t, nil, nil)
	if _, _, code := s.tmux("main", "has-session", "-t", "claude-hidden"); code != 1 {
		t.Fatal("has-session found a session nobody made")
	}
	s.ok("main", "new-session", "-d", "-s", "claude-hidden")
	if in := s.e.List(); len(in) != 0 {
		t.Fatalf("new-session without a command started agents: %+v", in)
	}
	id := strings.TrimSpace(s.ok("main", "split-window", "-d", "-P", "-F", "#{pane_id}", "echo parked; exec sleep 600"))
	a := s.agentOfPane(id)
	waitAgent(t, s.e, a, "placed in the grid", func(in control.AgentInfo) bool { return in.Visible && in.State == agentstate.Running })
	s.ok("main", "join-pane", "-d", "-s", id, "-t", "claude-hidden:")
	in, _ := s.e.Agent(a)
	if in.Visible || in.QueuePos != 0 || in.State != agentstate.Running {
		t.Fatalf("after join-pane into the hidden session: %+v", in)
	}
	if got := s.ok("main", "list-panes", "-t", "claude-hidden:", "-F", "#{pane_id}"); got != id+"\n" {
		t.Fatalf("the hidden session's panes = %q", got)
	}
	s.ok("main", "join-pane", "-d", "-s", id, "-t", "%0")
	waitAgent(t, s.e, a, "back in the grid", func(in control.AgentInfo) bool { return in.Visible && in.State == agentstate.Running })
	s.waitScreen(a, "parked")
	s.focusStays("join-pane")
}

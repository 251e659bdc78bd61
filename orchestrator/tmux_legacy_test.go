package orchestrator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// slowShell starts slowly and, like shells that reset the terminal while
// they start, throws away whatever was typed before its prompt.
const slowShell = `#!/bin/sh
sleep 1
timeout --foreground 0.3 cat >/dev/null
PS1='slow$ ' exec sh -i
`

// Claude Code's legacy protocol (before 2.1.183): split-window without a
// command starts the shell, and the teammate is typed into it with
// send-keys. The keys are held until the shell's prompt is there, so a slow
// shell start loses nothing.
func TestTmuxClaudeLegacyProtocol(t *testing.T) {
	shell := filepath.Join(t.TempDir(), "slowsh")
	if err := os.WriteFile(shell, []byte(slowShell), 0o700); err != nil {
		t.Fatal(err)
	}
	s := startShimSession(t, append(os.Environ(), "SHELL="+shell), nil)
	spawn(t, s.e, "sleep", "600")

	if v := s.ok("main", "-V"); !strings.HasPrefix(v, "tmux 3.") {
		t.Fatalf("-V = %q", v)
	}
	leader := strings.TrimSpace(s.ok("main", "display-message", "-p", "#{pane_id}"))
	window := strings.TrimSpace(s.ok("main", "display-message", "-p", "#{session_name}:#{window_index}"))
	if leader != "%0" || window != "shimtest:0" {
		t.Fatalf("leader %q window %q, want %%0 and shimtest:0", leader, window)
	}
	before := s.ok("main", "list-panes", "-t", window, "-F", "#{pane_id}")
	if before != "%0\n%1\n" {
		t.Fatalf("list-panes = %q, want the main view and the agent", before)
	}
	id := strings.TrimSpace(s.ok("main", "split-window", "-t", leader, "-h", "-l", "70%", "-P", "-F", "#{pane_id}"))
	a := s.agentOfPane(id)
	s.focusStays("split-window without -d")
	s.ok("main", "select-pane", "-t", id, "-P", "bg=default,fg=red")
	s.ok("main", "set-option", "-p", "-t", id, "pane-border-style", "fg=red")
	s.ok("main", "set-option", "-p", "-t", id, "pane-active-border-style", "fg=red")
	s.ok("main", "set-option", "-p", "-t", id, "pane-border-format", "#[fg=red,bold] #{pane_title} #[default]")
	s.ok("main", "select-pane", "-t", id, "-T", "gamma")
	s.ok("main", "set-option", "-w", "-t", window, "pane-border-status", "top")
	s.ok("main", "select-layout", "-t", window, "main-vertical")
	s.ok("main", "resize-pane", "-t", leader, "-x", "30%")
	// Typed while the shell is still starting.
	s.ok("main", "send-keys", "-t", id, "cd "+t.TempDir()+" && echo legacy-$((6*7))", "Enter")
	s.ok("main", "send-keys", "-t", id, "-l", "echo literal-Enter")
	s.ok("main", "send-keys", "-t", id, "Enter")
	s.waitScreen(a, "legacy-42")
	s.waitScreen(a, "literal-Enter")
	if got := s.ok("main", "capture-pane", "-p", "-t", id); !strings.Contains(got, "legacy-42") {
		t.Fatalf("capture-pane -p = %q", got)
	}
	if got := s.ok("main", "display-message", "-p", "-t", id, "#{pane_title}"); got != "gamma\n" {
		t.Fatalf("pane_title = %q", got)
	}
	s.ok("main", "kill-pane", "-t", id)
	if _, errOut, code := s.tmux("main", "kill-pane", "-t", id); code != 1 || errOut != "can't find pane: "+id+"\n" {
		t.Fatalf("second kill-pane = %d %q", code, errOut)
	}
	s.focusStays("the legacy protocol")
}

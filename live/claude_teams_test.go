package live

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClaudeAgentTeamsOpenAgents runs Claude Code with [kinds.claude] teams
// = true as agentgrid's main view and has the model start a teammate: Claude
// Code drives agentgrid's tmux entry point (split-window of a `cat`
// placeholder, the pane styles and title, respawn-pane -k with the
// teammate's command line), and the teammate runs as an agentgrid agent
// beside the main view, titled with its name, child of the main view, and
// gets a turn of its own from the lead's message; the focus stays on the
// main view. Every shim call is logged (AGENTGRID_TMUX_LOG=1) and none fails.
func TestClaudeAgentTeamsOpenAgents(t *testing.T) {
	h := claudeHarness(t)
	h.writeFile(".config/agentgrid/config.toml", "[kinds.claude]\nteams = true\nenv = { AGENTGRID_TMUX_LOG = \"1\" }\n")
	h.start("claude")
	h.screenHas("? for shortcuts", 30*time.Second)
	h.waitState("main", "idle", "hook:claude", "session started", 30*time.Second)
	shimLog := filepath.Join(h.home, ".state", "agentgrid", h.session, "tmux-shim.log")
	defer func() {
		if t.Failed() {
			b, _ := os.ReadFile(shimLog)
			t.Logf("tmux-shim.log:\n%s", b)
		}
	}()

	h.prompt(`CALL Agent {"description":"say hi","prompt":"hello from the lead","name":"mate"}`)
	var mate agentInfo
	h.waitFor(60*time.Second, func() bool {
		for _, a := range h.list() {
			if a.Parent == "main" {
				mate = a
				return true
			}
		}
		return false
	}, "the teammate as an agent of the main view")
	h.waitFor(60*time.Second, func() bool {
		s, err := h.client("capture", mate.ID)
		return err == nil && strings.Contains(s, "LIVE-REPLY: <teammate-message")
	}, "the teammate's own turn on the lead's message")
	h.waitState(mate.ID, "idle", "hook:claude", "turn finished", 30*time.Second)
	h.screenHas("─ 1 mate ", 10*time.Second)
	if st := agentgridStatusLine(h.capture()); !strings.HasSuffix(strings.TrimSpace(st), "Claude Code") {
		t.Errorf("the focus left the main view: status line %q", st)
	}

	b, err := os.ReadFile(shimLog)
	if err != nil {
		t.Fatalf("no tmux shim log: %v", err)
	}
	log := string(b)
	for _, want := range []string{
		`exit=0	"split-window" "-d" "-t" "%0"`,
		`exit=0	"select-pane" "-t" "%1" "-T" "mate"`,
		`exit=0	"respawn-pane" "-k" "-t" "%1" "--" "cd ` + h.proj,
		"--agent-name mate",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("tmux-shim.log lacks %q", want)
		}
	}
	if strings.Contains(log, "exit=1") {
		t.Errorf("a tmux call of Claude Code failed")
	}
	if t.Failed() {
		return
	}
	t.Logf("tmux calls of Claude Code:\n%s", log)
}

// agentgridStatusLine is the last non-blank line of a screen: agentgrid's status line.
func agentgridStatusLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return lines[i]
		}
	}
	return ""
}

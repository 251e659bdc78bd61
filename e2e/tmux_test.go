package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// agentgrid runs inside tmux, and a program in one of its panes runs
// `tmux split-window`: the new pane is an agentgrid agent, and the outer
// tmux (whose TMUX the session inherited) gets no new pane.
func TestTmuxInsideAgentgridStaysInAgentgrid(t *testing.T) {
	h := newHarness(t, 120, 30, "")
	outerSock := strings.TrimSpace(h.mustTmux("display-message", "-p", "-t", "e2e", "#{socket_path}"))
	outerPane := strings.TrimSpace(h.mustTmux("display-message", "-p", "-t", "e2e", "#{pane_id}"))
	before := h.mustTmux("list-panes", "-a", "-F", "#{pane_id}")
	// The harness's shell runs with a cleared environment: give agentgrid
	// the TMUX and TMUX_PANE a shell in that tmux would have.
	h.run([]string{"env", "TMUX=" + outerSock + ",1,0", "TMUX_PANE=" + outerPane,
		"agentgrid", "--session", h.session, "--", "sh"})
	h.typeText(`tmux split-window -d -P -F 'made=#{pane_id}:#{session_name}' 'echo child-of-agentgrid; exec sleep 600'`)
	h.keys("Enter")
	h.waitFor(15*time.Second, func() bool { return strings.Contains(h.capture(), "made=%1:"+h.session) }, "the split-window's new pane id")
	var a agent
	h.waitFor(15*time.Second, func() bool {
		var ok bool
		// Started: after its one line it sleeps, so it may count as idle.
		a, ok = h.agent("a1")
		return ok && a.PID > 0 && slices.Contains(liveStates, a.State)
	}, "the new pane as a running agentgrid agent")
	h.waitFor(15*time.Second, func() bool { return strings.Contains(h.mustClient("capture", "a1"), "child-of-agentgrid") }, "the agent's output")
	if after := h.mustTmux("list-panes", "-a", "-F", "#{pane_id}"); after != before {
		t.Fatalf("the outer tmux changed: panes before %q, after %q", before, after)
	}
	h.typeText(`tmux kill-pane -t %1; echo "killed=$?"`)
	h.keys("Enter")
	h.waitFor(15*time.Second, func() bool { return strings.Contains(h.capture(), "killed=0") }, "kill-pane to finish")
	h.waitFor(15*time.Second, func() bool {
		a, _ = h.agent("a1")
		return a.State == "killed"
	}, "the killed pane's agent to end")
}

// A session started from a binary that is not on PATH (go run, a build in
// a temporary folder) still gives every pane the agentgrid command, the
// session's own binary.
func TestPanesHaveTheSessionsAgentgrid(t *testing.T) {
	h := newHarness(t, 120, 30, "")
	h.run([]string{"env", "PATH=/usr/bin:/bin", binary, "--session", h.session, "--", "sh"})
	h.typeText(`agentgrid spawn --title from-pane -- sh -c 'echo spawned-from-pane; exec sleep 600'; echo "spawn=$?"`)
	h.keys("Enter")
	h.waitFor(15*time.Second, func() bool { return strings.Contains(h.capture(), "spawn=0") }, "agentgrid spawn in the main view to succeed")
	h.waitFor(15*time.Second, func() bool {
		out, err := h.client("capture", "a1")
		return err == nil && strings.Contains(out, "spawned-from-pane")
	}, "the spawned agent's output")
}

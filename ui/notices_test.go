package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/orchestrator"
)

// finish moves agent i of the fake engine's snapshot to state st.
func finish(eng *fakeEngine, i int, st agentstate.State, why string) {
	eng.mu.Lock()
	defer eng.mu.Unlock()
	eng.snap.Agents[i].State, eng.snap.Agents[i].Why = st, why
	eng.snap.Panes[i].Agent.State = st
}

// Done and failed ring and notify (OSC 9 and OSC 777) when [ui] notify_on
// names them, and not otherwise.
func TestNoticesOnDoneAndFailed(t *testing.T) {
	cfg := testConfig()
	cfg.UI.OSC9, cfg.UI.OSC777 = true, true
	cfg.UI.NotifyOn = []string{"waiting", "done", "failed"}
	m, eng := newTestModelConfig(t, testSnapshot(), cfg)
	finish(eng, 0, agentstate.Failed, "exit 3")
	raw := rawOutput(settle(m, m.refresh()))
	if !strings.HasPrefix(raw, "\a") || !strings.Contains(raw, "\x1b]9;agentgrid: a1-title is failed: exit 3\a") ||
		!strings.Contains(raw, "\x1b]777;notify;agentgrid;agentgrid: a1-title is failed: exit 3\a") {
		t.Errorf("a1 failed: wrote %q", raw)
	}
	if raw := rawOutput(settle(m, m.refresh())); raw != "" {
		t.Errorf("still failed rang again: %q", raw)
	}
	m.cfg.UI.NotifyOn = []string{"waiting"}
	finish(eng, 1, agentstate.Done, "")
	if raw := rawOutput(settle(m, m.refresh())); raw != "" {
		t.Errorf("done, not in notify_on, wrote %q", raw)
	}
}

// The pane the user looks at gets no notice: not when it waits, not when it
// ends; once the terminal agentgrid runs in loses the focus, it does.
func TestNoNoticeForThePaneLookedAt(t *testing.T) {
	cfg := testConfig()
	cfg.UI.OSC9 = true
	cfg.UI.NotifyOn = []string{"waiting", "done"}
	m, eng := newTestModelConfig(t, testSnapshot(), cfg)
	eng.mu.Lock()
	eng.snap.Focus = "a1"
	eng.snap.Agents[0].State, eng.snap.Panes[0].Agent.State = agentstate.Waiting, agentstate.Waiting
	eng.snap.WaitSeq++
	eng.snap.LastWaiting = "a1"
	eng.mu.Unlock()
	if raw := rawOutput(settle(m, m.refresh())); raw != "" {
		t.Errorf("the focused pane waiting wrote %q", raw)
	}
	m.onOuterFocus(false)
	finish(eng, 0, agentstate.Done, "")
	if raw := rawOutput(settle(m, m.refresh())); !strings.Contains(raw, "\x1b]9;agentgrid: a1-title is done\a") {
		t.Errorf("the focused pane of an unfocused terminal ended: wrote %q", raw)
	}
}

// A pane's own notification reaches the outer terminal with the pane's
// title, sanitised, unless the user looks at that pane or pane_notices is
// off.
func TestPaneNoticesForwardedWithTitle(t *testing.T) {
	cfg := testConfig()
	cfg.UI.OSC9, cfg.UI.Bell = true, false
	m, eng := newTestModelConfig(t, testSnapshot(), cfg)
	add := func(agent, title, body string) {
		eng.mu.Lock()
		eng.reqs = append(eng.reqs, orchestrator.PaneRequest{Seq: uint64(len(eng.reqs) + 1), Agent: agent, Kind: orchestrator.PaneNotice, Title: title, Body: body})
		eng.mu.Unlock()
	}
	add("a2", "Tests\x1b]52;c;eA==\a", "all \u202egreen\x07")
	raw := rawOutput(settle(m, m.refresh()))
	if raw != "\x1b]9;a2-title: Tests: all green\a" {
		t.Errorf("a2's notice wrote %q", raw)
	}
	add(control.MainID, "", "from main") // main has the focus
	if raw := rawOutput(settle(m, m.refresh())); raw != "" {
		t.Errorf("the focused pane's own notice wrote %q", raw)
	}
	m.cfg.UI.PaneNotices = false
	add("a1", "", "quiet")
	if raw := rawOutput(settle(m, m.refresh())); raw != "" {
		t.Errorf("pane_notices = false, yet a1's notice wrote %q", raw)
	}
}

// A pane's clipboard write reaches the outer terminal only with
// pane_osc52 = "write", and only as base64.
func TestPaneClipboardOnlyWhenAllowed(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	add := func(data string) {
		eng.mu.Lock()
		eng.reqs = append(eng.reqs, orchestrator.PaneRequest{Seq: uint64(len(eng.reqs) + 1), Agent: "a1", Kind: orchestrator.PaneClipboard, Data: data})
		eng.mu.Unlock()
	}
	add("c2VjcmV0")
	if raw := rawOutput(settle(m, m.refresh())); strings.Contains(raw, "]52;") {
		t.Errorf("pane_osc52 = off by default, yet wrote %q", raw)
	}
	m.cfg.Clipboard.PaneOSC52 = config.PaneOSC52Write
	add("c2VjcmV0")
	if raw := rawOutput(settle(m, m.refresh())); raw != "\x1b]52;c;c2VjcmV0\a" {
		t.Errorf("pane_osc52 = write: wrote %q", raw)
	}
	add("x\x1b]2;pwned")
	if raw := rawOutput(settle(m, m.refresh())); raw != "" {
		t.Errorf("a write that is not base64 went out: %q", raw)
	}
}

// The help overlay covers copy, notices, recording and worktrees.
func TestHelpCoversCopyNoticesRecordingWorktrees(t *testing.T) {
	var all strings.Builder
	for _, sec := range helpSections("ctrl+b", keyOptions{}, false) {
		for _, r := range sec.rows {
			all.WriteString(r[0] + " " + r[1] + "\n")
		}
	}
	for _, want := range []string{"copy the marked text", "agentgrid paste", "notify_on", "--record", "start / stop recording", "--worktree", "--remove-worktree"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the help lacks %q", want)
		}
	}
}

// An agent that started and finished between two frames was never drawn:
// its end rings all the same.
func TestNoticeForAnAgentNeverSeenRunning(t *testing.T) {
	cfg := testConfig()
	cfg.UI.OSC9 = true
	cfg.UI.NotifyOn = []string{"done"}
	m, eng := newTestModelConfig(t, testSnapshot(), cfg)
	eng.mu.Lock()
	snap := eng.snap
	quick := snap.Agents[0]
	quick.ID, quick.Title, quick.State = "a3", "quick", agentstate.Done
	snap.Agents = append(slices.Clone(snap.Agents), quick)
	eng.snap = snap
	eng.mu.Unlock()
	if raw := rawOutput(settle(m, m.refresh())); !strings.Contains(raw, "\x1b]9;agentgrid: quick is done\a") {
		t.Errorf("a3 came and went between frames: wrote %q", raw)
	}
}

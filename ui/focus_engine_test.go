package ui

import (
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// TestKeysAfterFocusOnAgentTheFrameHasNotShownYet runs the real engine with
// real processes: an agent is on screen in the engine, but no frame has
// brought it to the model yet (the frame pump is behind on a busy machine),
// when the user types prefix, its number and text in one go. The focus
// switch must find the agent and the text must reach it, not the pane
// focused before.
func TestKeysAfterFocusOnAgentTheFrameHasNotShownYet(t *testing.T) {
	cfg := config.Default()
	eng := realEngine(t, cfg, "focuslag", 100, 29)
	m := newModel(eng, cfg, testStyles(), time.Now)
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	m.Update(teaWindowSize(100, 30))
	m.View() // the last frame the model drew: the main view alone

	a, err := eng.Spawn(control.SpawnRequest{Title: "typist", Argv: []string{"/bin/sh", "-c", "printf ready; exec cat"}})
	if err != nil {
		t.Fatal(err)
	}
	screen := func(id string) string { return engineScreen(eng, id) }
	// Wait on the engine only: the model is not refreshed meanwhile.
	waitFor(t, "the agent on screen in the engine, its cat running", func() bool {
		return strings.Contains(screen(a.ID), "ready")
	})
	info, _ := eng.Agent(a.ID)
	if info.Number <= 0 {
		t.Fatalf("agent %s has no pane number: %+v", a.ID, info)
	}

	// One input batch: no command's result and no frame between the keys.
	for _, k := range []string{"ctrl+b", strconv.Itoa(info.Number), "o", "k"} {
		m.Update(keyOf(t, k))
	}
	if f := eng.Snapshot().Focus; f != a.ID {
		t.Errorf("focus after ctrl+b %d is %q, want %s", info.Number, f, a.ID)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(screen(a.ID), "readyok") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // polling a condition, not synchronising
	}
	if !strings.Contains(screen(a.ID), "readyok") {
		t.Errorf("the text typed after ctrl+b %d did not reach %s; main view shows %q", info.Number, a.ID, strings.TrimSpace(screen(control.MainID)))
	}
}

// engineScreen is the text on agent id's screen in the engine's snapshot
// ("main" for the main view), "" when it has no pane there.
func engineScreen(eng *orchestrator.Engine, id string) string {
	s := eng.Snapshot()
	var pv *orchestrator.PaneView
	if id == control.MainID {
		pv = s.Main
	}
	for i := range s.Panes {
		if s.Panes[i].Agent.ID == id {
			pv = &s.Panes[i]
		}
	}
	return paneText(pv)
}

// paneText is the text on a pane's screen, "" for none.
func paneText(pv *orchestrator.PaneView) string {
	if pv == nil || pv.Term == nil {
		return ""
	}
	var f vterm.Frame
	pv.Term.Frame(&f, 0)
	var sb strings.Builder
	for _, r := range f.Cells {
		for _, c := range r {
			sb.WriteString(c.Content)
		}
	}
	return sb.String()
}

// TestKeysAfterGoToAnOffScreenAgentReachIt: prefix and the number of an
// agent that is not on screen, then text, typed in one go. Bringing it into
// view is an engine command, whose answer comes after the keys; the text
// waits for it and then goes to that agent, not to the pane focused
// before (the main view).
func TestKeysAfterGoToAnOffScreenAgentReachIt(t *testing.T) {
	// The grid holds three agents at this size; a4 to a6 are off screen.
	m, eng, _ := engineModel(t, 160, 40, 6)
	waitFor(t, "a3 on screen", func() bool { m.refresh(); return m.pane("a3") != nil })
	if m.pane("a5") != nil {
		t.Fatal("a5 is on screen; the test needs it off screen")
	}
	var cmds []tea.Cmd
	for _, k := range []string{"ctrl+b", "5", "o", "k"} {
		_, cmd := m.Update(keyOf(t, k))
		cmds = append(cmds, cmd)
	}
	if got := engineScreen(eng, control.MainID); strings.Contains(got, "ok") {
		t.Fatalf("the text typed for a5 went to the main view: %q", strings.TrimSpace(got))
	}
	for _, cmd := range cmds {
		settle(m, cmd)
	}
	if m.snap.Focus != "a5" {
		t.Errorf("focus after prefix 5 is %q, want a5", m.snap.Focus)
	}
	waitFor(t, "the text typed after prefix 5 on a5's screen", func() bool { return strings.Contains(engineScreen(eng, "a5"), "ok") })
	if got := engineScreen(eng, control.MainID); strings.Contains(got, "ok") {
		t.Errorf("the text typed for a5 reached the main view too: %q", strings.TrimSpace(got))
	}
}

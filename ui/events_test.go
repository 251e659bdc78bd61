package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

func TestPasteIsBracketedWhenAsked(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	m.Update(tea.PasteMsg{Content: "a\nb"})
	_, _ = m.snap.Main.Term.(*vterm.Terminal).Write([]byte("\x1b[?2004h"))
	m.Update(tea.PasteMsg{Content: "c"})
	got := eng.takeInputs()
	if len(got) != 2 || got[1] != "main:\x1b[200~c\x1b[201~" {
		t.Errorf("pastes = %q", got)
	}
}

func TestFocusEventsForwarded(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	_, _ = m.snap.Main.Term.(*vterm.Terminal).Write([]byte("\x1b[?1004h"))
	_, _ = m.snap.Panes[0].Term.(*vterm.Terminal).Write([]byte("\x1b[?1004h"))
	m.Update(tea.BlurMsg{})
	m.Update(tea.FocusMsg{})
	// Moving focus between panes tells both.
	eng.Focus("a1")
	m.Update(frameMsg{})
	eng.mu.Lock()
	got := eng.sends
	eng.mu.Unlock()
	want := []string{"main:\x1b[O", "main:\x1b[I", "main:\x1b[O", "a1:\x1b[I"}
	if !slices.Equal(got, want) {
		t.Errorf("focus reports = %q, want %q", got, want)
	}
	if len(eng.takeInputs()) != 0 {
		t.Error("focus reports must not count as user input")
	}
}

// TestLabelTimerOnlyWhileLabelsMove checks the one-shot label timer: armed
// for the next second while a running agent's elapsed time is shown, not
// re-armed for the same deadline, and not armed at all when every label is
// static.
func TestLabelTimerOnlyWhileLabelsMove(t *testing.T) {
	var armed []time.Duration
	rec := func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		armed = append(armed, d)
		return nil
	}
	snap := testSnapshot()
	eng := newFakeEngine(snap, testClock)
	m := newModel(eng, testConfig(), testStyles(), testClock)
	m.tick = rec
	m.Update(teaWindowSize(80, 24))
	if len(armed) != 1 || armed[0] != time.Second {
		t.Fatalf("timers armed = %v, want one of 1s (agents 12s into their state)", armed)
	}
	m.Update(frameMsg{})
	if len(armed) != 1 {
		t.Errorf("the same deadline was armed again: %v", armed)
	}

	// Everything finished: labels are static, nothing is armed.
	armed = nil
	fin := testSnapshot()
	for _, p := range append([]*orchestrator.PaneView{fin.Main}, &fin.Panes[0], &fin.Panes[1]) {
		p.Agent.State = agentstate.Done
	}
	eng2 := newFakeEngine(fin, testClock)
	m2 := newModel(eng2, testConfig(), testStyles(), testClock)
	m2.tick = rec
	m2.Update(teaWindowSize(80, 24))
	m2.Update(frameMsg{})
	if len(armed) != 0 {
		t.Errorf("timers armed with only finished agents: %v", armed)
	}
}

func TestStaleLabelTickIgnored(t *testing.T) {
	m, _ := newTestModel(t, testSnapshot())
	gen := m.labelGen
	if cmd := m.onLabelTick(labelTickMsg{gen: gen - 1}); cmd != nil {
		t.Error("a superseded tick did work")
	}
}

func TestMouseModeFollowsPanes(t *testing.T) {
	m, _ := newTestModel(t, testSnapshot())
	if m.View().MouseMode != tea.MouseModeCellMotion {
		t.Fatal("default mouse mode")
	}
	_, _ = m.snap.Panes[1].Term.(*vterm.Terminal).Write([]byte("\x1b[?1003h"))
	m.Update(frameMsg{})
	if m.View().MouseMode != tea.MouseModeAllMotion {
		t.Error("a pane asking for all motion did not get it")
	}
	m.cfg.UI.Mouse = false
	m.Update(frameMsg{})
	if m.View().MouseMode != tea.MouseModeNone {
		t.Error("mouse disabled in the config but still reported")
	}
}

// TestOverlaysKeepFrameShape opens every overlay at several sizes: the
// frame keeps exactly its width and height.
func TestOverlaysKeepFrameShape(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {20, 6}, {33, 9}, {240, 70}} {
		for _, keys := range [][]string{{"ctrl+b", "c"}, {"ctrl+b", "w"}, {"ctrl+b", "?"}, {"ctrl+b", "q"}} {
			m, _ := newTestModel(t, testSnapshot())
			m.Update(teaWindowSize(sz[0], sz[1]))
			press(t, m, keys...)
			if m.overlay == nil {
				t.Fatalf("%v at %dx%d: no overlay", keys, sz[0], sz[1])
			}
			m.View()
			checkWidths(t, m.final, sz[0], sz[1])
		}
	}
}

// TestLabelRefreshesCoalesce checks that elapsed times ticking over at
// different phases of the second cost one refresh a second, not one per
// pane.
func TestLabelRefreshesCoalesce(t *testing.T) {
	var armed []time.Duration
	rec := func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		armed = append(armed, d)
		return nil
	}
	now := testNow
	clock := func() time.Time { return now }
	snap := testSnapshot()
	// Three panes whose labels tick over 0.2 s, 0.5 s and 0.8 s apart.
	snap.Main.Agent.Since = testNow.Add(-12*time.Second - 800*time.Millisecond)
	snap.Panes[0].Agent.Since = testNow.Add(-5*time.Second - 500*time.Millisecond)
	snap.Panes[1].Agent.Since = testNow.Add(-7*time.Second - 200*time.Millisecond)
	eng := newFakeEngine(snap, clock)
	m := newModel(eng, testConfig(), testStyles(), clock)
	m.tick = rec
	m.Update(teaWindowSize(80, 24))
	if len(armed) != 1 || armed[0] != 200*time.Millisecond {
		t.Fatalf("first timer = %v, want 200ms (the earliest label change)", armed)
	}
	for i := range 5 {
		now = now.Add(armed[len(armed)-1])
		armed = armed[:0]
		m.Update(labelTickMsg{gen: m.labelGen})
		if len(armed) != 1 || armed[0] != time.Second {
			t.Fatalf("refresh %d: timer = %v, want one of 1s (no refresh per pane)", i, armed)
		}
		// A frame in between (output arrived) does not re-arm it earlier.
		m.Update(frameMsg{})
		if len(armed) != 1 {
			t.Fatalf("refresh %d: a frame re-armed the label timer: %v", i, armed)
		}
	}
}

// TestIdleSessionArmsNoSecondTimer checks the idle goal's premise: a session
// whose agents are all idle or waiting arms no timer until a minute label
// changes, and panes whose minutes tick over within the same ten seconds of
// the wall clock share that one refresh.
func TestIdleSessionArmsNoSecondTimer(t *testing.T) {
	var armed []time.Duration
	rec := func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		armed = append(armed, d)
		return nil
	}
	now := testNow.Add(3 * time.Second) // 12:00:03
	clock := func() time.Time { return now }
	snap := testSnapshot()
	snap.Main.Agent.State = agentstate.Idle
	snap.Panes[0].Agent.State = agentstate.Waiting
	// Idle since 12:00:00.5, 12:00:01.2 and 12:00:02.9: their minutes tick
	// over at 12:01:00.5, 12:01:01.2 and 12:01:02.9, all before 12:01:10.
	snap.Main.Agent.Since = testNow.Add(500 * time.Millisecond)
	snap.Panes[0].Agent.Since = testNow.Add(1200 * time.Millisecond)
	snap.Panes[1].Agent.Since = testNow.Add(2900 * time.Millisecond)
	eng := newFakeEngine(snap, clock)
	m := newModel(eng, testConfig(), testStyles(), clock)
	m.tick = rec
	m.Update(teaWindowSize(80, 24))
	want := testNow.Add(70 * time.Second).Sub(now)
	if len(armed) != 1 || armed[0] != want {
		t.Fatalf("timers armed = %v, want one of %v (12:01:10, the first ten seconds after every minute change)", armed, want)
	}
	if v := viewText(m); !strings.Contains(v, "○ idle <1m") || !strings.Contains(v, "▲ waiting <1m") {
		t.Fatalf("frame lacks the resting badges:\n%s", v)
	}
	now = now.Add(want)
	armed = armed[:0]
	m.Update(labelTickMsg{gen: m.labelGen})
	v := viewText(m)
	for _, b := range []string{"○ idle 1m", "▲ waiting 1m"} {
		if !strings.Contains(v, b) {
			t.Errorf("after the refresh the frame lacks %q:\n%s", b, v)
		}
	}
	// The next change is each pane's second minute, again on one refresh.
	if want := testNow.Add(130 * time.Second).Sub(now); len(armed) != 1 || armed[0] != want {
		t.Fatalf("timers armed after the refresh = %v, want one of %v", armed, want)
	}
}

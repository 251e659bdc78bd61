package ui

import (
	"fmt"
	"image/color"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// cmdWalker runs every command a model returns, the commands inside
// batches and sequences too, checks that the terminal runtime carries out
// or delivers each message, and hands the model's own messages back to it
// (to a bounded depth), so their commands are walked as well.
type cmdWalker struct {
	t      *testing.T
	update func(tea.Msg) tea.Cmd
	seen   map[string]bool // message types met
}

func (w *cmdWalker) walk(cmd tea.Cmd, depth int) {
	w.t.Helper()
	if cmd == nil {
		return
	}
	msg := cmd()
	w.seen[fmt.Sprintf("%T", msg)] = true
	if !termrt.Supported(msg) {
		w.t.Errorf("a command returned %T (%v), which the terminal runtime does not carry out", msg, msg)
		return
	}
	if cmds, ok := termrt.Commands(msg); ok {
		for _, c := range cmds {
			w.walk(c, depth)
		}
		return
	}
	switch msg.(type) {
	case nil, tea.QuitMsg, tea.RawMsg:
		return
	}
	if depth < 3 {
		w.walk(w.update(msg), depth+1)
	}
}

// TestEveryCommandTheModelsReturnIsSupported drives the session model
// through every binding of every key mode, the mouse, paste, focus,
// resizes, frames and timers, and walks every command they return: the
// runtime must carry out each one (tea.Printf or tea.Exec, for example,
// would fail here).
func TestEveryCommandTheModelsReturnIsSupported(t *testing.T) {
	seen := map[string]bool{}
	var eng *fakeEngine
	fresh := func() (*Model, *cmdWalker) {
		var m *Model
		m, eng = newTestModel(t, testSnapshot())
		// Timers fire at once, so their messages are walked too.
		m.tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
			return func() tea.Msg { return fn(testNow.Add(d)) }
		}
		w := &cmdWalker{t: t, seen: seen, update: func(msg tea.Msg) tea.Cmd {
			_, cmd := m.Update(msg)
			m.View()
			return cmd
		}}
		return m, w
	}
	follow := []string{"enter", "esc", "y", "n", "x", "up", "down", "a", "q", "w", "/", "?", "n", "N"}
	openers := map[keyMode][]string{
		modeDirect: nil,
		modePrefix: {"ctrl+b"},
		modeScroll: {"ctrl+b", "["},
		modeAgents: {"ctrl+b", "w"},
		modeHelp:   {"ctrl+b", "?"},
	}
	for _, b := range keymap {
		for _, k := range b.keys {
			if k == prefixToken {
				k = "ctrl+b"
			}
			m, w := fresh()
			for _, o := range openers[b.mode] {
				w.walk(press(t, m, o), 0)
			}
			w.walk(press(t, m, k), 0)
			// Whatever the key opened (a prompt, a question, a list), the
			// keys that answer it.
			for _, f := range follow {
				w.walk(press(t, m, f), 0)
			}
		}
	}
	m, w := fresh()
	for _, msg := range []tea.Msg{
		tea.MouseClickMsg{X: 5, Y: 5, Button: tea.MouseLeft}, tea.MouseMotionMsg{X: 6, Y: 5, Button: tea.MouseLeft},
		tea.MouseReleaseMsg{X: 6, Y: 5, Button: tea.MouseLeft}, tea.MouseWheelMsg{X: 5, Y: 5, Button: tea.MouseWheelUp},
		tea.MouseWheelMsg{X: 5, Y: 5, Button: tea.MouseWheelDown}, tea.PasteMsg{Content: "pasted"},
		tea.BlurMsg{}, tea.FocusMsg{}, tea.BackgroundColorMsg{Color: color.White}, tea.ForegroundColorMsg{Color: color.Black},
		teaWindowSize(100, 30), teaWindowSize(10, 3), teaWindowSize(80, 24),
		frameMsg{}, labelTickMsg{gen: m.labelGen}, holdTickMsg{gen: m.holdGen},
	} {
		w.walk(w.update(msg), 0)
	}
	// An agent starts waiting: the bell (and OSC 9) go out raw.
	eng.mu.Lock()
	eng.snap.Panes[1].Agent.State = agentstate.Waiting
	eng.snap.Agents[1].State = agentstate.Waiting
	eng.snap.WaitSeq++
	eng.snap.LastWaiting = "a2"
	eng.mu.Unlock()
	m.cfg.UI.OSC9 = true
	w.walk(w.update(frameMsg{}), 0)

	// The walk met the commands the model uses.
	for _, want := range []string{"tea.QuitMsg", "tea.RawMsg", "tea.clearScreenMsg", "ui.labelTickMsg"} {
		if !seen[want] {
			t.Errorf("no command returned %s: the walk misses part of the model (met %v)", want, seen)
		}
	}
}

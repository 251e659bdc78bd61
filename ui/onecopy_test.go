package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
)

// TestOneTitleOneFocus runs the real engine with real processes under the
// model: a pane's name is the engine's (what `agentgrid list` and tmux's
// pane_title show) in the border and the status line, and focus is the
// snapshot's Focus alone: the highlighted border, the status line's title,
// the pane that gets the keys and the cursor, and the engine's fast poke
// for the focused pane's output all follow it as it moves.
func TestOneTitleOneFocus(t *testing.T) {
	cfg := config.Default()
	eng := realEngine(t, cfg, "onecopy", 100, 29)
	// No title asked for: the engine names it after its command's base name.
	plainSh, err := eng.Spawn(control.SpawnRequest{Argv: []string{"/bin/sh", "-c", "printf ready; exec cat"}})
	if err != nil {
		t.Fatal(err)
	}
	// Its program sets a title (OSC 2): the engine's name follows it.
	titled, err := eng.Spawn(control.SpawnRequest{Argv: []string{"/bin/sh", "-c", `printf '\033]2;build-x\007ready'; exec cat`}})
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(eng, cfg, testStyles(), time.Now)
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	m.Update(teaWindowSize(100, 30))

	screen := func(id string) string { return paneText(m.pane(id)) }
	names := map[string]string{plainSh.ID: "sh", titled.ID: "build-x", control.MainID: "cat"}
	waitFor(t, "both agents to show and the engine to take the program's title", func() bool {
		m.refresh()
		in, _ := eng.Agent(titled.ID)
		return strings.Contains(screen(plainSh.ID), "ready") && strings.Contains(screen(titled.ID), "ready") &&
			in.Title == "build-x"
	})

	for _, id := range []string{plainSh.ID, titled.ID, control.MainID, plainSh.ID} {
		eng.Focus(id)
		m.refresh()
		m.View()
		if m.snap.Focus != id {
			t.Fatalf("focus %s: the snapshot says %q", id, m.snap.Focus)
		}
		for i := range m.in.panes {
			pf := &m.in.panes[i]
			info := m.pane(pf.id).Agent
			if pf.id != control.MainID {
				info, _ = eng.Agent(pf.id)
			}
			if pf.label.title != info.Title || info.Title != names[pf.id] {
				t.Errorf("pane %s: border title %q, engine's title %q, want %q", pf.id, pf.label.title, info.Title, names[pf.id])
			}
			corner := m.final.Row(pf.box.Y)[pf.box.X]
			if got, want := corner.Fg == m.ui.frame.borderFocus.Fg, pf.id == id; got != want {
				t.Errorf("focus %s: pane %s's border highlighted = %v", id, pf.id, got)
			}
		}
		status := strings.TrimRight(m.in.status.text(), " ")
		if !strings.HasSuffix(status, "│ "+names[id]) {
			t.Errorf("focus %s: the status line ends %q, want the title %q", id, status, names[id])
		}
		if c, box := m.cursor, m.pane(id).Box; c == nil || c.X <= box.X || c.X >= box.X+box.W-1 || c.Y <= box.Y || c.Y >= box.Y+box.H-1 {
			t.Errorf("focus %s: cursor %+v is not inside its box %+v", id, c, box)
		}
		// Keys go to the focused pane, and its echo pokes the fast channel.
		for drained := false; !drained; {
			select {
			case <-eng.FocusOutput():
			default:
				drained = true
			}
		}
		word := "typed-" + id
		for _, r := range word {
			press(t, m, string(r))
		}
		waitFor(t, "the echo in "+id, func() bool { return strings.Contains(screen(id), word) })
		select {
		case <-eng.FocusOutput():
		case <-time.After(5 * time.Second):
			t.Errorf("focus %s: its echo did not poke the focused pane's channel", id)
		}
	}
}

package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/orchestrator"
)

// realEngine starts the real engine of session with /bin/cat in the main
// view, sized cols x rows, and shuts it down when the test ends.
func realEngine(t *testing.T, cfg config.Config, session string, cols, rows int) *orchestrator.Engine {
	t.Helper()
	eng, err := orchestrator.New(cfg, orchestrator.Options{Session: session, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(context.Background(), []string{"/bin/cat"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = eng.Shutdown(ctx)
	})
	eng.Resize(cols, rows)
	return eng
}

// engineModel runs a real engine (main: cat) with n agents (sh running
// cat) under a model of w x h, whose timers are recorded in ticks.
func engineModel(t *testing.T, w, h, n int) (*Model, *orchestrator.Engine, *[]func() tea.Msg) {
	t.Helper()
	cfg := config.Default()
	eng := realEngine(t, cfg, "goto", w, h-1)
	for i := range n {
		if _, err := eng.Spawn(control.SpawnRequest{Argv: []string{"/bin/sh", "-c", "exec cat"}, Title: fmt.Sprintf("job-%d", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	ticks := &[]func() tea.Msg{}
	m := newModel(eng, cfg, testStyles(), time.Now)
	m.tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		*ticks = append(*ticks, func() tea.Msg { return fn(time.Now()) })
		return nil
	}
	m.Update(teaWindowSize(w, h))
	m.View()
	return m, eng, ticks
}

// borderNumber is the number on agent id's border in the frame drawn, or "".
func borderNumber(m *Model, id string) string {
	m.View()
	for i := range m.in.panes {
		if pf := &m.in.panes[i]; pf.id == id {
			return pf.label.number
		}
	}
	return ""
}

// statusText is the status line as drawn.
func statusText(m *Model) string {
	m.View()
	return ansi.Strip(m.final.String()[strings.LastIndex(m.final.String(), "\n")+1:])
}

// TestStableNumbersAndGoTo: numbers stay with their agents when another
// closes (a4 stays 4), a digit after the prefix reaches that agent, and
// the go-to prompt reaches any agent by number, id or title, including
// one past 9 that is not on screen yet.
func TestStableNumbersAndGoTo(t *testing.T) {
	// The grid holds three agents at this size; a4 to a12 wait.
	m, eng, _ := engineModel(t, 160, 40, 12)
	waitFor(t, "a3 on screen", func() bool { m.refresh(); return borderNumber(m, "a3") != "" })
	if got := borderNumber(m, "a3"); got != "3" {
		t.Fatalf("a3's border says %q", got)
	}
	if err := eng.Close("a2"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a4 in a2's place", func() bool { m.refresh(); return m.pane("a2") == nil && m.pane("a4") != nil })
	if a3, a4 := borderNumber(m, "a3"), borderNumber(m, "a4"); a3 != "3" || a4 != "4" {
		t.Errorf("after a2 closed the borders of a3 and a4 say %q and %q, want 3 and 4", a3, a4)
	}
	press(t, m, "ctrl+b", "4")
	if m.snap.Focus != "a4" {
		t.Errorf("prefix 4 focused %q, want a4", m.snap.Focus)
	}

	// The prompt: by id, by title, and an agent past 9 that waits in the
	// queue (the grid holds fewer than 12 at this size) is brought in.
	for _, c := range []struct{ typed, want string }{{"a3", "a3"}, {"job-5", "a5"}, {"12", "a12"}, {"0", control.MainID}} {
		press(t, m, "ctrl+b", "'")
		if p, ok := m.overlay.(*promptOverlay); !ok || p.purpose != promptGoTo {
			t.Fatalf("prefix ' opened %T", m.overlay)
		}
		for _, r := range c.typed {
			press(t, m, string(r))
		}
		press(t, m, "enter")
		waitFor(t, "focus on "+c.want, func() bool { m.refresh(); return m.snap.Focus == c.want })
		if m.overlay != nil {
			t.Errorf("the prompt stayed open after %q", c.typed)
		}
	}
	if got := borderNumber(m, "a12"); got != "12" {
		t.Errorf("a12's border says %q", got)
	}

	// A name that matches nothing keeps the prompt open and says why.
	press(t, m, "ctrl+b", "'", "9", "9", "enter")
	p, ok := m.overlay.(*promptOverlay)
	if !ok || !strings.Contains(p.err, "no agent a99") {
		t.Fatalf("after 99: overlay %T", m.overlay)
	}
	press(t, m, "esc")
}

// TestZoomAndLayoutFeedback: the layout's name shows on the status line
// for a while after cycling; zoom is marked on the border and the status
// line; a focus change while zoomed unzooms, by number and by direction.
func TestZoomAndLayoutFeedback(t *testing.T) {
	m, eng, ticks := engineModel(t, 160, 40, 3)
	waitFor(t, "three panes", func() bool { m.refresh(); return m.pane("a3") != nil })

	press(t, m, "ctrl+b", "space")
	m.refresh()
	layout := eng.Snapshot().Layout
	if s := statusText(m); !strings.Contains(s, "layout: "+layout) {
		t.Errorf("after cycling the status line is %q, want the layout %q named", s, layout)
	}
	if len(*ticks) == 0 {
		t.Fatal("no timer takes the layout's name away")
	}
	for _, tick := range *ticks {
		m.Update(tick())
	}
	if s := statusText(m); strings.Contains(s, "layout: ") {
		t.Errorf("the layout's name stayed: %q", s)
	}

	press(t, m, "ctrl+b", "1", "ctrl+b", "z")
	m.refresh()
	if !m.snap.Zoomed {
		t.Fatal("not zoomed")
	}
	top := ansi.Strip(strings.SplitN(m.final.String(), "\n", 2)[0])
	if !strings.Contains(top, " zoomed ") || !strings.Contains(statusText(m), " zoomed ") {
		t.Errorf("zoom is not marked:\nborder %q\nstatus %q", top, statusText(m))
	}
	press(t, m, "ctrl+b", "3")
	m.refresh()
	if m.snap.Zoomed || m.snap.Focus != "a3" {
		t.Errorf("prefix 3 while zoomed: zoomed %v, focus %s; want unzoomed on a3", m.snap.Zoomed, m.snap.Focus)
	}
	if strings.Contains(statusText(m), "zoomed") {
		t.Errorf("the status line still says zoomed: %q", statusText(m))
	}

	press(t, m, "ctrl+b", "z")
	m.refresh()
	if !m.snap.Zoomed {
		t.Fatal("not zoomed again")
	}
	before := m.snap.Focus
	press(t, m, "ctrl+b", "left")
	m.refresh()
	if m.snap.Zoomed || m.snap.Focus == before {
		t.Errorf("prefix left while zoomed on %s: zoomed %v, focus %s; want unzoomed and moved", before, m.snap.Zoomed, m.snap.Focus)
	}
}

// TestFindAgent resolves what is typed into the go-to prompt.
func TestFindAgent(t *testing.T) {
	m, _ := newTestModel(t, testSnapshot())
	for _, c := range []struct{ typed, want, err string }{
		{"1", "a1", ""}, {"a2", "a2", ""}, {"%2", "a2", ""}, {"0", control.MainID, ""}, {"main", control.MainID, ""},
		{"a2-title", "a2", ""}, {"main-t", control.MainID, ""}, {"a", "", "starts the titles of a1, a2"},
		{"7", "", "no agent a7"}, {"nothing", "", `no agent is called "nothing"`}, {" ", "", "type an agent's number"},
	} {
		got, err := m.findAgent(c.typed)
		if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("findAgent(%q) = %q, %v; want %q, %q", c.typed, got, err, c.want, c.err)
		}
	}
}

// TestKeysForAnAgentThatCannotBeShownGoNowhere: when the agent a go-to
// names cannot be brought into view, the keys typed for it meanwhile are
// not sent to the pane focused before, and the status line says so.
func TestKeysForAnAgentThatCannotBeShownGoNowhere(t *testing.T) {
	snap := testSnapshot()
	started := testNow.Add(-time.Minute)
	snap.Agents = append(snap.Agents, control.AgentInfo{ID: "a3", Title: "later", State: agentstate.Running,
		Since: started, Created: started, Started: &started, Number: 3})
	m, eng := newTestModel(t, snap)
	eng.showErr = errors.New("the terminal is too small to show any agent pane")
	var cmds []tea.Cmd
	for _, k := range []string{"ctrl+b", "3", "x", "y"} {
		_, cmd := m.Update(keyOf(t, k))
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		settle(m, cmd)
	}
	if in := eng.takeInputs(); len(in) != 0 {
		t.Errorf("keys typed for a3 were sent to %v", in)
	}
	if s := statusText(m); !strings.Contains(s, "2 keys typed for a3 were not sent") {
		t.Errorf("the status line says %q, want the keys not sent named", s)
	}
	// The next key goes to the focused pane again.
	press(t, m, "z")
	if in := eng.takeInputs(); len(in) != 1 || in[0] != "main:z" {
		t.Errorf("a key typed afterwards went to %v, want main", in)
	}
}

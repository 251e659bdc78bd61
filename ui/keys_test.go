package ui

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

func teaWindowSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

// keyOf builds the key press Bubble Tea delivers for a keymap name such as
// "ctrl+b", "alt+left", "L", "?", "space", "pgup".
func keyOf(t *testing.T, name string) tea.KeyPressMsg {
	t.Helper()
	var k tea.KeyPressMsg
	parts := strings.Split(name, "+")
	base := parts[len(parts)-1]
	if name == "+" {
		base, parts = "+", []string{"+"}
	}
	for _, p := range parts[:len(parts)-1] {
		switch p {
		case "ctrl":
			k.Mod |= tea.ModCtrl
		case "alt":
			k.Mod |= tea.ModAlt
		case "shift":
			k.Mod |= tea.ModShift
		default:
			t.Fatalf("unknown modifier %q in %q", p, name)
		}
	}
	named := map[string]rune{
		"left": tea.KeyLeft, "right": tea.KeyRight, "up": tea.KeyUp, "down": tea.KeyDown,
		"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd,
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "space": tea.KeySpace, "tab": tea.KeyTab,
	}
	if r, ok := named[base]; ok {
		k.Code = r
		if base == "space" {
			k.Text = " "
		}
		return k
	}
	r, _ := utf8.DecodeRuneInString(base)
	if utf8.RuneCountInString(base) != 1 {
		t.Fatalf("cannot build key %q", name)
	}
	k.Code = unicode.ToLower(r)
	if k.Mod&^tea.ModShift == 0 {
		k.Text = base
		if unicode.IsUpper(r) {
			k.Mod |= tea.ModShift
			k.ShiftedCode = r
		}
	}
	return k
}

// press types keys as Bubble Tea would, running the commands they return
// (engine calls included, their results handed back); it returns a command
// yielding the last key's other messages.
func press(t *testing.T, m *Model, names ...string) tea.Cmd {
	t.Helper()
	var cmd tea.Cmd
	for _, n := range names {
		_, cmd = m.Update(keyOf(t, n))
		m.View()
		cmd = settle(m, cmd)
	}
	return cmd
}

// settle runs cmd, handing engine results back to m, and returns a
// command yielding the other messages it produced.
func settle(m *Model, cmd tea.Cmd) tea.Cmd {
	var rest []tea.Cmd
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				run(c)
			}
		case engineDoneMsg:
			_, next := m.Update(msg)
			m.View()
			run(next)
		case nil:
		default:
			rest = append(rest, func() tea.Msg { return msg })
		}
	}
	run(cmd)
	switch len(rest) {
	case 0:
		return nil
	case 1:
		return rest[0]
	}
	return tea.Batch(rest...)
}

// refreshFrom makes the model take the fake engine's current snapshot.
func refreshFrom(m *Model) {
	m.Update(frameMsg{})
	m.View()
}

func TestPlainKeysReachFocusedPane(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	press(t, m, "a", "B", "enter", "up", "ctrl+c", "alt+x")
	got := eng.takeInputs()
	want := []string{"main:a", "main:B", "main:\r", "main:\x1b[A", "main:\x03", "main:\x1bx"}
	if !slices.Equal(got, want) {
		t.Errorf("inputs = %q, want %q", got, want)
	}
	// The program asked for application cursor keys: arrows follow.
	_, _ = m.snap.Main.Term.(*vterm.Terminal).Write([]byte("\x1b[?1h"))
	press(t, m, "up")
	if got := eng.takeInputs(); !slices.Equal(got, []string{"main:\x1bOA"}) {
		t.Errorf("app-cursor up = %q", got)
	}
}

func TestPrefixTwiceSendsPrefix(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	press(t, m, "ctrl+b")
	if !m.prefixArmed {
		t.Fatal("prefix not armed")
	}
	if !strings.Contains(m.final.String(), " ctrl+b ") {
		t.Error("status line does not show the armed prefix")
	}
	press(t, m, "ctrl+b")
	if m.prefixArmed {
		t.Error("prefix still armed after the second press")
	}
	if got := eng.takeInputs(); !slices.Equal(got, []string{"main:\x02"}) {
		t.Errorf("inputs = %q, want the prefix byte", got)
	}
}

func TestCustomPrefix(t *testing.T) {
	eng := newFakeEngine(testSnapshot(), testClock)
	cfg := testConfig()
	cfg.Keys.Prefix = "ctrl+a"
	m := newModel(eng, cfg, testStyles(), testClock)
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	m.Update(teaWindowSize(80, 24))
	press(t, m, "ctrl+b")
	if got := eng.takeInputs(); !slices.Equal(got, []string{"main:\x02"}) {
		t.Errorf("ctrl+b with prefix ctrl+a should reach the pane, got %q", got)
	}
	press(t, m, "ctrl+a", "z")
	if eng.lastCall() != "zoom" {
		t.Errorf("ctrl+a z did not zoom: %q", eng.calls)
	}
}

func TestUnboundKeyAfterPrefixIsDropped(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	press(t, m, "ctrl+b", "y")
	if m.prefixArmed || len(eng.takeInputs()) != 0 {
		t.Error("an unbound key after the prefix must be dropped and disarm it")
	}
	press(t, m, "y")
	if got := eng.takeInputs(); !slices.Equal(got, []string{"main:y"}) {
		t.Errorf("next key = %q", got)
	}
}

// TestEveryPrefixBinding presses the prefix and every key of every prefix
// binding and checks that the binding's action happened.
func TestEveryPrefixBinding(t *testing.T) {
	for _, b := range keymap {
		if b.mode != modePrefix {
			continue
		}
		for _, key := range b.keys {
			if key == prefixToken {
				key = "ctrl+b"
			}
			t.Run(key, func(t *testing.T) {
				snap := testSnapshot()
				start := control.MainID
				switch b.action {
				case actFocusLeft, actFocusUp, actClose:
					start = "a2"
				}
				snap.Focus = start
				m, eng := newTestModel(t, snap)
				press(t, m, "ctrl+b", key)
				checkAction(t, m, eng, b.action, key, start)
			})
		}
	}
}

func checkAction(t *testing.T, m *Model, eng *fakeEngine, act action, key, start string) {
	t.Helper()
	last := eng.lastCall()
	switch act {
	case actSendPrefix:
		if got := eng.takeInputs(); !slices.Equal(got, []string{start + ":\x02"}) {
			t.Errorf("inputs = %q", got)
		}
	case actNewAgent:
		if p, ok := m.overlay.(*promptOverlay); !ok || p.purpose != promptNewAgent {
			t.Errorf("overlay = %T, want the new-agent prompt", m.overlay)
		}
	case actFocusLeft:
		if last != "focus main" {
			t.Errorf("focus left from a2: %q", last)
		}
	case actFocusRight:
		if last != "focus a1" && last != "focus a2" {
			t.Errorf("focus right from main: %q", last)
		}
	case actFocusUp:
		if last != "focus a1" {
			t.Errorf("focus up from a2: %q", last)
		}
	case actFocusDown:
		if last != "" {
			t.Errorf("focus down from main has no target, got %q", last)
		}
	case actFocusNumber:
		want := map[string]string{"0": "focus main", "1": "focus a1", "2": "focus a2"}[key]
		if last != want {
			t.Errorf("focus %s: %q, want %q", key, last, want)
		}
	case actTheme:
		if m.theme.name != "light" || !strings.Contains(statusText(m), "theme: light") {
			t.Errorf("prefix T from dark: theme %s, status %q", m.theme.name, statusText(m))
		}
	case actCommand:
		if p, ok := m.overlay.(*promptOverlay); !ok || p.purpose != promptCommand {
			t.Errorf("overlay = %T, want the command prompt", m.overlay)
		}
	case actGoTo:
		if p, ok := m.overlay.(*promptOverlay); !ok || p.purpose != promptGoTo {
			t.Errorf("overlay = %T, want the go-to prompt", m.overlay)
		}
	case actZoom:
		if last != "zoom" {
			t.Errorf("zoom: %q", last)
		}
	case actClose:
		c, ok := m.overlay.(*confirmOverlay)
		if !ok || !strings.Contains(c.question, "a2") {
			t.Fatalf("closing a live agent should ask, overlay = %T", m.overlay)
		}
		press(t, m, "y")
		if eng.lastCall() != "close a2" || m.overlay != nil {
			t.Errorf("after yes: %q, overlay %T", eng.lastCall(), m.overlay)
		}
	case actLayoutCycle:
		if last != "layout" {
			t.Errorf("layout: %q", last)
		}
	case actScrollMode:
		if m.scroll[start] == nil {
			t.Error("not in scrollback mode")
		}
	case actAgents:
		if _, ok := m.overlay.(*agentsOverlay); !ok {
			t.Errorf("overlay = %T, want agents", m.overlay)
		}
	case actHelp:
		if _, ok := m.overlay.(*helpOverlay); !ok {
			t.Errorf("overlay = %T, want help", m.overlay)
		}
	case actRecord:
		// The recording itself is TestRecordingReplaysToTheLastFrame.
		path, err := m.rec.end()
		if path != m.recordTo || err != nil {
			t.Errorf("prefix R recorded to %q (%v), want %q", path, err, m.recordTo)
		}
	case actRedraw:
		// What reaches the terminal is checked in TestRedrawKeyRepaintsEverything.
		if got := eng.takeInputs(); len(got) != 0 || last != "" || m.prefixArmed {
			t.Errorf("redraw reached the pane or the engine: inputs %q, call %q", got, last)
		}
	case actLoopStop:
		// The engine's side is TestPrefixSStopsTheFocusedLoop; the key
		// never reaches the pane.
		if got := eng.takeInputs(); len(got) != 0 || m.prefixArmed {
			t.Errorf("stop loop reached the pane: inputs %q", got)
		}
	case actDetach, actQuit:
		if _, ok := m.overlay.(*confirmOverlay); !ok {
			t.Fatalf("quitting with running agents should ask, overlay = %T", m.overlay)
		}
		_, cmd := m.Update(keyOf(t, "y"))
		if cmd == nil {
			t.Fatal("yes did not quit")
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("yes returned %T, want tea.QuitMsg", cmd())
		}
	default:
		t.Errorf("action %d has no check", act)
	}
}

// TestAltArrowsReachThePaneByDefault: as in tmux, alt+arrow belongs to the
// program (vim, mc, readline) unless [keys] alt_arrows_focus is on.
func TestAltArrowsReachThePaneByDefault(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	press(t, m, "alt+right")
	press(t, m, "alt+left")
	if c := eng.lastCall(); c != "" {
		t.Errorf("alt+arrows with alt_arrows_focus off called the engine: %q", c)
	}
	want := []string{"main:\x1b[1;3C", "main:\x1b[1;3D"}
	if got := eng.takeInputs(); !slices.Equal(got, want) {
		t.Errorf("pane got %q, want %q", got, want)
	}
	// The prefix bindings still move the focus.
	press(t, m, "ctrl+b")
	press(t, m, "right")
	if got := eng.lastCall(); got != "focus a1" && got != "focus a2" {
		t.Errorf("prefix right: %q", got)
	}
}

func TestDirectAltArrows(t *testing.T) {
	m, eng := newTestModelConfig(t, testSnapshot(), altArrowsConfig())
	press(t, m, "alt+right")
	if got := eng.lastCall(); got != "focus a1" && got != "focus a2" {
		t.Fatalf("alt+right: %q", got)
	}
	refreshFrom(m)
	press(t, m, "alt+left")
	if eng.lastCall() != "focus main" {
		t.Errorf("alt+left: %q", eng.lastCall())
	}
	if len(eng.takeInputs()) != 0 {
		t.Error("alt+arrows must not reach the pane")
	}
}

func TestCloseFinishedAgentDoesNotAsk(t *testing.T) {
	snap := testSnapshot()
	snap.Panes[1].Agent.State = agentstate.Done
	snap.Focus = "a2"
	m, eng := newTestModel(t, snap)
	press(t, m, "ctrl+b", "x")
	if m.overlay != nil || eng.lastCall() != "close a2" {
		t.Errorf("overlay %T, call %q", m.overlay, eng.lastCall())
	}
}

func TestQuitWithoutRunningAgentsDoesNotAsk(t *testing.T) {
	snap := testSnapshot()
	snap.Agents = nil
	m, _ := newTestModel(t, snap)
	cmd := press(t, m, "ctrl+b", "q")
	if m.overlay != nil || cmd == nil {
		t.Fatalf("overlay %T, cmd %v", m.overlay, cmd)
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("not a quit")
	}
}

func TestNewAgentPrompt(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	press(t, m, "ctrl+b", "c")
	for _, r := range `sh -c 'echo "hi there"'` {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	m.View()
	if !strings.Contains(m.final.String(), "new agent") {
		t.Error("the prompt is not drawn")
	}
	if m.cursor == nil {
		t.Error("the prompt should place the real cursor")
	}
	press(t, m, "enter")
	if got := eng.lastCall(); got != `spawn ["sh" "-c" "echo \"hi there\""]` {
		t.Errorf("spawn call = %s", got)
	}
	if m.overlay != nil {
		t.Error("prompt still open after a successful spawn")
	}
	if len(eng.takeInputs()) != 0 {
		t.Error("typing into the prompt leaked into the pane")
	}
}

func TestNewAgentPromptShowsErrors(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	press(t, m, "ctrl+b", "c")
	m.Update(tea.PasteMsg{Content: "echo 'oops"})
	press(t, m, "enter")
	p, ok := m.overlay.(*promptOverlay)
	if !ok || !strings.Contains(p.err, "unterminated single quote") {
		t.Fatalf("parse error not shown: %T %+v", m.overlay, p)
	}
	if strings.HasPrefix(eng.lastCall(), "spawn") {
		t.Error("spawned a command that did not parse")
	}
	press(t, m, "esc")
	if m.overlay != nil {
		t.Error("esc did not close the prompt")
	}
}

// TestFocusReturnsToPreviousPane: from main, right goes to a1 or a2; left
// comes back to main; right again returns to the same agent, not to the
// other equally near one.
func TestFocusReturnsToPreviousPane(t *testing.T) {
	snap := testSnapshot()
	snap.Focus = "a1"
	m, eng := newTestModelConfig(t, snap, altArrowsConfig())
	press(t, m, "alt+left")
	refreshFrom(m)
	if eng.lastCall() != "focus main" {
		t.Fatalf("left from a1: %q", eng.lastCall())
	}
	press(t, m, "alt+right")
	if eng.lastCall() != "focus a1" {
		t.Errorf("right from main after coming from a1: %q", eng.lastCall())
	}
}

// TestFocusKeysEachMoveTheirWay: each of the four focus keys moves focus
// in its own direction (main on the left, a1 above a2 on the right).
func TestFocusKeysEachMoveTheirWay(t *testing.T) {
	snap := testSnapshot()
	snap.Focus = "a1"
	m, eng := newTestModelConfig(t, snap, altArrowsConfig())
	for _, step := range []struct{ key, want string }{
		{"alt+down", "focus a2"}, {"alt+up", "focus a1"}, {"alt+left", "focus main"}, {"alt+right", "focus a1"},
	} {
		press(t, m, step.key)
		if got := eng.lastCall(); got != step.want {
			t.Fatalf("%s: %q, want %q", step.key, got, step.want)
		}
		refreshFrom(m)
	}
}

// TestHelpShowsAltArrowsOnlyWhenOn: the help overlay is generated from the
// keymap and lists only the bindings that work.
func TestHelpShowsAltArrowsOnlyWhenOn(t *testing.T) {
	for _, on := range []bool{false, true} {
		cfg := testConfig()
		cfg.Keys.AltArrowsFocus = on
		m, _ := newTestModelConfig(t, testSnapshot(), cfg)
		press(t, m, "ctrl+b")
		press(t, m, "?")
		h, ok := m.overlay.(*helpOverlay)
		if !ok {
			t.Fatalf("prefix ? opened %T", m.overlay)
		}
		text := linesText(h.lines)
		if got := strings.Contains(text, "alt+left"); got != on {
			t.Errorf("alt_arrows_focus = %v: help lists alt+left = %v", on, got)
		}
		if !strings.Contains(text, "focus the pane to the left") {
			t.Errorf("alt_arrows_focus = %v: the prefix focus bindings are missing from the help", on)
		}
	}
}

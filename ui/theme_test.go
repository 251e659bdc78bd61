package ui

import (
	"context"
	"flag"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/themes"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of the theme tests")

// themedModel is the test session drawn with theme (a config value).
func themedModel(t *testing.T, theme string) *Model {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user theme shadows a built-in
	cfg := testConfig()
	cfg.UI.Theme = theme
	name := theme
	if name == themes.Auto {
		name = themes.Pick(nil)
	}
	p, err := themes.Load(name, "")
	if err != nil {
		t.Fatal(err)
	}
	eng := newFakeEngine(testSnapshot(), testClock)
	m := newModel(eng, cfg, p.Styles(), testClock)
	m.tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd { return nil }
	m.Update(teaWindowSize(80, 24))
	m.View()
	return m
}

// statusBg is the background of the status line's last cell (padding).
func statusBg(m *Model) any {
	m.View()
	r := m.final.Row(m.final.H - 1)
	return r[len(r)-1].Bg
}

// paletteStatusBg is theme name's status line background as a cell colour.
func paletteStatusBg(t *testing.T, name string) any {
	t.Helper()
	p, ok := themes.Builtin(name)
	if !ok {
		t.Fatalf("no theme %s", name)
	}
	return newUIStyles(p.Styles()).status[0].Bg
}

// TestThemeGolden draws the same session, and the agents list over it, with every
// built-in theme and
// compares the styled frame with testdata/themes/NAME.golden (go test
// ./ui -run TestThemeGolden -update rewrites them). Each theme's frame
// differs from every other's.
func TestThemeGolden(t *testing.T) {
	seen := map[string]string{}
	for _, name := range themes.Names() {
		// The session, then the agents overlay over it (the help would
		// change with every new key binding).
		m := themedModel(t, name)
		got := viewText(m)
		press(t, m, "ctrl+b", "w")
		got += "\n\n" + viewText(m) + "\n"
		path := filepath.Join("testdata", "themes", name+".golden")
		if *updateGolden {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to write it)", err)
		}
		if got != string(want) {
			t.Errorf("theme %s draws a frame unlike %s", name, path)
		}
		if other, ok := seen[got]; ok {
			t.Errorf("themes %s and %s draw the same frame", name, other)
		}
		seen[got] = name
	}
}

// TestThemeCycleKey: prefix T steps through every built-in theme at run
// time, redrawing with each palette and naming it on the status line.
func TestThemeCycleKey(t *testing.T) {
	m := themedModel(t, "dark")
	names := themes.Names()
	for i := 1; i <= len(names); i++ {
		want := names[i%len(names)]
		press(t, m, "ctrl+b", "T")
		if m.theme.name != want {
			t.Fatalf("after %d presses the theme is %s, want %s", i, m.theme.name, want)
		}
		if got := statusBg(m); got != paletteStatusBg(t, want) {
			t.Errorf("theme %s: the status line's background is %v", want, got)
		}
		if s := statusText(m); !strings.Contains(s, "theme: "+want) {
			t.Errorf("theme %s is not named on the status line: %q", want, s)
		}
	}
}

// TestThemeAutoFollowsTheTerminal: with theme = "auto" a light OSC 11
// answer switches to the light theme and a dark one back; a CSI ? 997 n
// report does the same. A theme set by name ignores both.
func TestThemeAutoFollowsTheTerminal(t *testing.T) {
	m := themedModel(t, themes.Auto)
	if m.theme.name != "dark" || !m.theme.auto {
		t.Fatalf("auto starts as %+v, want dark until the terminal answers", m.theme)
	}
	m.Update(tea.BackgroundColorMsg{Color: color.RGBA{0xfa, 0xfa, 0xf5, 0xff}})
	if m.theme.name != "light" || statusBg(m) != paletteStatusBg(t, "light") {
		t.Errorf("after a light OSC 11 answer: theme %s, status background %v", m.theme.name, statusBg(m))
	}
	m.Update(tea.BackgroundColorMsg{Color: color.RGBA{0x10, 0x10, 0x18, 0xff}})
	if m.theme.name != "dark" || statusBg(m) != paletteStatusBg(t, "dark") {
		t.Errorf("after a dark OSC 11 answer: theme %s", m.theme.name)
	}
	m.Update(termrt.ColorSchemeMsg{Light: true})
	if m.theme.name != "light" {
		t.Errorf("after a light scheme report: theme %s", m.theme.name)
	}

	fixed := themedModel(t, "nord")
	fixed.Update(tea.BackgroundColorMsg{Color: color.White})
	fixed.Update(termrt.ColorSchemeMsg{Light: true})
	if fixed.theme.name != "nord" || statusBg(fixed) != paletteStatusBg(t, "nord") {
		t.Errorf("theme = nord followed the terminal to %s", fixed.theme.name)
	}
}

// TestThemeNamesAgree: the config accepts exactly the built-in themes and
// "auto".
func TestThemeNamesAgree(t *testing.T) {
	want := append([]string{themes.Auto}, themes.Names()...)
	if strings.Join(config.BuiltinThemes, ",") != strings.Join(want, ",") {
		t.Errorf("config.BuiltinThemes = %v, want %v", config.BuiltinThemes, want)
	}
}

// TestRunAutoThemeAsksAndFollows runs the real event loop with theme =
// "auto": the terminal is asked for its background and its scheme, mode
// 2031 is turned on (and off on the way out), and a light scheme report
// redraws the status line with the light theme's background.
func TestRunAutoThemeAsksAndFollows(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	eng := newFakeEngine(testSnapshot(), time.Now)
	cfg := testConfig()
	cfg.UI.Theme = themes.Auto
	m := newModel(eng, cfg, testStyles(), time.Now)
	inR, inW := io.Pipe()
	t.Cleanup(func() { inW.Close() })
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), eng, m, cfg, WithIO(inR, out), WithSize(80, 24), WithEnv([]string{"TERM=xterm-256color", "COLORTERM=truecolor"}))
	}()
	eng.changed <- struct{}{}
	waitFor(t, "the first frame", func() bool { return strings.Contains(ansi.Strip(out.String()), "a1-title") })
	checkOrder(t, out.String(), []string{"\x1b[?2031h", seqQueryColors, seqQueryScheme})

	light, _ := themes.Builtin("light")
	r, g, b, _ := themes.Color(light.StatusBg).RGBA()
	lightBg := fmt.Sprintf("48;2;%d;%d;%d", r>>8, g>>8, b>>8)
	if strings.Contains(out.String(), lightBg) {
		t.Fatal("the light status line is drawn before the terminal said it is light")
	}
	if _, err := inW.Write([]byte("\x1b[?997;2n")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the light theme after the scheme report", func() bool { return strings.Contains(out.String(), lightBg) })

	if _, err := inW.Write([]byte("\x02q")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the quit question", func() bool { return strings.Contains(ansi.Strip(out.String()), "Quit agentgrid?") })
	if _, err := inW.Write([]byte("y")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after quitting")
	}
	got := out.String()
	checkOrder(t, got[strings.LastIndex(got, "Quit agentgrid?"):], []string{"\x1b[?2031l", "\x1b[<1u", "\x1b[?1049l"})
}

// TestThemeCommand: prefix : then "theme NAME" picks a theme by name (a
// built-in or a user file), "theme auto" goes back to following the
// terminal, and a bad name or command keeps the prompt open with why.
func TestThemeCommand(t *testing.T) {
	m := themedModel(t, themes.Auto)
	m.theme.dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(m.theme.dir, "mine.toml"), []byte("base = \"nord\"\nstatus_bg = \"#102030\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m.Update(tea.BackgroundColorMsg{Color: color.White}) // a light terminal
	command := func(text string) *promptOverlay {
		t.Helper()
		press(t, m, "ctrl+b", ":")
		if p, ok := m.overlay.(*promptOverlay); !ok || p.purpose != promptCommand {
			t.Fatalf("prefix : opened %T", m.overlay)
		}
		for _, r := range text {
			press(t, m, string(r))
		}
		press(t, m, "enter")
		p, _ := m.overlay.(*promptOverlay)
		return p
	}
	if p := command("theme gruvbox"); p != nil || m.theme.name != "gruvbox" || m.theme.auto || statusBg(m) != paletteStatusBg(t, "gruvbox") {
		t.Errorf("theme gruvbox: prompt %v, theme %+v", p != nil, m.theme)
	}
	if p := command("theme mine"); p != nil || m.theme.name != "mine" || !strings.Contains(statusText(m), "theme: mine") {
		t.Errorf("theme mine: prompt %v, theme %+v", p != nil, m.theme)
	}
	if p := command("theme auto"); p != nil || m.theme.name != "light" || !m.theme.auto {
		t.Errorf("theme auto on a light terminal: prompt %v, theme %+v", p != nil, m.theme)
	}
	for _, c := range []struct{ text, err string }{
		{"theme neon", `unknown theme "neon"`},
		{"theme ../../etc/passwd", "is not valid"},
		{"theme", "theme takes one name"},
		{"colour red", `unknown command "colour"`},
	} {
		p := command(c.text)
		if p == nil || !strings.Contains(p.err, c.err) {
			t.Errorf("%q: prompt %v, want it open saying %q", c.text, p, c.err)
		}
		press(t, m, "esc")
	}
	if m.theme.name != "light" {
		t.Errorf("a refused command changed the theme to %s", m.theme.name)
	}
}

// TestThemeCycleIncludesUserThemes: prefix T goes on from the last
// built-in theme to the user's own theme files, sorted by name, then back
// to the first built-in; a file that does not load is skipped with its
// reason on the status line, and a file added while the session runs joins
// the cycle.
func TestThemeCycleIncludesUserThemes(t *testing.T) {
	m := themedModel(t, "high-contrast")
	m.theme.dir = t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(m.theme.dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("zeta.toml", "status_bg = \"#203040\"\n")
	write("alpha.toml", "base = \"light\"\nstatus_bg = \"#102030\"\n")
	write("broken.toml", "no_such_token = \"#ffffff\"\n")
	write("notes.txt", "not a theme\n")
	userBg := func(name string) any {
		t.Helper()
		p, err := themes.Load(name, m.theme.dir)
		if err != nil {
			t.Fatal(err)
		}
		return newUIStyles(p.Styles()).status[0].Bg
	}

	press(t, m, "ctrl+b", "T")
	if m.theme.name != "alpha" || statusBg(m) != userBg("alpha") || !strings.Contains(statusText(m), "theme: alpha") {
		t.Fatalf("after high-contrast, prefix T gave theme %s, status %q; want the user theme alpha", m.theme.name, statusText(m))
	}
	press(t, m, "ctrl+b", "T")
	if m.theme.name != "zeta" || m.ui.status[0].Bg != userBg("zeta") {
		t.Fatalf("after alpha: theme %s, want zeta (broken skipped); status %q", m.theme.name, statusText(m))
	}
	if s := statusText(m); !strings.Contains(s, "theme: zeta") || !strings.Contains(s, "skipped broken.toml:1:") {
		t.Errorf("the status line does not name zeta and the skipped broken file: %q", s)
	}
	write("zz-late.toml", "base = \"nord\"\n")
	press(t, m, "ctrl+b", "T")
	if m.theme.name != "zz-late" {
		t.Fatalf("after zeta: theme %s, want zz-late, added while running", m.theme.name)
	}
	press(t, m, "ctrl+b", "T")
	if m.theme.name != "dark" || statusBg(m) != paletteStatusBg(t, "dark") {
		t.Errorf("after the last user theme: theme %s, want dark again", m.theme.name)
	}
}

package ui

import (
	"image/color"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/themes"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// seqQueryScheme asks the terminal whether it is in a light or a dark
// colour scheme (CSI ? 996 n); terminals that know answer CSI ? 997 ; 1 n
// (dark) or 2 n (light), which arrive as termrt.ColorSchemeMsg. Asked only
// for theme = "auto", beside the OSC 11 background query that every
// session sends.
const seqQueryScheme = "\x1b[?996n"

// modeSchemeReports (mode 2031) has the terminal report each change of its
// light or dark scheme as CSI ? 997 n, so theme = "auto" follows the system
// switching while the session runs; undone on the way out.
var modeSchemeReports = termrt.Mode{Set: "\x1b[?2031h", Reset: "\x1b[?2031l"}

// themeState is the model's theme choice: per view, so each attached
// client may show its own.
type themeState struct {
	name string // the palette drawn with
	auto bool   // follow the outer terminal's light or dark (theme = "auto")
	dir  string // the user themes' directory
}

// newThemeState is the choice the config makes; the palette the session
// started with is auto's guess before the terminal answered.
func newThemeState(cfg config.Config) themeState {
	t := themeState{name: cfg.UI.Theme, dir: config.ThemeDir()}
	if t.name == "" {
		t.name = "dark"
	}
	if t.name == themes.Auto {
		t.auto, t.name = true, themes.Pick(nil)
	}
	return t
}

// setTheme draws with the palette called name from the next frame on.
func (m *Model) setTheme(name string) error {
	p, err := themes.Load(name, m.theme.dir)
	if err != nil {
		return err
	}
	m.theme.name = name
	m.ui = newUIStyles(p.Styles())
	m.comp.looks = m.ui.frame
	m.comp.reset()
	m.status = statusCache{}
	m.baseDirty, m.topDirty = true, true
	m.refreshInput()
	return nil
}

// cycleTheme switches to the next built-in theme (prefix T) and names it on
// the status line; a choice made by hand ends "auto".
func (m *Model) cycleTheme() tea.Cmd {
	names := themes.Names()
	next := names[(slices.Index(names, m.theme.name)+1)%len(names)]
	m.theme.auto = false
	if err := m.setTheme(next); err != nil {
		return m.flash(err.Error())
	}
	return m.flash("theme: " + next)
}

// followOuterScheme picks light or dark for theme = "auto" when the outer
// terminal said its background colour (bg) or its scheme (light).
func (m *Model) followOuterScheme(bg color.Color, light *bool) {
	if !m.theme.auto {
		return
	}
	want := themes.Pick(bg)
	if light != nil {
		want = "dark"
		if *light {
			want = "light"
		}
	}
	if want != m.theme.name {
		_ = m.setTheme(want) // built-in: cannot fail
	}
}

// onColorScheme follows the terminal's light or dark report.
func (m *Model) onColorScheme(msg termrt.ColorSchemeMsg) tea.Cmd {
	light := msg.Light
	m.followOuterScheme(nil, &light)
	return nil
}

package ui

import (
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
	"strings"

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
	// outer is what "auto" means for the outer terminal, light or dark,
	// once it said; "" before.
	outer string
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

// cycleTheme switches to the next theme (prefix T): the built-in ones,
// then the user's own files in the themes directory by name, read afresh
// on each press. It names the theme on the status line; a user file that
// does not load is skipped, and the status line says why. A choice made by
// hand ends "auto".
func (m *Model) cycleTheme() tea.Cmd {
	names := append(themes.Names(), themes.UserNames(m.theme.dir)...)
	at := slices.Index(names, m.theme.name)
	var skipped []string
	for i := 1; i <= len(names); i++ {
		next := names[(at+i)%len(names)]
		if next == m.theme.name {
			break
		}
		if err := m.setTheme(next); err != nil {
			// The file's name is enough on one line; the directory is known.
			skipped = append(skipped, strings.TrimPrefix(err.Error(), m.theme.dir+string(filepath.Separator)))
			continue
		}
		m.theme.auto = false
		msg := "theme: " + next
		if len(skipped) > 0 {
			msg += " (skipped " + strings.Join(skipped, "; ") + ")"
		}
		return m.flash(msg)
	}
	return m.flash("theme: " + m.theme.name + " (no other theme loads: " + strings.Join(skipped, "; ") + ")")
}

// followOuterScheme picks light or dark for theme = "auto" when the outer
// terminal said its background colour (bg) or its scheme (light).
func (m *Model) followOuterScheme(bg color.Color, light *bool) {
	want := themes.Pick(bg)
	if light != nil {
		want = "dark"
		if *light {
			want = "light"
		}
	}
	m.theme.outer = want
	if !m.theme.auto {
		return
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

// newCommandPrompt asks for a command (prefix :).
func newCommandPrompt(w, h int, st uiStyles) *promptOverlay {
	p := &promptOverlay{purpose: promptCommand, title: "command", st: st}
	p.init(":", "theme NAME, e.g. theme nord or theme auto")
	p.SetSize(w, h)
	return p
}

// submitCommand runs a command typed at the command prompt; an unknown or
// malformed one keeps the prompt open with the reason. The commands change
// only this view.
func (m *Model) submitCommand(text string) (tea.Cmd, error) {
	words := strings.Fields(text)
	if len(words) == 0 {
		return nil, fmt.Errorf("type a command: theme NAME")
	}
	switch words[0] {
	case "theme":
		if len(words) != 2 {
			return nil, fmt.Errorf("theme takes one name: %s, auto, or a file of yours in %s", strings.Join(themes.Names(), ", "), m.theme.dir)
		}
		name := words[1]
		if name == themes.Auto {
			m.theme.auto = true
			name = m.theme.outer
			if name == "" {
				name = themes.Pick(nil)
			}
		} else {
			m.theme.auto = false
		}
		if err := m.setTheme(name); err != nil {
			return nil, err
		}
		m.setOverlay(nil)
		return m.flash("theme: " + words[1]), nil
	}
	return nil, fmt.Errorf("unknown command %q; the commands are: theme NAME", words[0])
}

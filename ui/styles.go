package ui

import (
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/themes"
)

// uiStyles are the theme resolved once into the raw SGR prefixes the UI
// writes, so drawing a frame never runs a style renderer.
type uiStyles struct {
	frame  frameStyles
	status hooks.StatusLineStyle
	badges map[string]string // state -> SGR prefix on the default background

	prefixSGR string // the armed-prefix indicator in the status line

	// Overlay styles all carry the overlay background, so a widget is one
	// solid block over the panes.
	box       boxStyle
	ovBadges  map[string]string
	mutedSGR  string
	errorSGR  string
	selectSGR string // the selected row of a list
	titleSGR  string // section titles
	keySGR    string // key names in the help
}

// badge returns the SGR prefix of a state's badge in a pane border.
func (s uiStyles) badge(state string) string { return s.badges[state] }

// ovBadge returns the SGR prefix of a state's badge inside an overlay.
func (s uiStyles) ovBadge(state string) string { return s.ovBadges[state] }

// sgrStyle builds a reset-prefixed SGR sequence from palette colours ("" is
// the terminal default).
func sgrStyle(fg, bg string, bold, faint, reverse bool) string {
	st := ansi.Style{}.Reset()
	if bold {
		st = st.Bold()
	}
	if faint {
		st = st.Faint()
	}
	if reverse {
		st = st.Reverse(true)
	}
	if fg != "" {
		st = st.ForegroundColor(lipgloss.Color(fg))
	}
	if bg != "" {
		st = st.BackgroundColor(lipgloss.Color(bg))
	}
	return st.String()
}

// newUIStyles resolves the theme's styles for the UI.
func newUIStyles(t themes.Styles) uiStyles {
	p, g := t.Palette, t.SGR
	s := uiStyles{
		frame: frameStyles{
			border:        g.Border,
			borderFocus:   g.BorderFocused,
			borderWaiting: g.BorderWaiting,
			title:         g.Title,
			titleFocus:    g.TitleFocused,
			number:        sgrStyle(p.Accent, "", true, false, false),
			numberFocus:   sgrStyle(p.BorderFocus, "", true, false, true),
			entry:         g.Muted,
			muted:         g.Muted,
			match:         sgrStyle(p.Bg, p.Badge(string(agentstate.Waiting)), true, false, false),
		},
		status: hooks.StatusLineStyle{
			Base:    g.StatusLine,
			Counts:  g.StatusCounts,
			Waiting: sgrStyle(p.Badge(string(agentstate.Waiting)), p.StatusBg, true, false, false),
			Failed:  sgrStyle(p.Badge(string(agentstate.Failed)), p.StatusBg, true, false, false),
			Entry:   g.StatusEntry,
			Stale:   g.StatusStale,
			Focus:   sgrStyle(p.StatusFg, p.StatusBg, true, false, false),
			Sep:     sgrStyle(p.StatusStale, p.StatusBg, false, false, false),
		},
		badges:    map[string]string{},
		prefixSGR: sgrStyle(p.Accent, "", true, false, true),
		box: boxStyle{
			border: g.OverlayBorder,
			title:  g.OverlayTitle,
			text:   g.Overlay,
			hint:   sgrStyle(p.Muted, p.OverlayBg, false, false, false),
		},
		ovBadges:  map[string]string{},
		mutedSGR:  sgrStyle(p.Muted, p.OverlayBg, false, false, false),
		errorSGR:  sgrStyle(p.Error, p.OverlayBg, true, false, false),
		selectSGR: g.OverlaySelect,
		titleSGR:  g.OverlayTitle,
		keySGR:    sgrStyle(p.HelpKey, p.OverlayBg, true, false, false),
	}
	for _, b := range agentstate.Badges() {
		st := string(b)
		s.badges[st] = g.BadgeSGR(st)
		s.ovBadges[st] = sgrStyle(p.Badge(st), p.OverlayBg, true, false, false)
	}
	return s
}

package ui

import (
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/themes"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// uiStyles are the theme resolved once into the raw SGR prefixes the UI
// writes, so drawing a frame never runs a style renderer.
type uiStyles struct {
	frame  frameStyles
	status hooks.StatusLineStyle
	badges map[string]string // state -> SGR prefix on the default background

	prefixSGR string // the armed-prefix indicator in the status line

	// Overlay looks all carry the overlay background, so a widget is one
	// solid block over the panes.
	box      boxStyle
	ovBadges map[string]termrt.Style
	muted    termrt.Style
	errLook  termrt.Style
	selected termrt.Style // the selected row of a list
	title    termrt.Style // section titles
	key      termrt.Style // key names in the help
}

// badge returns the SGR prefix of a state's badge in a pane border.
func (s uiStyles) badge(state string) string { return s.badges[state] }

// ovBadge returns the look of a state's badge inside an overlay.
func (s uiStyles) ovBadge(state string) termrt.Style { return s.ovBadges[state] }

// look builds a cell look from palette colours ("" is the terminal
// default), as sgrStyle builds an SGR prefix.
func look(fg, bg string, bold, faint, reverse bool) termrt.Style {
	var st termrt.Style
	if bold {
		st.Attrs |= vterm.AttrBold
	}
	if faint {
		st.Attrs |= vterm.AttrFaint
	}
	if reverse {
		st.Attrs |= vterm.AttrReverse
	}
	st.Fg, st.Bg = paletteColor(fg), paletteColor(bg)
	return st
}

// paletteColor is a palette colour ("#rrggbb" or a palette index) as a
// cell colour; "" is the default.
func paletteColor(c string) vterm.Color {
	if c == "" {
		return 0
	}
	switch col := lipgloss.Color(c).(type) {
	case ansi.BasicColor:
		return vterm.IndexedColor(uint8(col))
	case ansi.IndexedColor:
		return vterm.IndexedColor(uint8(col))
	case nil:
		return 0
	default:
		r, g, b, _ := col.RGBA()
		return vterm.RGBColor(uint8(r>>8), uint8(g>>8), uint8(b>>8))
	}
}

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
		// The theme's own overlay prefixes are read once, here.
		box: boxStyle{
			border: styleOf(g.OverlayBorder),
			title:  styleOf(g.OverlayTitle),
			text:   styleOf(g.Overlay),
			hint:   look(p.Muted, p.OverlayBg, false, false, false),
		},
		ovBadges: map[string]termrt.Style{},
		muted:    look(p.Muted, p.OverlayBg, false, false, false),
		errLook:  look(p.Error, p.OverlayBg, true, false, false),
		selected: styleOf(g.OverlaySelect),
		title:    styleOf(g.OverlayTitle),
		key:      look(p.HelpKey, p.OverlayBg, true, false, false),
	}
	for _, b := range agentstate.Badges() {
		st := string(b)
		s.badges[st] = g.BadgeSGR(st)
		s.ovBadges[st] = look(p.Badge(st), p.OverlayBg, true, false, false)
	}
	return s
}

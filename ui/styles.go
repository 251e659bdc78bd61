package ui

import (
	"image/color"
	"strconv"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/themes"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// uiStyles are the theme's styles as the cell styles the UI draws with,
// converted once when the model is built.
type uiStyles struct {
	frame  frameLooks
	status [hooks.NumStatusStyles]termrt.Style // by the status line's part
	badges map[string]termrt.Style             // state -> its badge in a pane border
	prefix termrt.Style                        // the armed-prefix indicator in the status line

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

// badge returns the look of a state's badge in a pane border.
func (s uiStyles) badge(state string) termrt.Style { return s.badges[state] }

// ovBadge returns the look of a state's badge inside an overlay.
func (s uiStyles) ovBadge(state string) termrt.Style { return s.ovBadges[state] }

// statusLine turns the status line's segments into spans, each part in its
// style.
func (s *uiStyles) statusLine(l hooks.StatusLine) line {
	out := make(line, len(l))
	for i, seg := range l {
		out[i] = span{text: seg.Text, st: s.status[seg.Style]}
	}
	return out
}

// cellStyle is a theme style as a cell style: the same colours and
// attributes, no escape sequence in between.
func cellStyle(s uv.Style) termrt.Style {
	st := termrt.Style{Fg: cellColor(s.Fg), Bg: cellColor(s.Bg)}
	for _, a := range [...]struct {
		uv   uint8
		cell vterm.Attr
	}{
		{uv.AttrBold, vterm.AttrBold}, {uv.AttrFaint, vterm.AttrFaint}, {uv.AttrItalic, vterm.AttrItalic},
		{uv.AttrBlink, vterm.AttrBlink}, {uv.AttrReverse, vterm.AttrReverse},
		{uv.AttrConceal, vterm.AttrInvisible}, {uv.AttrStrikethrough, vterm.AttrStrikethrough},
	} {
		if s.Attrs&a.uv != 0 {
			st.Attrs |= a.cell
		}
	}
	return st
}

// cellColor is a theme colour as a cell colour: a palette index stays an
// index, anything else is its RGB value; nil is the default.
func cellColor(c color.Color) vterm.Color {
	switch col := c.(type) {
	case nil:
		return vterm.DefaultColor
	case ansi.BasicColor:
		return vterm.IndexedColor(uint8(col))
	case ansi.IndexedColor:
		return vterm.IndexedColor(uint8(col))
	default:
		r, g, b, _ := col.RGBA()
		return vterm.RGBColor(uint8(r>>8), uint8(g>>8), uint8(b>>8))
	}
}

// accentColor is a pane's accent ("4", "#ff8800": the colour its program
// chose through tmux styles) as a cell colour; anything else is the
// default, and the border keeps the theme's colour.
func accentColor(s string) vterm.Color {
	if s == "" {
		return vterm.DefaultColor // most panes: no error value built per frame
	}
	if h, ok := strings.CutPrefix(s, "#"); ok {
		if v, err := strconv.ParseUint(h, 16, 32); err == nil && len(h) == 6 {
			return vterm.RGBColor(uint8(v>>16), uint8(v>>8), uint8(v))
		}
		return vterm.DefaultColor
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n <= 255 {
		return vterm.IndexedColor(uint8(n))
	}
	return vterm.DefaultColor
}

// newUIStyles converts the theme's styles for the UI.
func newUIStyles(t themes.Styles) uiStyles {
	c := cellStyle
	s := uiStyles{
		frame: frameLooks{
			border:        c(t.Border),
			borderFocus:   c(t.BorderFocused),
			borderWaiting: c(t.BorderWaiting),
			title:         c(t.Title),
			titleFocus:    c(t.TitleFocused),
			number:        c(t.Number),
			numberFocus:   c(t.NumberFocused),
			entry:         c(t.Entry),
			muted:         c(t.Muted),
			match:         c(t.Match),
		},
		badges: map[string]termrt.Style{},
		prefix: c(t.Prefix),
		box: boxStyle{
			border: c(t.OverlayBorder),
			title:  c(t.OverlayTitle),
			text:   c(t.Overlay),
			hint:   c(t.OverlayMuted),
		},
		ovBadges: map[string]termrt.Style{},
		muted:    c(t.OverlayMuted),
		errLook:  c(t.OverlayError),
		selected: c(t.OverlaySelected),
		title:    c(t.OverlayTitle),
		key:      c(t.HelpKey),
	}
	s.status[hooks.StyleBase] = c(t.StatusLine)
	s.status[hooks.StyleCounts] = c(t.StatusCounts)
	s.status[hooks.StyleWaiting] = c(t.StatusWaiting)
	s.status[hooks.StyleFailed] = c(t.StatusFailed)
	s.status[hooks.StyleEntry] = c(t.StatusEntry)
	s.status[hooks.StyleStale] = c(t.StatusStale)
	s.status[hooks.StyleFocus] = c(t.StatusFocus)
	s.status[hooks.StyleSep] = c(t.StatusSep)
	for st, v := range t.Badge {
		s.badges[st] = c(v)
	}
	for st, v := range t.OverlayBadge {
		s.ovBadges[st] = c(v)
	}
	return s
}

package themes

import (
	"image/color"
	"strconv"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// Styles is every look the UI draws with, resolved once from a Palette and
// passed down: cell styles (colours and attributes) built straight from
// the palette's colours, so nothing between the theme and the screen writes
// or parses an escape sequence. A nil colour is the terminal's default.
type Styles struct {
	Palette Palette

	// Base is the default text colour on the default background.
	Base   uv.Style
	Muted  uv.Style
	Accent uv.Style

	Border        uv.Style
	BorderFocused uv.Style
	BorderWaiting uv.Style
	// Title is a pane title in its border; TitleFocused the focused one's.
	Title        uv.Style
	TitleFocused uv.Style
	// Number is a pane's number in its border; NumberFocused the focused one's.
	Number        uv.Style
	NumberFocused uv.Style
	// Entry is a status entry in a pane's border.
	Entry uv.Style
	// Match is a search match in a pane's content.
	Match uv.Style
	// Badge maps an agent state (see agentstate.Badges) to its badge in a
	// pane border; OverlayBadge to its badge inside an overlay.
	Badge        map[string]uv.Style
	OverlayBadge map[string]uv.Style

	// The status line: the line itself (padding and text between parts),
	// the counts, the waiting and failed counts, fresh and stale entries,
	// the focused pane's title, the separators, and the armed prefix key.
	StatusLine    uv.Style
	StatusCounts  uv.Style
	StatusWaiting uv.Style
	StatusFailed  uv.Style
	StatusEntry   uv.Style
	StatusStale   uv.Style
	StatusFocus   uv.Style
	StatusSep     uv.Style
	Prefix        uv.Style

	// Overlays (agents list, help, prompts) all carry the overlay
	// background, so a widget is one solid block over the panes.
	Overlay         uv.Style // text
	OverlayBorder   uv.Style
	OverlayTitle    uv.Style
	OverlaySelected uv.Style
	OverlayMuted    uv.Style
	OverlayError    uv.Style
	HelpKey         uv.Style
	HelpDesc        uv.Style

	// Notice is the one-line "terminal too small" message.
	Notice uv.Style
}

// BadgeStyle returns the badge style of a state, or Muted for an unknown one.
func (s Styles) BadgeStyle(state string) uv.Style {
	if st, ok := s.Badge[state]; ok {
		return st
	}
	return s.Muted
}

// Color converts a palette colour ("#rrggbb", "#rgb", "0".."255") to a
// colour: an ANSI colour for 0..15, an indexed one for 16..255, else
// 24-bit; "" is nil, the terminal's default, and so is anything else
// (a palette is checked when it is loaded).
func Color(c string) color.Color {
	if rgb, ok := parseHex(c); ok {
		return rgb
	}
	switch n, err := strconv.Atoi(c); {
	case err != nil || n < 0 || n > 255:
		return nil
	case n < 16:
		return ansi.BasicColor(n)
	default:
		return ansi.IndexedColor(n)
	}
}

// parseHex reads "#rrggbb" or "#rgb".
func parseHex(s string) (color.RGBA, bool) {
	if len(s) != 7 && len(s) != 4 || s[0] != '#' {
		return color.RGBA{}, false
	}
	digits := make([]uint8, 0, 6)
	for i := 1; i < len(s); i++ {
		d, err := strconv.ParseUint(s[i:i+1], 16, 8)
		if err != nil {
			return color.RGBA{}, false
		}
		digits = append(digits, uint8(d))
	}
	if len(digits) == 3 {
		return color.RGBA{R: digits[0] * 17, G: digits[1] * 17, B: digits[2] * 17, A: 0xff}, true
	}
	return color.RGBA{R: digits[0]<<4 | digits[1], G: digits[2]<<4 | digits[3], B: digits[4]<<4 | digits[5], A: 0xff}, true
}

// look is fg on bg (either "" for the terminal's default) with attrs.
func look(fg, bg string, attrs uint8) uv.Style {
	return uv.Style{Fg: Color(fg), Bg: Color(bg), Attrs: attrs}
}

const (
	bold    = uv.AttrBold
	faint   = uv.AttrFaint
	reverse = uv.AttrReverse
)

// Styles resolves the palette into styles. Call it once per theme change.
func (p Palette) Styles() Styles {
	waiting, failed := p.Badge(string(agentstate.Waiting)), p.Badge(string(agentstate.Failed))
	s := Styles{
		Palette: p,
		Base:    look(p.Fg, p.Bg, 0),
		Muted:   look(p.Muted, "", 0),
		Accent:  look(p.Accent, "", 0),

		Border:        look(p.Border, "", 0),
		BorderFocused: look(p.BorderFocus, "", 0),
		BorderWaiting: look(p.BorderWaiting, "", 0),
		Title:         look(p.Title, "", 0),
		TitleFocused:  look(p.BorderFocus, "", bold),
		Number:        look(p.Accent, "", bold),
		NumberFocused: look(p.BorderFocus, "", bold|reverse),
		Entry:         look(p.Muted, "", 0),
		Match:         look(p.Bg, waiting, bold),
		Badge:         make(map[string]uv.Style, len(agentstate.Badges())),
		OverlayBadge:  make(map[string]uv.Style, len(agentstate.Badges())),

		StatusLine:    look(p.StatusFg, p.StatusBg, 0),
		StatusCounts:  look(p.StatusCounts, p.StatusBg, bold),
		StatusWaiting: look(waiting, p.StatusBg, bold),
		StatusFailed:  look(failed, p.StatusBg, bold),
		StatusEntry:   look(p.StatusEntry, p.StatusBg, 0),
		StatusStale:   look(p.StatusStale, p.StatusBg, faint),
		StatusFocus:   look(p.StatusFg, p.StatusBg, bold),
		StatusSep:     look(p.StatusStale, p.StatusBg, 0),
		Prefix:        look(p.Accent, "", bold|reverse),

		Overlay:         look(p.OverlayFg, p.OverlayBg, 0),
		OverlayBorder:   look(p.OverlayBorder, p.OverlayBg, 0),
		OverlayTitle:    look(p.Accent, p.OverlayBg, bold),
		OverlaySelected: look(p.OverlayFg, p.OverlaySelected, bold),
		OverlayMuted:    look(p.Muted, p.OverlayBg, 0),
		OverlayError:    look(p.Error, p.OverlayBg, bold),
		HelpKey:         look(p.HelpKey, p.OverlayBg, bold),
		HelpDesc:        look(p.HelpDesc, p.OverlayBg, 0),

		Notice: look(p.Notice, "", bold),
	}
	for _, b := range agentstate.Badges() {
		st := string(b)
		c := p.Badge(st)
		s.Badge[st] = look(c, "", bold)
		s.OverlayBadge[st] = look(c, p.OverlayBg, bold)
	}
	return s
}

// Describe lists the palette as "token = colour" lines, for
// `agentgrid config print` style output and debugging.
func (p Palette) Describe() string {
	var sb strings.Builder
	for _, t := range Tokens() {
		c, _ := p.Token(t)
		sb.WriteString(t + " = \"" + c + "\"\n")
	}
	return sb.String()
}

// TerminalColors are the default foreground and background a pane reports
// to a program that asks for them (OSC 10 and 11; vim picks its light or
// dark scheme from the background). They are the theme's foreground and
// background; where the theme leaves them to the terminal (""), a theme
// whose overlays are light is taken to be made for a light terminal (black
// on white), any other for a dark one (white on black).
func (p Palette) TerminalColors() (fg, bg color.Color) {
	fg, bg = color.White, color.Black
	if isLight(p.OverlayBg) {
		fg, bg = color.Black, color.White
	}
	if p.Fg != "" {
		fg = Color(p.Fg)
	}
	if p.Bg != "" {
		bg = Color(p.Bg)
	}
	return fg, bg
}

// isLight reports whether a palette colour is closer to white than to
// black (relative luminance above one half); "" is not.
func isLight(c string) bool {
	if c == "" {
		return false
	}
	return luminance(Color(c)) > 0.5
}

// luminance is a colour's brightness from 0 (black) to 1 (white), with the
// weights of relative luminance.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
}

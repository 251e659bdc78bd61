package themes

import (
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/charmbracelet/x/ansi"
)

// Styles is every style the UI draws with, resolved once from a Palette
// and passed down to the components.
type Styles struct {
	Palette Palette

	// Base is the default text colour on the default background.
	Base   lipgloss.Style
	Muted  lipgloss.Style
	Accent lipgloss.Style

	Border        lipgloss.Style
	BorderFocused lipgloss.Style
	BorderWaiting lipgloss.Style
	// Title is a pane title in its border; TitleFocused the focused one's.
	Title        lipgloss.Style
	TitleFocused lipgloss.Style
	// Badge maps an agent state (see agentstate.Badges) to its badge style.
	Badge map[string]lipgloss.Style

	StatusLine   lipgloss.Style
	StatusCounts lipgloss.Style
	StatusEntry  lipgloss.Style
	StatusStale  lipgloss.Style

	Overlay         lipgloss.Style // body: overlay colours and a rounded border
	OverlayTitle    lipgloss.Style
	OverlaySelected lipgloss.Style

	HelpKey  lipgloss.Style
	HelpDesc lipgloss.Style
	Notice   lipgloss.Style
	Error    lipgloss.Style

	// SGR holds raw escape sequences for the hot drawing path.
	SGR SGR
}

// SGR holds precomputed Select Graphic Rendition prefixes. Each one starts
// with a full reset, so it can be written before a run of cells without
// knowing what came before; end a styled run with Reset.
type SGR struct {
	Reset string

	Base, Muted, Accent                                 string
	Border, BorderFocused, BorderWaiting                string
	Title, TitleFocused                                 string
	Badge                                               map[string]string
	StatusLine, StatusCounts, StatusEntry, StatusStale  string
	Overlay, OverlayBorder, OverlayTitle, OverlaySelect string
	HelpKey, HelpDesc, Notice, Error                    string
}

// BadgeStyle returns the badge style of a state, or Muted for an unknown one.
func (s Styles) BadgeStyle(state string) lipgloss.Style {
	if st, ok := s.Badge[state]; ok {
		return st
	}
	return s.Muted
}

// BadgeSGR returns the badge SGR prefix of a state, or Muted's.
func (s SGR) BadgeSGR(state string) string {
	if v, ok := s.Badge[state]; ok {
		return v
	}
	return s.Muted
}

// lipColor converts a palette colour for lipgloss; "" means no colour.
func lipColor(c string) color.Color {
	if c == "" {
		return lipgloss.NoColor{}
	}
	return lipgloss.Color(c)
}

// ansiColor converts a palette colour for x/ansi; nil means the default.
func ansiColor(c string) ansi.Color {
	if c == "" {
		return nil
	}
	return lipgloss.Color(c)
}

// sgr builds a reset-prefixed SGR sequence for fg on bg (either may be ""
// for the terminal default, which is then left alone).
func sgr(fg, bg string, attrs ...func(ansi.Style) ansi.Style) string {
	st := ansi.Style{}.Reset()
	for _, a := range attrs {
		st = a(st)
	}
	if fg != "" {
		st = st.ForegroundColor(ansiColor(fg))
	}
	if bg != "" {
		st = st.BackgroundColor(ansiColor(bg))
	}
	return st.String()
}

func bold(s ansi.Style) ansi.Style  { return s.Bold() }
func faint(s ansi.Style) ansi.Style { return s.Faint() }

// Styles resolves the palette into styles. Call it once per theme change.
func (p Palette) Styles() Styles {
	fg := func(c string) lipgloss.Style { return lipgloss.NewStyle().Foreground(lipColor(c)) }
	on := func(c, bg string) lipgloss.Style { return fg(c).Background(lipColor(bg)) }

	s := Styles{
		Palette: p,
		Base:    on(p.Fg, p.Bg),
		Muted:   fg(p.Muted),
		Accent:  fg(p.Accent),

		Border:        fg(p.Border),
		BorderFocused: fg(p.BorderFocus),
		BorderWaiting: fg(p.BorderWaiting),
		Title:         fg(p.Title),
		TitleFocused:  fg(p.BorderFocus).Bold(true),
		Badge:         make(map[string]lipgloss.Style, len(agentstate.Badges())),

		StatusLine:   on(p.StatusFg, p.StatusBg),
		StatusCounts: on(p.StatusCounts, p.StatusBg).Bold(true),
		StatusEntry:  on(p.StatusEntry, p.StatusBg),
		StatusStale:  on(p.StatusStale, p.StatusBg).Faint(true),

		Overlay: on(p.OverlayFg, p.OverlayBg).
			Border(lipgloss.RoundedBorder()).
			BorderForeground(lipColor(p.OverlayBorder)).
			BorderBackground(lipColor(p.OverlayBg)).
			Padding(0, 1),
		OverlayTitle:    on(p.Accent, p.OverlayBg).Bold(true),
		OverlaySelected: on(p.OverlayFg, p.OverlaySelected).Bold(true),

		HelpKey:  fg(p.HelpKey).Bold(true),
		HelpDesc: fg(p.HelpDesc),
		Notice:   fg(p.Notice).Bold(true),
		Error:    fg(p.Error).Bold(true),
	}
	s.SGR = SGR{
		Reset:  ansi.ResetStyle,
		Base:   sgr(p.Fg, p.Bg),
		Muted:  sgr(p.Muted, ""),
		Accent: sgr(p.Accent, ""),

		Border:        sgr(p.Border, ""),
		BorderFocused: sgr(p.BorderFocus, ""),
		BorderWaiting: sgr(p.BorderWaiting, ""),
		Title:         sgr(p.Title, ""),
		TitleFocused:  sgr(p.BorderFocus, "", bold),
		Badge:         make(map[string]string, len(agentstate.Badges())),

		StatusLine:   sgr(p.StatusFg, p.StatusBg),
		StatusCounts: sgr(p.StatusCounts, p.StatusBg, bold),
		StatusEntry:  sgr(p.StatusEntry, p.StatusBg),
		StatusStale:  sgr(p.StatusStale, p.StatusBg, faint),

		Overlay:       sgr(p.OverlayFg, p.OverlayBg),
		OverlayBorder: sgr(p.OverlayBorder, p.OverlayBg),
		OverlayTitle:  sgr(p.Accent, p.OverlayBg, bold),
		OverlaySelect: sgr(p.OverlayFg, p.OverlaySelected, bold),

		HelpKey:  sgr(p.HelpKey, "", bold),
		HelpDesc: sgr(p.HelpDesc, ""),
		Notice:   sgr(p.Notice, "", bold),
		Error:    sgr(p.Error, "", bold),
	}
	for _, b := range agentstate.Badges() {
		st := string(b)
		c := p.Badge(st)
		s.Badge[st] = fg(c).Bold(true)
		s.SGR.Badge[st] = sgr(c, "", bold)
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
		fg = lipColor(p.Fg)
	}
	if p.Bg != "" {
		bg = lipColor(p.Bg)
	}
	return fg, bg
}

// isLight reports whether a palette colour is closer to white than to
// black (relative luminance above one half); "" is not.
func isLight(c string) bool {
	if c == "" {
		return false
	}
	r, g, b, _ := lipColor(c).RGBA()
	lum := 0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)
	return lum > 0.5*0xffff
}

package termrt

import (
	"strconv"
	"strings"
	"sync"

	"github.com/charmbracelet/colorprofile"
	"github.com/xo/terminfo"
)

// inTmux reports whether the terminal is tmux: $TMUX is set, or TERM names
// tmux. GNU screen (TERM=screen without $TMUX) is not.
func inTmux(env []string) bool {
	return getenv(env, "TMUX") != "" || strings.HasPrefix(getenv(env, "TERM"), "tmux")
}

// tmuxProfile is the colours to send to tmux, whose TERM names only 256:
// 24-bit when the terminal tmux was started from said it has them
// ($COLORTERM, which tmux passes on to its panes) — tmux itself then keeps
// them, or converts them for a client without them —, else detected.
func tmuxProfile(env []string, detected colorprofile.Profile) colorprofile.Profile {
	if detected >= colorprofile.ASCII && detected < colorprofile.TrueColor {
		switch strings.ToLower(getenv(env, "COLORTERM")) {
		case "truecolor", "24bit":
			return colorprofile.TrueColor
		}
	}
	return detected
}

// underlineCaps is whether the terminal shows the underline styles
// (double, curly, dotted, dashed: SGR 4:2 to 4:5) and underline colours
// (SGR 58). A terminal without them reads 4:3 as underline and italic in
// the best case, so they are only sent to terminals known to have them:
// tmux (it draws them as its own client can), terminals named by TERM,
// TERM_PROGRAM or VTE_VERSION, and any whose terminfo entry has Smulx
// (styles) and Setulc (colours).
func underlineCaps(env []string) (styles, colours bool) {
	term := getenv(env, "TERM")
	switch {
	case inTmux(env):
		return true, true
	case term == "" || term == "dumb" || term == "linux" || strings.HasPrefix(term, "screen") || strings.HasPrefix(term, "vt"):
		return false, false
	}
	for _, p := range []string{"kitty", "wezterm", "foot", "alacritty", "ghostty", "contour", "rio", "mintty"} {
		if strings.Contains(term, p) {
			return true, true
		}
	}
	switch getenv(env, "TERM_PROGRAM") {
	case "iTerm.app", "WezTerm", "ghostty", "mintty":
		return true, true
	}
	// VTE (GNOME Terminal and its kin) has both since 0.52.
	if v, err := strconv.Atoi(getenv(env, "VTE_VERSION")); err == nil && v >= 5200 {
		return true, true
	}
	c := terminfoUnderlines(term)
	return c.styles, c.colours
}

// underlines is what a terminfo entry says of underline styles and colours.
type underlines struct{ styles, colours bool }

// terminfoSeen is what each TERM's terminfo entry said, by TERM, for at
// most maxTermsSeen names (TERM comes from each attaching client).
var terminfoSeen struct {
	sync.Mutex
	by map[string]underlines
}

const maxTermsSeen = 32

// terminfoUnderlines reads term's terminfo entry once per process: a
// session server read it again for every client that attached.
func terminfoUnderlines(term string) underlines {
	terminfoSeen.Lock()
	c, ok := terminfoSeen.by[term]
	terminfoSeen.Unlock()
	if ok {
		return c
	}
	if ti, err := terminfo.Load(term); err == nil {
		ext := ti.ExtStringCapsShort()
		_, c.styles = ext["Smulx"]
		_, c.colours = ext["Setulc"]
	}
	terminfoSeen.Lock()
	defer terminfoSeen.Unlock()
	if terminfoSeen.by == nil {
		terminfoSeen.by = make(map[string]underlines)
	}
	if len(terminfoSeen.by) < maxTermsSeen {
		terminfoSeen.by[term] = c
	}
	return c
}

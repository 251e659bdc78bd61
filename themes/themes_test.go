package themes

import (
	"image/color"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

func TestBuiltinsDefineEveryToken(t *testing.T) {
	for _, name := range Names() {
		p, ok := Builtin(name)
		if !ok {
			t.Fatalf("Builtin(%q) missing", name)
		}
		rv := reflect.ValueOf(p)
		for i, tok := range Tokens() {
			c := rv.Field(i).String()
			if c == "" && tok != "foreground" && tok != "background" {
				t.Errorf("%s: token %s is empty", name, tok)
			}
			if err := checkColor(c); err != nil {
				t.Errorf("%s: token %s: %v", name, tok, err)
			}
		}
	}
	if _, ok := Builtin("neon"); ok {
		t.Error("Builtin(neon) found")
	}
	dark, _ := Builtin("dark")
	light, _ := Builtin("light")
	if dark == light {
		t.Error("dark and light are the same palette")
	}
}

func TestTokensCoverUI(t *testing.T) {
	want := []string{"foreground", "background", "muted", "accent", "border", "border_focused", "border_waiting", "title",
		"status_bg", "status_fg", "status_counts", "status_entry", "status_stale",
		"overlay_bg", "overlay_fg", "overlay_border", "overlay_selected", "help_key", "help_desc", "notice", "error"}
	for _, b := range agentstate.Badges() {
		st := string(b)
		want = append(want, "badge_"+st)
	}
	got := map[string]bool{}
	for _, tok := range Tokens() {
		if got[tok] {
			t.Errorf("token %s twice", tok)
		}
		got[tok] = true
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("token %s missing", w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d tokens, want %d", len(got), len(want))
	}
}

func TestStyles(t *testing.T) {
	p, _ := Builtin("dark")
	s := p.Styles()
	rgb := func(c color.Color) [3]uint32 {
		if c == nil {
			return [3]uint32{1 << 31}
		}
		r, g, b, _ := c.RGBA()
		return [3]uint32{r >> 8, g >> 8, b >> 8}
	}
	// #4a4d5e is the dark border colour.
	if got := rgb(s.Border.Fg); got != [3]uint32{74, 77, 94} || s.Border.Bg != nil || s.Border.Attrs != 0 {
		t.Errorf("Border = %+v (rgb %v)", s.Border, got)
	}
	for _, b := range agentstate.Badges() {
		st := string(b)
		v, ok := s.Badge[st]
		if !ok {
			t.Errorf("no badge style for %s", st)
		}
		if v.Attrs != uv.AttrBold || v.Fg == nil || rgb(v.Fg) != rgb(Color(p.Badge(st))) {
			t.Errorf("badge style for %s = %+v", st, v)
		}
		if o := s.OverlayBadge[st]; rgb(o.Fg) != rgb(v.Fg) || rgb(o.Bg) != rgb(Color(p.OverlayBg)) {
			t.Errorf("overlay badge for %s = %+v", st, o)
		}
	}
	if s.BadgeStyle("bogus") != s.Muted {
		t.Error("unknown state does not fall back to muted")
	}
	if got := rgb(s.BadgeStyle("running").Fg); got != [3]uint32{152, 214, 143} {
		t.Errorf("running badge colour = %v", got)
	}
	if s.StatusStale.Attrs&uv.AttrFaint == 0 || s.StatusEntry.Attrs&uv.AttrFaint != 0 {
		t.Error("stale entries are not dimmed")
	}
	// Every part of the status line keeps its background.
	for i, v := range []uv.Style{s.StatusLine, s.StatusCounts, s.StatusWaiting, s.StatusFailed, s.StatusEntry,
		s.StatusStale, s.StatusFocus, s.StatusSep} {
		if rgb(v.Bg) != rgb(Color(p.StatusBg)) {
			t.Errorf("status style %d has background %v, want status_bg", i, rgb(v.Bg))
		}
	}
	// Default colours leave the terminal's own colours alone.
	if got := (Palette{}).Styles().Border; got.Fg != nil || got.Bg != nil {
		t.Errorf("empty palette border = %+v", got)
	}
	if got := (Palette{Border: "4"}).Styles().Border.Fg; got != ansi.BasicColor(4) {
		t.Errorf("ANSI 4 border colour = %#v", got)
	}
	if got := (Palette{Border: "208"}).Styles().Border.Fg; got != ansi.IndexedColor(208) {
		t.Errorf("ANSI 208 border colour = %#v", got)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name+".toml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mine", "base = \"light\"\nborder = \"#123456\"\nbadge_failed = \"9\"\n")
	p, err := Load("mine", dir)
	if err != nil {
		t.Fatal(err)
	}
	light, _ := Builtin("light")
	want := light
	want.Border, want.Failed = "#123456", "9"
	if p != want {
		t.Errorf("mine = %+v, want light with two changes", p)
	}

	// A user file shadows a built-in name.
	write("dark", "accent = \"#fff\"\n")
	if p, err := Load("dark", dir); err != nil || p.Accent != "#fff" {
		t.Errorf("shadowed dark: %v %+v", err, p)
	}
	// Built-ins load without a user dir.
	if p, err := Load("light", ""); err != nil || p != light {
		t.Errorf("Load(light) = %v", err)
	}

	cases := []struct {
		name, text string
		want       []string
	}{
		{"strict", "boarder = \"#fff\"\naccent = 12\nmuted = \"#12345\"\nerror = \"300\"\ntitle = \"red\"\n", []string{
			`strict.toml:1: unknown token "boarder"`,
			`strict.toml:2: accent: expected a colour string`,
			`strict.toml:3: muted = "#12345": not a #rrggbb or #rgb colour`,
			`strict.toml:4: error = "300": not a colour`,
			`strict.toml:5: title = "red": not a colour`,
		}},
		{"badbase", "\n\nbase = \"neon\"\n", []string{`badbase.toml:3: base = neon: must be one of dark, light, solarized, gruvbox, nord, high-contrast`}},
		{"syntax", "accent = \n", []string{`syntax.toml:1: TOML syntax`}},
		{"header", "base = \"dark\"\n[x\naccent = \"#ffffff\"\n", []string{`header.toml:2: TOML syntax`}},
	}
	for _, c := range cases {
		write(c.name, c.text)
		_, err := Load(c.name, dir)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != len(c.want) {
			t.Errorf("%s: got %d errors, want %d:\n%v", c.name, len(lines), len(c.want), err)
			continue
		}
		for i, w := range c.want {
			if !strings.HasPrefix(lines[i], filepath.Join(dir, w)) {
				t.Errorf("%s: error %d = %q, want prefix %q", c.name, i, lines[i], w)
			}
		}
	}

	for _, bad := range []string{"", "../x", "a/b", ".."} {
		if _, err := Load(bad, dir); err == nil {
			t.Errorf("Load(%q) accepted", bad)
		}
	}
	if _, err := Load("neon", dir); err == nil || !strings.Contains(err.Error(), "neon.toml does not exist") {
		t.Errorf("Load(neon) = %v", err)
	}
}

func TestBuiltinRequiresEveryToken(t *testing.T) {
	_, err := parse("partial.toml", []byte("accent = \"#fff\"\n"), nil)
	if err == nil || !strings.Contains(err.Error(), `token "border" is missing`) {
		t.Errorf("parse without base = %v", err)
	}
}

func TestDescribeAndToken(t *testing.T) {
	p, _ := Builtin("dark")
	d := p.Describe()
	if !strings.Contains(d, "border = \"#4a4d5e\"\n") || strings.Count(d, "\n") != len(Tokens()) {
		t.Errorf("Describe = %q", d)
	}
	if _, ok := p.Token("nope"); ok {
		t.Error("Token(nope) found")
	}
	if p.Badge("waiting") != p.Waiting || p.Badge("nope") != "" {
		t.Error("Badge lookup is wrong")
	}
}

// TestTerminalColors: a program asking a pane for its colours (OSC 10/11)
// learns a light background under the light theme and a dark one under the
// dark theme, and the theme's own foreground and background when it sets
// them.
func TestTerminalColors(t *testing.T) {
	rgb := func(c color.Color) [3]uint32 {
		r, g, b, _ := c.RGBA()
		return [3]uint32{r >> 8, g >> 8, b >> 8}
	}
	for _, tc := range []struct {
		theme  string
		fg, bg [3]uint32
	}{
		{"dark", [3]uint32{255, 255, 255}, [3]uint32{0, 0, 0}},
		{"light", [3]uint32{0, 0, 0}, [3]uint32{255, 255, 255}},
	} {
		p, ok := Builtin(tc.theme)
		if !ok {
			t.Fatalf("no theme %s", tc.theme)
		}
		fg, bg := p.TerminalColors()
		if rgb(fg) != tc.fg || rgb(bg) != tc.bg {
			t.Errorf("%s: colours %v on %v, want %v on %v", tc.theme, rgb(fg), rgb(bg), tc.fg, tc.bg)
		}
	}
	p, _ := Builtin("light")
	p.Fg, p.Bg = "#102030", "#fafaf0"
	fg, bg := p.TerminalColors()
	if rgb(fg) != [3]uint32{0x10, 0x20, 0x30} || rgb(bg) != [3]uint32{0xfa, 0xfa, 0xf0} {
		t.Errorf("theme colours: %v on %v", rgb(fg), rgb(bg))
	}
}

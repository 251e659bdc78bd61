package themes

import (
	"image/color"
	"math"
	"testing"
)

// contrast is the WCAG contrast ratio of two palette colours (1 to 21).
func contrast(a, b string) float64 {
	lin := func(c color.Color) float64 {
		r, g, bl, _ := c.RGBA()
		ch := func(v uint32) float64 {
			x := float64(v) / 0xffff
			if x <= 0.03928 {
				return x / 12.92
			}
			return math.Pow((x+0.055)/1.055, 2.4)
		}
		return 0.2126*ch(r) + 0.7152*ch(g) + 0.0722*ch(bl)
	}
	la, lb := lin(Color(a)), lin(Color(b))
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// TestEveryThemeIsReadable checks each built-in theme's text against what
// it is drawn on: the status line and the overlays' text at least 4.5:1
// (7:1 for high-contrast), keys, badges in overlays, errors and the
// selected row at least 3:1; the focused border stands out from the
// others. A light theme's surfaces are light and a dark theme's dark.
func TestEveryThemeIsReadable(t *testing.T) {
	if n := len(Names()); n < 6 {
		t.Fatalf("%d built-in themes, want at least six", n)
	}
	for _, name := range Names() {
		p, ok := Builtin(name)
		if !ok {
			t.Fatalf("no built-in %s", name)
		}
		text := 4.5
		if name == "high-contrast" {
			text = 7
		}
		pairs := []struct {
			what    string
			fg, bg  string
			atLeast float64
		}{
			{"status text", p.StatusFg, p.StatusBg, text},
			{"status counts", p.StatusCounts, p.StatusBg, text},
			{"overlay text", p.OverlayFg, p.OverlayBg, text},
			{"selected row", p.OverlayFg, p.OverlaySelected, text},
			{"help keys", p.HelpKey, p.OverlayBg, 3},
			{"errors", p.Error, p.OverlayBg, 3},
			{"overlay border", p.OverlayBorder, p.OverlayBg, 3},
			{"waiting badge on the status line", p.Waiting, p.StatusBg, 3},
			{"failed badge on the status line", p.Failed, p.StatusBg, 3},
		}
		for _, pr := range pairs {
			if c := contrast(pr.fg, pr.bg); c < pr.atLeast {
				t.Errorf("%s: %s %s on %s has contrast %.2f, want at least %.1f", name, pr.what, pr.fg, pr.bg, c, pr.atLeast)
			}
		}
		if p.BorderFocus == p.Border || p.BorderWaiting == p.Border {
			t.Errorf("%s: the focused or waiting border looks like the others", name)
		}
		if light := isLight(p.OverlayBg); light != (name == "light") {
			t.Errorf("%s: overlay background %s light = %v", name, p.OverlayBg, light)
		}
		// Every built-in can be the base of a user theme.
		if _, err := Parse(name+"-user.toml", []byte("base = \""+name+"\"\naccent = \"#123456\"\n")); err != nil {
			t.Errorf("base = %q: %v", name, err)
		}
	}
}

// TestPick: "auto" is light on a light background, dark on a dark one or
// when the terminal did not answer.
func TestPick(t *testing.T) {
	for _, c := range []struct {
		bg   color.Color
		want string
	}{
		{color.White, "light"},
		{color.RGBA{0xfd, 0xf6, 0xe3, 0xff}, "light"},
		{color.Black, "dark"},
		{color.RGBA{0x28, 0x28, 0x28, 0xff}, "dark"},
		{nil, "dark"},
	} {
		if got := Pick(c.bg); got != c.want {
			t.Errorf("Pick(%v) = %s, want %s", c.bg, got, c.want)
		}
	}
}

package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/themes"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// TestStatusLineCellsFromThePalette: each part of the bottom row is drawn
// in the theme's colours for it, taken from the palette's tokens (read
// here independently of the theme's code), with no escape sequence in
// between; a stale entry is dimmed; the armed prefix comes first, in
// reverse video.
func TestStatusLineCellsFromThePalette(t *testing.T) {
	snap := testSnapshot()
	snap.Counts = agentstate.Counts{Running: 1, Waiting: 2, Failed: 1}
	m, eng := newTestModel(t, snap)
	now := testNow
	eng.status = hooks.NewStatusStore(func() time.Time { return now })
	eng.status.SetStaleAfter(time.Minute)
	eng.status.Set("old", "stale one", "", "test", 0)
	now = now.Add(2 * time.Minute)
	eng.status.Set("build", "✓ green", "", "test", 0)
	m.refresh()
	m.View()
	p, _ := themes.Builtin("dark")
	hex := func(tok string) vterm.Color {
		c, _ := p.Token(tok)
		return accentColor(c) // "#rrggbb" and indexes as the palette writes them
	}
	bg := hex("status_bg")
	row := m.final.Row(m.final.H - 1)
	text := ""
	for _, c := range row {
		text += c.Content
	}
	if !strings.HasPrefix(text, " 1 running · 2 waiting · 1 failed │ ✓ green  stale one │ main-title") {
		t.Fatalf("status row = %q", text)
	}
	for _, want := range []struct {
		text string
		st   termrt.Style
	}{
		{"1 running", termrt.Style{Fg: hex("status_counts"), Bg: bg, Attrs: vterm.AttrBold}},
		{"2 waiting", termrt.Style{Fg: hex("badge_waiting"), Bg: bg, Attrs: vterm.AttrBold}},
		{"1 failed", termrt.Style{Fg: hex("badge_failed"), Bg: bg, Attrs: vterm.AttrBold}},
		{"✓ green", termrt.Style{Fg: hex("status_entry"), Bg: bg}},
		{"stale one", termrt.Style{Fg: hex("status_stale"), Bg: bg, Attrs: vterm.AttrFaint}},
		{"main-title", termrt.Style{Fg: hex("status_fg"), Bg: bg, Attrs: vterm.AttrBold}},
		{" │ ", termrt.Style{Fg: hex("status_stale"), Bg: bg}},
	} {
		if !hasStyled(m.final, want.text, want.st) {
			t.Errorf("%q is not drawn in %+v", want.text, want.st)
		}
	}
	// The row is padded to the edge in the line's own colours.
	if last := row[len(row)-1]; last.Content != " " || last.Bg != bg || last.Fg != hex("status_fg") {
		t.Errorf("padding = %+v", last)
	}

	m.prefixArmed = true
	m.refresh()
	m.View()
	if !hasStyled(m.final, " "+m.prefix+" ", termrt.Style{Fg: hex("accent"), Attrs: vterm.AttrBold | vterm.AttrReverse}) {
		t.Error("the armed prefix is not drawn first in the accent colour, reversed")
	}
}

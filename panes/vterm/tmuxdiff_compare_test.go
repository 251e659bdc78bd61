package vterm

// Capture parsing and comparison for the tmux differential suite
// (tmuxdiff_test.go).

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// diffScreen is what is compared: per row, the runes with their styles
// (trailing default blanks dropped), the cursor and a few modes.
type diffScreen struct {
	rows    [][]diffRune
	cursorX int
	cursorY int
	visible bool
	alt     bool
	appCur  bool
	appKey  bool
	history int   // lines in the scrollback
	widths  []int // columns each row's compared text occupies
}

type diffRune struct {
	end int // emulator only: the column after the cell holding the rune
	r   rune
	s   diffStyle
}

// diffStyle is a normalised style: palette colours are indexes whichever SGR
// form set them, so "31" and "38;5;1" compare equal.
type diffStyle struct {
	fg, bg, ul string
	attrs      Attr
	ulStyle    UnderlineStyle
}

func (s diffStyle) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fg=%s bg=%s", s.fg, s.bg)
	if s.ul != "" {
		fmt.Fprintf(&b, " ul=%s", s.ul)
	}
	if s.ulStyle != UnderlineNone {
		fmt.Fprintf(&b, " ulstyle=%d", s.ulStyle)
	}
	names := []string{"bold", "faint", "italic", "blink", "reverse", "invisible", "strike", "overline"}
	for i, n := range names {
		if s.attrs&(1<<i) != 0 {
			b.WriteString(" " + n)
		}
	}
	return b.String()
}

func diffColorName(c Color) string {
	if i, ok := c.Indexed(); ok {
		return strconv.Itoa(int(i))
	}
	if r, g, b, ok := c.RGB(); ok {
		return fmt.Sprintf("#%02x%02x%02x", r, g, b)
	}
	return "default"
}

func diffEmulatorScreen(c diffCase) diffScreen {
	term := New(c.w, c.h, WithScrollback(2000), WithReplyWriter(io.Discard))
	_, _ = term.Write([]byte(c.in))
	st := diffScreen{}
	for y := 0; y < c.h; y++ {
		var row []diffRune
		for x := 0; x < c.w; x++ {
			cell := term.Cell(x, y)
			if cell.Width == 0 {
				continue // right half of a wide character
			}
			s := diffStyle{fg: diffColorName(cell.Fg), bg: diffColorName(cell.Bg), attrs: cell.Attrs, ulStyle: cell.UlStyle}
			if !cell.Ul.IsDefault() {
				s.ul = diffColorName(cell.Ul)
			}
			// The stored text, as capture gives it: Cell shows a narrow
			// symbol without its VS16 (see appendShown), tmux keeps it.
			content := term.tables.content(term.scr.row(y).cells[x])
			if content == "" {
				content = " "
			}
			for _, r := range content {
				row = append(row, diffRune{r: r, s: s, end: x + cell.Width})
			}
		}
		row = diffTrimRow(row)
		st.rows = append(st.rows, row)
		width := 0
		if len(row) > 0 {
			width = row[len(row)-1].end
		}
		st.widths = append(st.widths, width)
	}
	cur := term.Cursor()
	m := term.Modes()
	st.cursorX, st.cursorY, st.visible = cur.X, cur.Y, cur.Visible
	st.alt, st.appCur, st.appKey = m.AltScreen, m.AppCursor, m.AppKeypad
	st.history = term.ScrollbackLen()
	return st
}

// diffTrimRow drops trailing blanks that carry no more than a background
// colour: tmux's capture stops at the last written cell, even with -N, and
// cells erased with a background colour count as unwritten there. Cases that
// check background-colour erase therefore print a character after the
// erased cells.
func diffTrimRow(row []diffRune) []diffRune {
	for len(row) > 0 {
		last := row[len(row)-1]
		if last.r != ' ' || last.s.fg != "default" || last.s.attrs != 0 || last.s.ulStyle != UnderlineNone {
			break
		}
		row = row[:len(row)-1]
	}
	return row
}

func (s *diffTmux) capture(t *testing.T, i, w, h int) diffScreen {
	t.Helper()
	target := diffSession(i)
	info := strings.Fields(string(s.run(t, "display", "-p", "-t", target,
		"#{pane_width} #{pane_height} #{cursor_x} #{cursor_y} #{cursor_flag} #{alternate_on} #{keypad_cursor_flag} #{keypad_flag} #{history_size}")))
	if len(info) != 9 {
		t.Fatalf("unexpected tmux display output %q", info)
	}
	n := make([]int, len(info))
	for k, f := range info {
		n[k] = diffAtoi(f, -1)
	}
	if n[0] != w || n[1] != h {
		t.Fatalf("tmux pane is %dx%d, want %dx%d", n[0], n[1], w, h)
	}
	// tmux reports the pending-wrap position as cursor_x == width; the
	// emulator keeps the cursor on the last column with a wrap flag, as the
	// API promises an in-bounds cursor. Both mean the same state.
	if n[2] == w {
		n[2] = w - 1
	}
	st := diffScreen{cursorX: n[2], cursorY: n[3], visible: n[4] == 1, alt: n[5] == 1, appCur: n[6] == 1, appKey: n[7] == 1, history: n[8]}
	st.rows = diffParseCapture(s.run(t, "capture-pane", "-p", "-e", "-N", "-t", target), h)
	st.widths = s.widths(t, target, st.rows)
	return st
}

// widths asks tmux how many columns each captured row occupies by its own
// width rules (the #{w:} format of a pane option holding the row text), so
// rows whose text agrees but whose characters sit in different columns
// still differ. '#' is doubled because the format language reads it, and a
// sentinel keeps a trailing ';' from being read as a command separator.
// Rows holding a zero-width joiner are not measured (-1): tmux's grid joins
// such emoji sequences into one cell but its format width does not.
func (s *diffTmux) widths(t *testing.T, target string, rows [][]diffRune) []int {
	t.Helper()
	var args []string
	var format strings.Builder
	for y, row := range rows {
		text := strings.ReplaceAll(diffPlain(row), "#", "##")
		args = append(args, "set", "-p", "-t", target, fmt.Sprintf("@agentgrid_row%d", y), text+"|", ";")
		fmt.Fprintf(&format, "#{w:@agentgrid_row%d} ", y)
	}
	args = append(args, "display", "-p", "-t", target, format.String())
	fields := strings.Fields(string(s.run(t, args...)))
	widths := make([]int, len(rows))
	for y := range widths {
		widths[y] = -1
		if y < len(fields) && !strings.ContainsRune(diffPlain(rows[y]), '\u200d') {
			widths[y] = diffAtoi(fields[y], 0) - 1
		}
	}
	return widths
}

// diffDECGraphics maps the DEC special graphics set (tmux keeps such cells as
// ASCII with a charset flag and captures them between SO and SI).
var diffDECGraphics = map[rune]rune{
	'`': '◆', 'a': '▒', 'b': '␉', 'c': '␌', 'd': '␍', 'e': '␊', 'f': '°', 'g': '±',
	'h': '␤', 'i': '␋', 'j': '┘', 'k': '┐', 'l': '┌', 'm': '└', 'n': '┼', 'o': '⎺',
	'p': '⎻', 'q': '─', 'r': '⎼', 's': '⎽', 't': '├', 'u': '┤', 'v': '┴', 'w': '┬',
	'x': '│', 'y': '≤', 'z': '≥', '{': 'π', '|': '≠', '}': '£', '~': '·',
}

// diffParseCapture turns `capture-pane -p -e` output into styled runes. The SGR
// state carries across lines, as tmux only emits changes.
func diffParseCapture(out []byte, h int) [][]diffRune {
	var rows [][]diffRune
	var row []diffRune
	st := diffSGRState{}
	acs := false
	for i := 0; i < len(out); {
		b := out[i]
		switch {
		case b == '\n':
			rows = append(rows, diffTrimRow(row))
			row = nil
			i++
		case b == 0x0e:
			acs = true
			i++
		case b == 0x0f:
			acs = false
			i++
		case b == 0x1b && i+1 < len(out) && out[i+1] == '[':
			j := i + 2
			for j < len(out) && (out[j] < 0x40 || out[j] > 0x7e) {
				j++
			}
			if j < len(out) && out[j] == 'm' {
				st.apply(string(out[i+2 : j]))
			}
			i = j + 1
		default:
			r, size := utf8.DecodeRune(out[i:])
			if acs {
				if g, ok := diffDECGraphics[r]; ok {
					r = g
				}
			}
			row = append(row, diffRune{r: r, s: st.style()})
			i += size
		}
	}
	if len(row) > 0 {
		rows = append(rows, diffTrimRow(row))
	}
	for len(rows) < h {
		rows = append(rows, nil)
	}
	return rows
}

type diffSGRState struct{ s diffStyle }

func (st *diffSGRState) style() diffStyle {
	s := st.s
	if s.fg == "" {
		s.fg = "default"
	}
	if s.bg == "" {
		s.bg = "default"
	}
	return s
}

// apply interprets the SGR forms tmux writes in captures.
func (st *diffSGRState) apply(params string) {
	if params == "" {
		st.s = diffStyle{}
		return
	}
	fields := strings.Split(params, ";")
	for k := 0; k < len(fields); k++ {
		sub := strings.Split(fields[k], ":")
		p := diffAtoi(sub[0], 0)
		switch {
		case p == 0:
			st.s = diffStyle{}
		case p == 1:
			st.s.attrs |= AttrBold
		case p == 2:
			st.s.attrs |= AttrFaint
		case p == 3:
			st.s.attrs |= AttrItalic
		case p == 4:
			st.s.ulStyle = UnderlineSingle
			if len(sub) > 1 {
				st.s.ulStyle = UnderlineStyle(diffAtoi(sub[1], 1))
			}
		case p == 5 && len(sub) > 1 && sub[1] == "3":
			// tmux 3.3a writes overline (53) as "5:3" in captures.
			st.s.attrs |= AttrOverline
		case p == 5:
			st.s.attrs |= AttrBlink
		case p == 7:
			st.s.attrs |= AttrReverse
		case p == 8:
			st.s.attrs |= AttrInvisible
		case p == 9:
			st.s.attrs |= AttrStrikethrough
		case p == 53:
			st.s.attrs |= AttrOverline
		case p >= 30 && p <= 37:
			st.s.fg = strconv.Itoa(p - 30)
		case p >= 90 && p <= 97:
			st.s.fg = strconv.Itoa(p - 90 + 8)
		case p == 39:
			st.s.fg = ""
		case p >= 40 && p <= 47:
			st.s.bg = strconv.Itoa(p - 40)
		case p >= 100 && p <= 107:
			st.s.bg = strconv.Itoa(p - 100 + 8)
		case p == 49:
			st.s.bg = ""
		case p == 59:
			st.s.ul = ""
		case p == 38 || p == 48 || p == 58:
			var c string
			if len(sub) > 1 {
				c = diffExtColour(sub[1:])
			} else {
				var used int
				c, used = diffExtColourFields(fields[k+1:])
				k += used
			}
			switch p {
			case 38:
				st.s.fg = c
			case 48:
				st.s.bg = c
			default:
				st.s.ul = c
			}
		}
	}
}

// diffExtColour parses the colon form after 38/48/58: 5:n or 2:[cs:]r:g:b.
func diffExtColour(sub []string) string {
	switch {
	case sub[0] == "5" && len(sub) >= 2:
		return sub[1]
	case sub[0] == "2" && len(sub) >= 5:
		sub = sub[len(sub)-3:]
		return fmt.Sprintf("#%02x%02x%02x", diffAtoi(sub[0], 0), diffAtoi(sub[1], 0), diffAtoi(sub[2], 0))
	case sub[0] == "2" && len(sub) == 4:
		return fmt.Sprintf("#%02x%02x%02x", diffAtoi(sub[1], 0), diffAtoi(sub[2], 0), diffAtoi(sub[3], 0))
	}
	return ""
}

// diffExtColourFields parses the semicolon form; it returns how many fields
// it consumed.
func diffExtColourFields(f []string) (string, int) {
	switch {
	case len(f) >= 2 && f[0] == "5":
		return f[1], 2
	case len(f) >= 4 && f[0] == "2":
		return fmt.Sprintf("#%02x%02x%02x", diffAtoi(f[1], 0), diffAtoi(f[2], 0), diffAtoi(f[3], 0)), 4
	}
	return "", len(f)
}

// diffScreens lists differences in a readable form.
func diffScreens(got, want diffScreen, w int) []string {
	var diffs []string
	for y := 0; y < len(want.rows) || y < len(got.rows); y++ {
		var g, wr []diffRune
		if y < len(got.rows) {
			g = got.rows[y]
		}
		if y < len(want.rows) {
			wr = want.rows[y]
		}
		if d := diffRow(g, wr); d != "" || *tmuxDiffVerbose {
			if d == "" && !*tmuxDiffVerbose {
				continue
			}
			if d == "" {
				d = "same"
			}
			diffs = append(diffs, fmt.Sprintf("  row %2d: %s\n    agentgrid %q\n    tmux      %q", y, d, diffPlain(g), diffPlain(wr)))
		}
	}
	for y := 0; y < len(got.widths) && y < len(want.widths); y++ {
		if want.widths[y] >= 0 && got.widths[y] != want.widths[y] && diffPlain(got.rows[y]) == diffPlain(want.rows[y]) {
			diffs = append(diffs, fmt.Sprintf("  row %2d: same text %q in %d columns, tmux %d", y, diffPlain(want.rows[y]), got.widths[y], want.widths[y]))
		}
	}
	if got.cursorX != want.cursorX || got.cursorY != want.cursorY {
		diffs = append(diffs, fmt.Sprintf("  cursor: agentgrid (%d,%d), tmux (%d,%d)", got.cursorX, got.cursorY, want.cursorX, want.cursorY))
	}
	if got.history != want.history {
		diffs = append(diffs, fmt.Sprintf("  history lines: agentgrid %d, tmux %d", got.history, want.history))
	}
	for _, m := range []struct {
		name      string
		got, want bool
	}{
		{"cursor visible", got.visible, want.visible},
		{"alternate screen", got.alt, want.alt},
		{"DECCKM", got.appCur, want.appCur},
		{"DECKPAM", got.appKey, want.appKey},
	} {
		if m.got != m.want {
			diffs = append(diffs, fmt.Sprintf("  %s: agentgrid %v, tmux %v", m.name, m.got, m.want))
		}
	}
	return diffs
}

func diffRow(got, want []diffRune) string {
	if diffPlain(got) != diffPlain(want) {
		return "text differs"
	}
	for i := range want {
		if got[i].s != want[i].s {
			return fmt.Sprintf("style of rune %d %q differs: agentgrid {%v}, tmux {%v}", i, want[i].r, got[i].s, want[i].s)
		}
	}
	return ""
}

func diffPlain(row []diffRune) string {
	var b strings.Builder
	for _, r := range row {
		b.WriteRune(r.r)
	}
	return b.String()
}

func diffClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

package termrt

import (
	"image/color"
	"strconv"
	"unicode/utf8"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/panes/vterm"
)

// cellWriter turns the difference between what the terminal shows and the
// next canvas into the fewest bytes it can: cursor moves over unchanged
// cells, erase to the end of the line for trailing blanks, erase-characters
// for long blank runs, a repeat (REP) for runs of one character where the
// terminal has it, and SGR changes only where the style changes.
// Hyperlinks are opened and closed by the writer, never left open after a
// frame. It never reads back an escape sequence: it works on cells only.
type cellWriter struct {
	shownCv *Canvas // what the terminal shows
	pen     Style   // the terminal's current SGR and hyperlink
	cx, cy  int     // the terminal's cursor; cx < 0: unknown (pending wrap)
	caps    writerCaps
	colors  map[vterm.Color]vterm.Color // colours converted for caps.profile
	// beforeChange is called once before the first change of a frame
	// (the screen hides the cursor there).
	beforeChange func(b []byte) []byte
}

// writerCaps is what the writer may use of the terminal.
type writerCaps struct {
	// profile is the terminal's colours: colours beyond it are converted
	// to the nearest it has (TrueColor: all are sent as they are; ASCII:
	// none are).
	profile colorprofile.Profile
	rep     repeats // what the terminal repeats on CSI n b (REP)
	// plainUnderline: the terminal has no underline styles, every
	// underline is sent as a single one (SGR 4).
	plainUnderline bool
	// noUnderlineColour: the terminal has no underline colour (SGR 58).
	noUnderlineColour bool
}

// repeats is what a terminal repeats on REP.
type repeats int

const (
	repNone  repeats = iota // no REP: every character is written
	repASCII                // only a one-byte character (tmux, screen)
	repAny                  // any character of one cell (xterm and its kin)
)

// minEraseRun is the shortest run of blanks worth erasing and stepping
// over (ECH n, CUF n) rather than writing as spaces.
const minEraseRun = 12

// maxGap is the longest run of unchanged cells rewritten rather than
// stepped over, inside a changed stretch of a row: a cursor move costs
// about as much.
const maxGap = 3

// isBlank reports whether c is a default space, what an erase leaves.
func isBlank(c *vterm.Cell) bool {
	return c.Content == " " && c.Width == 1 && c.Fg == 0 && c.Bg == 0 && c.Ul == 0 && c.Attrs == 0 && c.UlStyle == 0 && c.Link == ""
}

// draw appends what brings the terminal from shownCv to cv and reports
// whether anything was written. repaint (or a new size) clears the screen
// first and then writes every cell that is not blank.
func (w *cellWriter) draw(b []byte, cv *Canvas, repaint bool) ([]byte, bool) {
	changed := false
	change := func() {
		if !changed {
			changed = true
			if w.beforeChange != nil {
				b = w.beforeChange(b)
			}
		}
	}
	if repaint || cv.W != w.shownCv.W || cv.H != w.shownCv.H {
		change()
		// The pen is unknown after whatever ran before: reset it.
		b = append(b, seqReset...)
		w.pen = Style{Link: w.pen.Link}
		b = w.setPen(b, Style{})
		b = append(b, seqClear...)
		w.cx, w.cy = 0, 0
		// The screen is blank: every cell that is not blank is written,
		// found without comparing against a cleared copy.
		for y := 0; y < cv.H; y++ {
			b = w.paintRow(b, cv.row(y), y, cv.W)
		}
		w.shownCv.CopyFrom(cv)
		return w.setPen(b, Style{}), true
	}
	for y := 0; y < cv.H; y++ {
		if !cv.Dirty(y) {
			continue
		}
		nr, or := cv.row(y), w.shownCv.row(y)
		// tail: from here on the new row is all blank.
		tail := len(nr)
		for tail > 0 && isBlank(&nr[tail-1]) {
			tail--
		}
		for x := 0; x < len(nr); {
			if nr[x] == or[x] {
				x++
				continue
			}
			change()
			if nr[x].Width == 0 && x > 0 {
				x-- // write the wide character this is the right half of
			}
			if x >= tail {
				b = w.moveTo(b, x, y)
				b = w.setPen(b, Style{})
				b = append(b, "\x1b[K"...)
				copy(or[x:], nr[x:])
				break
			}
			e := runEnd(nr, or, x)
			b = w.moveTo(b, x, y)
			b = w.writeCells(b, nr, x, e, cv.W)
			copy(or[x:e], nr[x:e])
			x = e
		}
	}
	if changed {
		b = w.setPen(b, Style{})
	}
	return b, changed
}

// paintRow writes row y of a screen just cleared: the stretches of cells
// that are not blank, as draw writes the cells that differ from a blank
// row (gaps of up to maxGap blanks are written, not stepped over).
func (w *cellWriter) paintRow(b []byte, nr []vterm.Cell, y, width int) []byte {
	for x := 0; x < len(nr); {
		if isBlank(&nr[x]) {
			x++
			continue
		}
		if nr[x].Width == 0 && x > 0 {
			x-- // a right half without its left half: written from the blank before it
		}
		e := x + 1
		for j := e; j < len(nr); {
			if !isBlank(&nr[j]) {
				j++
				e = j
				continue
			}
			k := j
			for k < len(nr) && isBlank(&nr[k]) && k-j <= maxGap {
				k++
			}
			if k == len(nr) || k-j > maxGap {
				break
			}
			j = k
		}
		for e < len(nr) && nr[e].Width == 0 {
			e++
		}
		b = w.moveTo(b, x, y)
		b = w.writeCells(b, nr, x, e, width)
		x = e
	}
	return b
}

// runEnd is where the changed stretch of a row starting at x ends: past
// every changed cell that follows with gaps of at most maxGap unchanged
// cells, and never between the halves of a wide character.
func runEnd(nr, or []vterm.Cell, x int) int {
	e := x + 1
	for j := e; j < len(nr); {
		if nr[j] != or[j] {
			j++
			e = j
			continue
		}
		k := j
		for k < len(nr) && nr[k] == or[k] && k-j <= maxGap {
			k++
		}
		if k == len(nr) || k-j > maxGap {
			break
		}
		j = k
	}
	for e < len(nr) && nr[e].Width == 0 {
		e++
	}
	return e
}

// writeCells writes cells [x, e) of row r, the cursor being at x.
func (w *cellWriter) writeCells(b []byte, r []vterm.Cell, x, e, width int) []byte {
	for i := x; i < e; {
		c := &r[i]
		if c.Width == 0 {
			// A right half without its left half (never composed): a blank.
			b = w.setPen(b, StyleOf(*c))
			b = append(b, ' ')
			w.advance(1, width)
			i++
			continue
		}
		// A long run of blanks: erase it and step over.
		if isBlank(c) {
			n := 1
			for i+n < e && isBlank(&r[i+n]) {
				n++
			}
			if n >= minEraseRun {
				b = w.setPen(b, Style{})
				b = appendCSI(b, n, 'X')
				i += n
				if i < e {
					b = appendCSI(b, n, 'C')
					w.cx += n
				}
				continue
			}
		}
		b = w.setPen(b, StyleOf(*c))
		b = append(b, c.Content...)
		w.advance(c.Width, width)
		i += c.Width
		// A run of the same character: repeat it, where the terminal
		// repeats this character.
		if w.repeatable(c) {
			n := 0
			for i+n < e && r[i+n] == *c {
				n++
			}
			if n > 0 && n*len(c.Content) > 3+digits(n) {
				b = appendCSI(b, n, 'b')
				w.advance(n, width)
				i += n
			}
		}
	}
	return b
}

// repeatable reports whether the terminal repeats c on REP: one
// character of one cell, a one-byte one where only those are repeated.
func (w *cellWriter) repeatable(c *vterm.Cell) bool {
	switch {
	case w.caps.rep == repNone || c.Width != 1:
		return false
	case w.caps.rep == repASCII:
		return len(c.Content) == 1
	}
	return utf8.RuneCountInString(c.Content) == 1
}

// advance moves the tracked cursor n columns right; at the right margin
// the terminal's cursor waits to wrap, so its column is unknown.
func (w *cellWriter) advance(n, width int) {
	if w.cx < 0 {
		return
	}
	w.cx += n
	if w.cx >= width {
		w.cx = -1
	}
}

// moveTo moves the cursor to column x, row y the shortest way.
func (w *cellWriter) moveTo(b []byte, x, y int) []byte {
	switch {
	case w.cx == x && w.cy == y:
		return b
	case w.cy == y && w.cx >= 0 && x > w.cx:
		b = appendCSI(b, x-w.cx, 'C')
	case x == 0 && y == w.cy+1:
		b = append(b, "\r\n"...)
	default:
		b = appendCUP(b, x, y)
	}
	w.cx, w.cy = x, y
	return b
}

// setPen switches the terminal's pen to st: SGR for the look, OSC 8 for the
// hyperlink, each only when it changes.
func (w *cellWriter) setPen(b []byte, st Style) []byte {
	if st.Link != w.pen.Link {
		b = append(b, "\x1b]8;;"...)
		b = append(b, st.Link...)
		b = append(b, "\x1b\\"...)
		w.pen.Link = st.Link
	}
	if w.caps.plainUnderline && st.UlStyle > vterm.UnderlineSingle {
		st.UlStyle = vterm.UnderlineSingle
	}
	if w.caps.noUnderlineColour {
		st.Ul = 0
	}
	if p := w.caps.profile; p != colorprofile.TrueColor && p != colorprofile.Unknown {
		st.Fg, st.Bg, st.Ul = w.convert(st.Fg), w.convert(st.Bg), w.convert(st.Ul)
	}
	look, pen := st, w.pen
	look.Link, pen.Link = "", ""
	if look == pen {
		return b
	}
	b = appendSGR(b, pen, look)
	w.pen = st
	return b
}

// convert returns the colour the terminal shows for c.
func (w *cellWriter) convert(c vterm.Color) vterm.Color {
	if c == 0 {
		return 0
	}
	if cc, ok := w.colors[c]; ok {
		return cc
	}
	var in color.Color
	if i, ok := c.Indexed(); ok {
		in = ansi.IndexedColor(i)
		if i < 16 {
			in = ansi.BasicColor(i)
		}
	} else {
		r, g, b, _ := c.RGB()
		in = color.RGBA{R: r, G: g, B: b, A: 0xff}
	}
	var out vterm.Color
	switch cc := w.caps.profile.Convert(in).(type) {
	case ansi.BasicColor:
		out = vterm.IndexedColor(uint8(cc))
	case ansi.IndexedColor:
		out = vterm.IndexedColor(uint8(cc))
	case nil:
	default:
		r, g, b, _ := cc.RGBA()
		out = vterm.RGBColor(uint8(r>>8), uint8(g>>8), uint8(b>>8))
	}
	if w.colors == nil {
		w.colors = map[vterm.Color]vterm.Color{}
	}
	w.colors[c] = out
	return out
}

// appendSGR appends one SGR sequence that changes the look from to to.
func appendSGR(b []byte, from, to Style) []byte {
	if to == (Style{}) {
		return append(b, "\x1b[m"...)
	}
	b = append(b, "\x1b["...)
	if to.Attrs != from.Attrs || to.UlStyle != from.UlStyle || to.Ul != from.Ul {
		// Attributes changed: start from a reset and set everything.
		b = append(b, '0')
		b = appendAttrs(b, to)
		b = vterm.AppendColorSGR(b, to.Fg, 30, 90, "38")
		b = vterm.AppendColorSGR(b, to.Bg, 40, 100, "48")
		if to.Ul != 0 {
			b = vterm.AppendColorSGR(b, to.Ul, -1, -1, "58")
		}
		return append(b, 'm')
	}
	// Only colours changed: set just those (39 and 49 restore defaults).
	n := len(b)
	if to.Fg != from.Fg {
		if to.Fg == 0 {
			b = append(b, ";39"...)
		} else {
			b = vterm.AppendColorSGR(b, to.Fg, 30, 90, "38")
		}
	}
	if to.Bg != from.Bg {
		if to.Bg == 0 {
			b = append(b, ";49"...)
		} else {
			b = vterm.AppendColorSGR(b, to.Bg, 40, 100, "48")
		}
	}
	// Drop the leading ';' of the first parameter.
	b = append(b[:n], b[n+1:]...)
	return append(b, 'm')
}

func appendAttrs(b []byte, st Style) []byte {
	a := st.Attrs
	for _, p := range [...]struct {
		a vterm.Attr
		s string
	}{
		{vterm.AttrBold, ";1"}, {vterm.AttrFaint, ";2"}, {vterm.AttrItalic, ";3"}, {vterm.AttrBlink, ";5"},
		{vterm.AttrReverse, ";7"}, {vterm.AttrInvisible, ";8"}, {vterm.AttrStrikethrough, ";9"}, {vterm.AttrOverline, ";53"},
	} {
		if a&p.a != 0 {
			b = append(b, p.s...)
		}
	}
	switch st.UlStyle {
	case vterm.UnderlineNone:
	case vterm.UnderlineSingle:
		b = append(b, ";4"...)
	default:
		b = append(b, ";4:"...)
		b = strconv.AppendInt(b, int64(st.UlStyle), 10)
	}
	return b
}

// appendCSI appends CSI n final, leaving out n when it is 1.
func appendCSI(b []byte, n int, final byte) []byte {
	b = append(b, "\x1b["...)
	if n != 1 {
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, final)
}

func digits(n int) int { return len(strconv.Itoa(n)) }

// appendRowText appends row r as text with SGR styling and no cursor
// moves, ending with a reset: the string form of a canvas row, for tests.
func appendRowText(b []byte, r []vterm.Cell) []byte {
	var pen Style
	for i := range r {
		c := &r[i]
		if c.Width == 0 {
			continue
		}
		st := StyleOf(*c)
		st.Link = ""
		if st != pen {
			b = appendSGR(b, pen, st)
			pen = st
		}
		b = append(b, c.Content...)
	}
	if pen != (Style{}) {
		b = append(b, "\x1b[m"...)
	}
	return b
}

// String renders the canvas as styled text, rows separated by "\n".
func (c *Canvas) String() string {
	var b []byte
	for y := 0; y < c.H; y++ {
		if y > 0 {
			b = append(b, '\n')
		}
		b = appendRowText(b, c.row(y))
	}
	return string(b)
}

// Diff is the writer's diffing alone, without a terminal or a goroutine:
// for benchmarks and tests that measure what a frame costs.
type Diff struct{ w cellWriter }

// NewDiff starts from a terminal showing nothing, with the colours of
// profile and the REP of the terminal TERM names (with tmux, say, set:
// whether the process runs inside tmux).
func NewDiff(profile colorprofile.Profile, term string, tmux bool) *Diff {
	d := &Diff{}
	d.w.shownCv = new(Canvas)
	d.w.caps = writerCaps{profile: profile, rep: repeatsOf(term, tmux)}
	return d
}

// Append appends what brings the terminal from the last canvas to cv.
func (d *Diff) Append(b []byte, cv *Canvas, repaint bool) []byte {
	b, _ = d.w.draw(b, cv, repaint)
	return b
}

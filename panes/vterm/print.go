package vterm

import (
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/displaywidth"
)

// widthOptions match the outer renderer (x/ansi's grapheme width method)
// so a cell here is a cell there.
var widthOptions = displaywidth.Options{EastAsianWidth: false}

// decSpecial maps 0x5f-0x7e in the DEC special graphics set.
var decSpecial = [...]rune{
	' ', '◆', '▒', '␉', '␌', '␍', '␊', '°', '±', '␤', '␋', '┘', '┐', '┌', '└', '┼',
	'⎺', '⎻', '─', '⎼', '⎽', '├', '┤', '┴', '┬', '│', '≤', '≥', 'π', '≠', '£', '·',
}

// printASCII writes a run of printable ASCII: the hot path.
func (t *Terminal) printASCII(b []byte) {
	if t.cur.charsets[t.cur.gl] == '0' || t.insert || !t.autowrap {
		for _, c := range b {
			t.printRune(rune(c))
		}
		return
	}
	pen := t.cur.pen
	for len(b) > 0 {
		if t.cur.wrapNext {
			t.wrap()
		}
		ln := t.scr.row(t.cur.y)
		x := t.cur.x
		n := min(len(b), t.cols-x)
		t.breakWide(ln, x, x+n)
		cs := ln.cells[x : x+n]
		for i := range cs {
			pen.ch = uint32(b[i])
			cs[i] = pen
		}
		ln.touch(x + n)
		ln.dirty = true
		t.lastRune = rune(b[n-1])
		if x+n >= t.cols {
			t.cur.x = t.cols - 1
			t.cur.wrapNext = true
		} else {
			t.cur.x = x + n
		}
		b = b[n:]
	}
}

// breakWide blanks the halves of wide characters cut by overwriting
// cells [from, to).
func (t *Terminal) breakWide(ln *line, from, to int) {
	cs := ln.cells
	if from > 0 && from < len(cs) && cs[from].cont() {
		cs[from-1] = cell{bg: cs[from-1].bg}
	}
	if to > 0 && to < len(cs) && cs[to].cont() {
		cs[to] = cell{bg: cs[to].bg}
	}
}

// wrap moves to the start of the next line, marking the current one as
// soft-wrapped.
func (t *Terminal) wrap() {
	t.scr.row(t.cur.y).wrapped = true
	t.cur.wrapNext = false
	t.cur.x = 0
	t.linefeed()
}

// printRune prints one (possibly non-ASCII) character.
func (t *Terminal) printRune(r rune) {
	if r < 0x80 {
		if r >= 0x5f && r <= 0x7e && t.cur.charsets[t.cur.gl] == '0' {
			r = decSpecial[r-0x5f]
		} else {
			t.lastRune = r
			t.printCell(uint32(r), 1)
			return
		}
	}
	if r < 0xa0 {
		return // C1 controls arriving as UTF-8 are not printed
	}
	props := runeProps(r)
	w := int(props & propWidth)
	if (props&propExtends != 0 || t.neighbourJoins()) && t.attach(r) {
		return
	}
	if w == 0 {
		return // a zero-width character with nothing to attach to
	}
	t.lastRune = r
	t.printCell(uint32(r), w)
}

// mayExtend reports whether r can continue the previous grapheme cluster
// even though it has a width: emoji modifiers, regional indicators, spacing
// marks, Hangul jamo. Common scripts are rejected quickly.
func mayExtend(r rune) bool {
	switch {
	case r >= 0x302a && r <= 0x302f, r == 0xff9e || r == 0xff9f:
		return true
	case r >= 0x3000 && r <= 0x9fff, r >= 0xac00 && r <= 0xd7a3:
		return false
	case r >= 0x1f1e6 && r <= 0x1f1ff, r >= 0x1f3fb && r <= 0x1f3ff:
		return true
	case r >= 0x1100 && r <= 0x11ff, r >= 0xa960 && r <= 0xa97f, r >= 0xd7b0 && r <= 0xd7ff:
		return true
	case r >= 0x900 && r <= 0x1dff, r >= 0xa800 && r <= 0xabff, r >= 0x11000 && r <= 0x11fff:
		// Indic and other scripts with spacing combining marks.
		return true
	}
	return false
}

// maxClusterBytes bounds one cell's grapheme cluster.
const maxClusterBytes = 32

// leftNeighbour returns the cell left of the cursor, which a combining
// character joins (the cell just written when a wrap is pending).
func (t *Terminal) leftNeighbour() (*line, int, bool) {
	ln := t.scr.row(t.cur.y)
	x := t.cur.x
	if !t.cur.wrapNext {
		x--
	}
	if x >= 0 && ln.cells[x].cont() {
		x--
	}
	return ln, x, x >= 0
}

// neighbourJoins reports whether the cell left of the cursor ends with a
// character that joins whatever follows (ZWJ, regional indicator, Hangul
// leading jamo, prepend).
func (t *Terminal) neighbourJoins() bool {
	ln, x, ok := t.leftNeighbour()
	if !ok {
		return false
	}
	c := ln.cells[x]
	if c.ch < 0x80 {
		return false
	}
	return joinsNext(t.tables.lastRune(c))
}

// attach joins r to the cell left of the cursor if they form one grapheme
// cluster, as the outer renderer would segment them.
func (t *Terminal) attach(r rune) bool {
	ln, x, ok := t.leftNeighbour()
	if !ok {
		return false
	}
	c := ln.cells[x]
	buf := t.tables.appendContent(t.scratch[:0], c)
	base := len(buf)
	if base+utf8.RuneLen(r) > maxClusterBytes {
		return true // absurdly long cluster: drop further marks (tmux caps too)
	}
	buf = utf8.AppendRune(buf, r)
	t.scratch = buf
	cluster, w := ansi.FirstGraphemeCluster(buf, ansi.GraphemeWidth)
	if len(cluster) != len(buf) {
		return false
	}
	id, ok := t.tables.internGrapheme(buf)
	if !ok {
		return true // table full: drop the mark rather than grow
	}
	c.ch = id
	if w == 2 && !c.wide() && t.graphemes {
		// e.g. a text-style symbol followed by VS16: becomes wide when
		// there is room and the cursor is right after it, but only for a
		// program that measures grapheme clusters (mode 2027). Others
		// measure per character (wcwidth), where VS16 adds nothing, as
		// tmux does; the renderer then draws the symbol in text style.
		nx := x + 1
		if nx < t.cols && t.cur.x == nx && !t.cur.wrapNext {
			c.attr |= flagWide
			t.breakWide(ln, nx, nx+1)
			ln.cells[nx] = cell{fg: c.fg, bg: c.bg, attr: c.attr&^flagWide | flagWideCont}
			ln.touch(nx + 1)
			t.cur.x = nx + 1
			if t.cur.x >= t.cols {
				t.cur.x = t.cols - 1
				t.cur.wrapNext = t.autowrap
			}
		}
	}
	ln.cells[x] = c
	ln.touch(x + 1)
	ln.dirty = true
	return true
}

// couldExtend reports whether r may continue a grapheme cluster.
func couldExtend(r rune) bool {
	return runeProps(r)&propExtends != 0
}

func computeCouldExtend(r rune, w int) bool {
	if r < 0x300 {
		return false
	}
	if r == 0x200d || (r >= 0xfe00 && r <= 0xfe0f) || mayExtend(r) || w == 0 {
		return true
	}
	// Marks the width table counts as one cell but the renderer's
	// segmenter joins to the previous character (e.g. newer combining
	// marks outside the ranges above) must attach too, or the rendered
	// row would come out a cell short.
	return w == 1 && joinsPrevious(r)
}

// joinsPrevious reports whether r continues the grapheme cluster of a
// plain letter before it, as the outer renderer segments text.
func joinsPrevious(r rune) bool {
	var buf [1 + utf8.UTFMax]byte
	buf[0] = 'a'
	n := 1 + utf8.EncodeRune(buf[1:], r)
	cluster, _ := ansi.FirstGraphemeCluster(buf[:n], ansi.GraphemeWidth)
	return len(cluster) == n
}

// Per-rune properties for the Basic Multilingual Plane, computed once:
// the width in bits 0-1 and whether the rune may extend a cluster.
const (
	propWidth   = 0x3
	propExtends = 0x4
)

var (
	bmpPropsOnce sync.Once
	bmpProps     *[0x10000]uint8
)

func runeProps(r rune) uint8 {
	if r < 0x10000 && r >= 0 {
		bmpPropsOnce.Do(initBMPProps)
		return bmpProps[r]
	}
	return computeProps(r)
}

func initBMPProps() {
	var p [0x10000]uint8
	for r := range p {
		p[r] = computeProps(rune(r))
	}
	bmpProps = &p
}

func computeProps(r rune) uint8 {
	w := widthOptions.Rune(r)
	w = min(max(w, 0), 2)
	p := uint8(w)
	if computeCouldExtend(r, w) {
		p |= propExtends
	}
	return p
}

// joinsNext reports whether a cluster ending in r may absorb the next
// character.
func joinsNext(r rune) bool {
	switch {
	case r == 0x200d, r >= 0x1f1e6 && r <= 0x1f1ff:
		return true
	case r >= 0x1100 && r <= 0x11ff, r >= 0xa960 && r <= 0xa97f, r >= 0xd7b0 && r <= 0xd7ff:
		return true
	case r >= 0xac00 && r <= 0xd7a3:
		return true // LV/LVT syllables take trailing jamo
	case r >= 0x600 && r <= 0x605, r == 0x6dd, r == 0x70f, r == 0x890, r == 0x891, r == 0x8e2, r == 0xd4e:
		return true // prepend
	case r >= 0x11000 && r <= 0x11fff:
		return true
	}
	return false
}

// printCell writes one character of width w (1 or 2) at the cursor.
func (t *Terminal) printCell(ch uint32, w int) {
	if w > t.cols {
		return
	}
	if t.cur.wrapNext && t.autowrap {
		t.wrap()
	}
	if w == 2 && t.cur.x == t.cols-1 {
		if !t.autowrap {
			return
		}
		t.wrap()
	}
	ln := t.scr.row(t.cur.y)
	x := t.cur.x
	if t.insert {
		t.insertCells(ln, x, w)
	}
	t.breakWide(ln, x, x+w)
	c := t.cur.pen
	c.ch = ch
	if w == 2 {
		c.attr |= flagWide
		ln.cells[x] = c
		ln.cells[x+1] = cell{fg: c.fg, bg: c.bg, attr: t.cur.pen.attr | flagWideCont}
	} else {
		ln.cells[x] = c
	}
	ln.touch(x + w)
	ln.dirty = true
	if x+w >= t.cols {
		t.cur.x = t.cols - 1
		t.cur.wrapNext = t.autowrap
	} else {
		t.cur.x = x + w
		t.cur.wrapNext = false
	}
}

// insertCells shifts cells from x right by n, dropping what falls off.
func (t *Terminal) insertCells(ln *line, x, n int) {
	cs := ln.cells
	if x >= len(cs) {
		return
	}
	n = min(n, len(cs)-x)
	t.breakWide(ln, x, x)
	copy(cs[x+n:], cs[x:len(cs)-n])
	if ln.used > x {
		ln.used = min(ln.used+n, len(cs))
	}
	blank := cell{bg: t.cur.pen.bg}
	for i := x; i < x+n; i++ {
		cs[i] = blank
	}
	if blank != (cell{}) {
		ln.touch(x + n)
	}
	if last := cs[len(cs)-1]; last.wide() {
		cs[len(cs)-1] = cell{bg: last.bg}
	}
	ln.dirty = true
}

// deleteCells removes n cells at x, shifting the rest left.
func (t *Terminal) deleteCells(ln *line, x, n int) {
	cs := ln.cells
	if x >= len(cs) {
		return
	}
	n = min(n, len(cs)-x)
	t.breakWide(ln, x, x+n)
	copy(cs[x:], cs[x+n:])
	if ln.used > x {
		ln.used = max(x, ln.used-n)
	}
	blank := cell{bg: t.cur.pen.bg}
	for i := len(cs) - n; i < len(cs); i++ {
		cs[i] = blank
	}
	if blank != (cell{}) {
		ln.used = len(cs)
	}
	if cs[x].cont() {
		cs[x] = cell{bg: cs[x].bg}
	}
	ln.dirty = true
}

// repeat implements REP: the last printed character n more times.
func (t *Terminal) repeat(n int) {
	if t.lastRune == 0 {
		return
	}
	r := t.lastRune
	// tmux repeats only up to the end of the line.
	if t.cur.wrapNext {
		return
	}
	n = min(n, t.cols-t.cur.x)
	for i := 0; i < n; i++ {
		t.printRune(r)
	}
}

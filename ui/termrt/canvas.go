package termrt

import (
	"sync"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/panes/vterm"
)

// Canvas is one frame as cells: a program draws its whole view onto it,
// and the screen writer diffs it against what the terminal shows. Rows are
// always consistent: the left half of a wide character (Width 2) is
// followed by its right half (Width 0).
//
// A canvas remembers which rows were written since ClearDirty (every
// method that writes marks its row; Row marks the row it hands out), so
// the runtime copies and compares only those; a program that keeps its
// canvas between frames and redraws only what changed costs only that.
type Canvas struct {
	W, H  int
	Cells []vterm.Cell
	dirty []bool
}

// spare keeps the cells of canvases that were released for the next
// canvas that needs as many: a client attaching to a session after another
// detached takes over its cells instead of faulting in fresh memory (in a
// session server, about 250 of an attach's 300 page faults were a new
// client's canvases). It holds at most one client's worth, and never more
// than maxSpareCells in all, so a huge terminal's canvases are not kept.
var spare struct {
	sync.Mutex
	cells [][]vterm.Cell
	total int // cells held
}

const (
	maxSpare      = 5       // a screen's three canvases, a composer's, an overlay's
	maxSpareCells = 1 << 17 // about 7 MB: four canvases of 300x100
)

// cellsFor returns n cells, spare ones when some are large enough. Their
// content is whatever it was: the caller writes every one.
func cellsFor(n int) []vterm.Cell {
	spare.Lock()
	for i, cs := range spare.cells {
		if cap(cs) >= n {
			last := len(spare.cells) - 1
			spare.cells[i] = spare.cells[last]
			spare.cells[last] = nil
			spare.cells = spare.cells[:last]
			spare.total -= cap(cs)
			spare.Unlock()
			return cs[:n]
		}
	}
	spare.Unlock()
	return make([]vterm.Cell, n)
}

// Release gives c's cells to the next canvas that needs them and leaves
// c empty (0x0); c may be used again. Call it when c's owner is done, so
// that a program started after this one reuses the memory.
func (c *Canvas) Release() {
	cs := c.Cells
	c.W, c.H, c.Cells, c.dirty = 0, 0, nil, nil
	if cap(cs) == 0 {
		return
	}
	spare.Lock()
	defer spare.Unlock()
	if len(spare.cells) < maxSpare && spare.total+cap(cs) <= maxSpareCells {
		spare.cells = append(spare.cells, cs)
		spare.total += cap(cs)
	}
}

// Blank is a default space.
var Blank = vterm.Cell{Content: " ", Width: 1}

// Style is what a cell looks like besides its text.
type Style struct {
	Fg, Bg, Ul vterm.Color
	Attrs      vterm.Attr
	UlStyle    vterm.UnderlineStyle
	Link       string
}

// StyleOf is the look of c.
func StyleOf(c vterm.Cell) Style {
	return Style{Fg: c.Fg, Bg: c.Bg, Ul: c.Ul, Attrs: c.Attrs, UlStyle: c.UlStyle, Link: c.Link}
}

// Cell is text in style s (width 2 for the left half of a wide
// character, 0 for its right half).
func (s Style) Cell(content string, width int) vterm.Cell {
	return vterm.Cell{Content: content, Width: width, Fg: s.Fg, Bg: s.Bg, Ul: s.Ul, Attrs: s.Attrs, UlStyle: s.UlStyle, Link: s.Link}
}

// Resize makes the canvas w x h, all blank.
func (c *Canvas) Resize(w, h int) {
	w, h = max(w, 0), max(h, 0)
	c.W, c.H = w, h
	if cap(c.Cells) < w*h {
		c.Cells = cellsFor(w * h)
	}
	c.Cells = c.Cells[:w*h]
	c.Clear()
}

// Clear blanks every cell.
func (c *Canvas) Clear() {
	for i := range c.Cells {
		c.Cells[i] = Blank
	}
	c.markAll()
}

// markAll marks every row written.
func (c *Canvas) markAll() {
	if cap(c.dirty) < c.H {
		c.dirty = make([]bool, c.H)
	}
	c.dirty = c.dirty[:c.H]
	for i := range c.dirty {
		c.dirty[i] = true
	}
}

// Dirty reports whether row y was written since ClearDirty.
func (c *Canvas) Dirty(y int) bool { return y >= 0 && y < len(c.dirty) && c.dirty[y] }

// ClearDirty forgets which rows were written.
func (c *Canvas) ClearDirty() { clear(c.dirty) }

// CopyFrom makes c an exact copy of src, reusing c's cells; every row
// counts as written.
func (c *Canvas) CopyFrom(src *Canvas) {
	c.W, c.H = src.W, src.H
	if cap(c.Cells) < len(src.Cells) {
		c.Cells = cellsFor(len(src.Cells))
	}
	c.Cells = c.Cells[:len(src.Cells)]
	copy(c.Cells, src.Cells)
	c.markAll()
}

// CopyDirty brings c, an earlier copy of src, up to date: it copies the
// rows of src written since src's ClearDirty and marks them written in c.
// A canvas of another size is copied whole.
func (c *Canvas) CopyDirty(src *Canvas) {
	if c.W != src.W || c.H != src.H || len(c.dirty) != c.H {
		c.CopyFrom(src)
		return
	}
	for y := 0; y < src.H; y++ {
		if src.Dirty(y) {
			copy(c.row(y), src.row(y))
			c.dirty[y] = true
		}
	}
}

// Row returns row y's cells (nil outside), for writing: the row counts as
// written.
func (c *Canvas) Row(y int) []vterm.Cell {
	if y < 0 || y >= c.H {
		return nil
	}
	if y < len(c.dirty) {
		c.dirty[y] = true
	}
	return c.Cells[y*c.W : (y+1)*c.W]
}

// row returns row y's cells (nil outside), for reading.
func (c *Canvas) row(y int) []vterm.Cell {
	if y < 0 || y >= c.H {
		return nil
	}
	return c.Cells[y*c.W : (y+1)*c.W]
}

// Clip prepares cells [x0, x1) of row y for drawing: a wide character cut
// by either edge loses its half outside the span, which becomes a blank in
// the character's style, so no half of a wide character is left behind.
func (c *Canvas) Clip(y, x0, x1 int) {
	r := c.Row(y)
	if r == nil {
		return
	}
	x0, x1 = max(x0, 0), min(x1, c.W)
	if x0 >= x1 {
		return
	}
	if x0 > 0 && r[x0].Width == 0 {
		r[x0-1] = StyleOf(r[x0-1]).Cell(" ", 1)
	}
	if x1 < c.W && r[x1].Width == 0 {
		r[x1] = StyleOf(r[x1-1]).Cell(" ", 1)
	}
}

// Fill sets cells [x0, x1) of row y to cl (a cell of width 1).
func (c *Canvas) Fill(y, x0, x1 int, cl vterm.Cell) {
	x0, x1 = max(x0, 0), min(x1, c.W)
	if c.Row(y) == nil || x0 >= x1 {
		return
	}
	c.Clip(y, x0, x1)
	r := c.Row(y)[x0:x1]
	for i := range r {
		r[i] = cl
	}
}

// Put copies cells src to row y from column x, cut at column end (and at
// the canvas edge). A wide character that does not fit becomes a blank.
func (c *Canvas) Put(y, x, end int, src []vterm.Cell) {
	end = min(end, c.W, x+len(src))
	r := c.Row(y)
	if r == nil || x >= end {
		return
	}
	if x < 0 {
		src, x = src[-x:], 0
	}
	c.Clip(y, x, end)
	n := copy(r[x:end], src)
	if n > 0 && src[0].Width == 0 {
		// The span starts on the right half of a wide character.
		r[x] = StyleOf(src[0]).Cell(" ", 1)
	}
	if last := x + n - 1; n > 0 && r[last].Width == 2 {
		r[last] = StyleOf(r[last]).Cell(" ", 1)
	}
}

// PutWith is Put for a source that writes its cells itself: put writes
// up to len(dst) cells to dst, a span of row y from column x (at least 0)
// to column end, and returns how many it wrote, which PutWith returns.
// The row is changed only as much as Put changes it, without a copy of
// the source.
func (c *Canvas) PutWith(y, x, end int, put func(dst []vterm.Cell) int) int {
	end = min(end, c.W)
	r := c.Row(y)
	if r == nil || x < 0 || x >= end {
		return 0
	}
	c.Clip(y, x, end)
	n := put(r[x:end])
	if n > 0 && r[x].Width == 0 {
		// The span starts on the right half of a wide character.
		r[x] = StyleOf(r[x]).Cell(" ", 1)
	}
	if last := x + n - 1; n > 0 && r[last].Width == 2 {
		r[last] = StyleOf(r[last]).Cell(" ", 1)
	}
	return n
}

// Text draws s (plain text, no escape sequences) in style st on row y
// from column x, up to column end, and returns the column after it. A wide
// character that does not fit is left out.
func (c *Canvas) Text(y, x, end int, s string, st Style) int {
	end = min(end, c.W)
	if c.Row(y) == nil {
		return x
	}
	for len(s) > 0 && x < end {
		g, w := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
		s = s[len(g):]
		if w <= 0 {
			continue
		}
		if x+w > end {
			break
		}
		if x >= 0 {
			c.Clip(y, x, x+w)
			r := c.Row(y)
			r[x] = st.Cell(g, w)
			if w == 2 {
				r[x+1] = st.Cell("", 0)
			}
		}
		x += w
	}
	return x
}

// AppendText appends the cells of plain text s (no escape sequences) in
// style st.
func AppendText(dst []vterm.Cell, s string, st Style) []vterm.Cell {
	for len(s) > 0 {
		g, w := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
		s = s[len(g):]
		switch w {
		case 1:
			dst = append(dst, st.Cell(g, 1))
		case 2:
			dst = append(dst, st.Cell(g, 2), st.Cell("", 0))
		}
	}
	return dst
}

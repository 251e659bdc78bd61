package vterm

import "strings"

// rowCells returns the public cells of a visible row. The slice is cached
// on the row until the row changes and is never written again once made,
// so frames share it: copying an unchanged row into a Frame costs a slice
// header.
func (t *Terminal) rowCells(ln *line) []Cell {
	t.lineID(ln)
	if ln.pub == nil {
		ln.pub = make([]Cell, len(ln.cells))
		putCells(&t.tables, &t.mergeBuf, ln.pub, ln.cells)
	}
	return ln.pub
}

// rowSnap returns a copy of a visible row's stored cells, cached and
// shared like rowCells: the compact form a frame converts on demand. The
// copy ends after the first of the row's trailing zero cells (the one the
// conversion looks at after the last written cell): the rest are blanks
// PutRow adds, which keeps the copy of a short line short.
func (t *Terminal) rowSnap(ln *line) []cell {
	t.lineID(ln)
	if ln.snap == nil {
		ln.snap = append([]cell(nil), ln.cells[:min(ln.used+1, len(ln.cells))]...)
	}
	return ln.snap
}

// lineID returns the content ID of a visible row, naming new content with a
// new ID and dropping the caches made from the old one.
func (t *Terminal) lineID(ln *line) uint64 {
	if ln.dirty || ln.id == 0 {
		t.lastID++
		ln.id = t.lastID
		ln.dirty = false
		ln.render, ln.pub, ln.snap = "", nil, nil
	}
	return ln.id
}

// appendCells appends the public form of cs to dst.
func (t *Terminal) appendCells(dst []Cell, cs []cell) []Cell {
	n := len(dst)
	dst = append(dst, make([]Cell, len(cs))...)
	putCells(&t.tables, &t.mergeBuf, dst[n:], cs)
	return dst
}

// putCells writes the public form of cs to dst, as many cells as dst
// holds. A cell that a terminal would fuse into its neighbour when the two
// are written one after the other (a stray combining mark, a joiner left
// by cursor movement) becomes U+FFFD, as in rendered rows, so a front end
// writing the cells one by one never shifts a row. s are the side tables
// the cells refer to, buf a scratch buffer.
func putCells(s *sideTables, buf *[]byte, dst []Cell, cs []cell) {
	var prev cell
	havePrev := false
	for i, c := range cs[:min(len(cs), len(dst))] {
		if c.ch < 0x80 && c.attr&^attrMask == 0 && prev.ch < 0x300 {
			// The common case: an ASCII character or a blank, width 1,
			// no extras, which nothing can fuse with.
			d := &dst[i]
			if c.ch == 0 {
				d.Content = " "
			} else {
				d.Content = asciiText[c.ch : c.ch+1]
			}
			d.Width, d.Fg, d.Bg, d.Ul, d.Attrs, d.UlStyle = 1, c.fg, c.bg, 0, Attr(c.attr), 0
			if d.Link != "" {
				d.Link = ""
			}
			prev, havePrev = c, true
			continue
		}
		pc := s.publicCell(c)
		if c.cont() {
			dst[i] = pc
			continue
		}
		if c.ch >= 0x80 || prev.ch >= 0x300 {
			replace := havePrev && wouldMerge(s, buf, prev, c)
			if !replace && c.ch >= 0x600 {
				if n := nextCell(cs, i); n >= 0 && joinsNext(s.lastRune(c)) && wouldMerge(s, buf, c, cs[n]) {
					replace = true
				}
			}
			if replace {
				pc.Content = "\uFFFD"
				c = cell{ch: 0xfffd}
			}
		}
		prev, havePrev = c, true
		dst[i] = pc
	}
}

// rowConv converts a frame's stored rows: the side tables of the copy and
// the scratch the conversion needs. Each Frame has its own.
type rowConv struct {
	tabs sideTables
	buf  []byte
}

// PutRow writes the cells of row y of the copy to dst, at most len(dst)
// of them, and returns how many it wrote. It converts straight from the
// terminal's compact form, so a front end that draws onto a canvas of its
// own needs no copy of the row: take the copy with FrameRows and put the
// rows whose IDs changed.
func (f *Frame) PutRow(y int, dst []Cell) int {
	if y >= 0 && y < len(f.Cells) {
		return copy(dst, f.Cells[y])
	}
	if y < 0 || y >= len(f.raw) {
		return 0
	}
	if f.conv == nil {
		f.conv = new(rowConv)
	}
	f.conv.tabs.graphemes, f.conv.tabs.extras = f.graphemes, f.extras
	n := min(len(dst), len(f.raw[y]))
	putCells(&f.conv.tabs, &f.conv.buf, dst[:n], f.raw[y])
	// The row's trailing blanks, which the copy leaves out.
	end := max(n, min(len(dst), f.Cols))
	for i := n; i < end; i++ {
		dst[i] = Cell{Content: " ", Width: 1}
	}
	return end
}

// Line returns the text of row y of the copy, trailing blanks trimmed: what
// tests and plain-text consumers want of it.
func (f *Frame) Line(y int) string {
	if y < 0 || y >= f.Rows {
		return ""
	}
	row := make([]Cell, f.Cols)
	row = row[:f.PutRow(y, row)]
	var b strings.Builder
	for _, c := range row {
		b.WriteString(c.Content)
	}
	return strings.TrimRight(b.String(), " ")
}

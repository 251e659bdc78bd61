package vterm

import "strings"

// rowCells returns the public cells of a visible row. The slice is cached
// on the row until the row changes and is never written again once made,
// so frames share it: copying an unchanged row into a Frame costs a slice
// header.
func (t *Terminal) rowCells(ln *line) []Cell {
	t.lineID(ln)
	if ln.pub == nil {
		ln.pub = t.appendCells(make([]Cell, 0, len(ln.cells)), ln.cells)
	}
	return ln.pub
}

// lineID returns the content ID of a visible row, naming new content with a
// new ID and dropping the caches made from the old one.
func (t *Terminal) lineID(ln *line) uint64 {
	if ln.dirty || ln.id == 0 {
		t.lastID++
		ln.id = t.lastID
		ln.dirty = false
		ln.render, ln.pub = "", nil
	}
	return ln.id
}

// appendCells appends the public form of cs to dst. A cell that a
// terminal would fuse into its neighbour when the two are written one
// after the other (a stray combining mark, a joiner left by cursor
// movement) becomes U+FFFD, as in rendered rows, so a front end writing
// the cells one by one never shifts a row.
func (t *Terminal) appendCells(dst []Cell, cs []cell) []Cell {
	var prev cell
	havePrev := false
	for i, c := range cs {
		pc := t.tables.publicCell(c)
		if c.cont() {
			dst = append(dst, pc)
			continue
		}
		if c.ch >= 0x80 || prev.ch >= 0x300 {
			replace := havePrev && t.wouldMerge(prev, c)
			if !replace && c.ch >= 0x600 {
				if n := nextCell(cs, i); n >= 0 && joinsNext(t.tables.lastRune(c)) && t.wouldMerge(c, cs[n]) {
					replace = true
				}
			}
			if replace {
				pc.Content = "\uFFFD"
				c = cell{ch: 0xfffd}
			}
		}
		prev, havePrev = c, true
		dst = append(dst, pc)
	}
	return dst
}

// Line returns the text of row y of the copy, trailing blanks trimmed: what
// tests and plain-text consumers want of it.
func (f *Frame) Line(y int) string {
	if y < 0 || y >= len(f.Cells) {
		return ""
	}
	var b strings.Builder
	for _, c := range f.Cells[y] {
		b.WriteString(c.Content)
	}
	return strings.TrimRight(b.String(), " ")
}

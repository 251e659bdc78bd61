package vterm

import (
	"strconv"

	"github.com/charmbracelet/x/ansi"
)

// RenderRow returns visible row y as an ANSI-styled string exactly cols
// cells wide, ending with an SGR reset. The string is cached until the row
// changes, so calling it for every row of every frame is cheap.
func (t *Terminal) RenderRow(y int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if y < 0 || y >= t.rows {
		return ""
	}
	return t.renderLine(t.scr.row(y))
}

func (t *Terminal) renderLine(ln *line) string {
	t.lineID(ln)
	if ln.render == "" {
		t.scratch = t.appendStyled(t.scratch[:0], ln.cells, true)
		ln.render = string(t.scratch)
	}
	return ln.render
}

// RenderView returns the rows of a window scrolled offset lines back into
// history (0 = the live screen), reusing dst. The alternate screen has no
// history, so offset is ignored there.
func (t *Terminal) RenderView(offset int, dst []string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.altActive {
		offset = 0
	}
	offset = min(max(offset, 0), t.hist.n)
	dst = dst[:0]
	var tmp []cell
	for i := 0; i < t.rows; i++ {
		l := t.hist.n - offset + i
		if l >= t.hist.n {
			dst = append(dst, t.renderLine(t.scr.row(l-t.hist.n)))
			continue
		}
		if tmp == nil {
			tmp = make([]cell, t.cols)
		}
		enc, _ := t.hist.bytes(l)
		decodeRow(tmp, enc)
		t.scratch = t.appendStyled(t.scratch[:0], tmp, true)
		dst = append(dst, string(t.scratch))
	}
	return dst
}

// cellsView appends the rows of the window offset (already clamped) lines
// back to raw, their content IDs to ids and, with cells, their public cells
// to dst.
func (t *Terminal) cellsView(offset int, cells bool, dst [][]Cell, raw [][]cell, ids []uint64) ([][]Cell, [][]cell, []uint64) {
	for i := 0; i < t.rows; i++ {
		l := t.hist.n - offset + i
		if l >= t.hist.n {
			ln := t.scr.row(l - t.hist.n)
			raw = append(raw, t.rowSnap(ln))
			if cells {
				dst = append(dst, t.rowCells(ln))
			}
			ids = append(ids, ln.id)
			continue
		}
		tmp := make([]cell, t.cols)
		enc, _ := t.hist.bytes(l)
		decodeRow(tmp, enc)
		raw = append(raw, tmp)
		if cells {
			dst = append(dst, t.appendCells(make([]Cell, 0, t.cols), tmp))
		}
		ids = append(ids, 0)
	}
	return dst, raw, ids
}

// HistoryLine returns history line i (0 = oldest) as plain text or with SGR
// styles; trailing blanks are trimmed either way.
func (t *Terminal) HistoryLine(i int, styled bool) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.historyLine(i, styled)
}

func (t *Terminal) historyLine(i int, styled bool) string {
	if i < 0 || i >= t.histLen() {
		return ""
	}
	enc, _ := t.hist.bytes(i)
	cs := make([]cell, max(rowWidth(enc), 1))
	decodeRow(cs, enc)
	if !styled {
		return string(t.appendPlain(nil, cs))
	}
	return string(t.appendStyled(nil, cs[:usedLen(cs)], false))
}

// appendStyled renders cells with minimal SGR changes; pad keeps the row
// at full width (blank cells become spaces) and the result always ends
// with a reset when any style was emitted.
func (t *Terminal) appendStyled(b []byte, cs []cell, pad bool) []byte {
	var cur cell // style currently in effect (ch unused)
	curLink := uint32(0)
	styled := false
	var prev cell // text of the previous emitted cell
	havePrev := false
	for i, c := range cs {
		if c.attr&flagWideCont != 0 {
			continue
		}
		if c.fg != cur.fg || c.bg != cur.bg || c.attr&styleMask != cur.attr&styleMask {
			if e := c.extra(); e != curLink {
				b = t.appendLinkChange(b, curLink, e)
				curLink = e
			}
			b = t.appendSGR(b, c)
			cur = c
			styled = true
		}
		// Fast path: ASCII after a cell that cannot join what follows.
		if c.ch < 0x80 && prev.ch < 0x300 {
			if c.ch == 0 {
				b = append(b, ' ')
			} else {
				b = append(b, byte(c.ch))
			}
			prev, havePrev = c, true
			continue
		}
		// The renderer segments the row into grapheme clusters; a cell
		// that would fuse with its neighbour (a stray combining mark, a
		// prepend or joiner left by cursor movement) would shift the row,
		// so it is shown as a replacement character.
		replace := havePrev && t.wouldMerge(prev, c)
		if !replace && c.ch >= 0x600 {
			if n := nextCell(cs, i); n >= 0 && joinsNext(t.tables.lastRune(c)) && t.wouldMerge(c, cs[n]) {
				replace = true
			}
		}
		prev, havePrev = c, true
		if replace {
			prev = cell{ch: 0xfffd}
			b = append(b, "\uFFFD"...)
			if c.wide() {
				b = append(b, ' ')
			}
			continue
		}
		b = t.tables.appendShown(b, c)
	}
	if curLink != 0 && t.tables.extraOf(cell{attr: curLink << extraShift}).link != "" {
		b = append(b, "\x1b]8;;\x1b\\"...)
	}
	if styled || pad {
		b = append(b, "\x1b[m"...)
	}
	return b
}

// appendLinkChange emits an OSC 8 when the hyperlink of extras index from
// differs from that of to.
func (t *Terminal) appendLinkChange(b []byte, from, to uint32) []byte {
	old := t.tables.extraOf(cell{attr: from << extraShift}).link
	nl := t.tables.extraOf(cell{attr: to << extraShift}).link
	if old == nl {
		return b
	}
	b = append(b, "\x1b]8;;"...)
	b = append(b, nl...)
	return append(b, "\x1b\\"...)
}

// appendSGR emits one complete SGR sequence selecting c's style from a
// reset state.
func (t *Terminal) appendSGR(b []byte, c cell) []byte {
	b = append(b, "\x1b[0"...)
	a := Attr(c.attr & attrMask)
	for i := 0; i < attrCount; i++ {
		if a&(1<<i) == 0 {
			continue
		}
		switch Attr(1 << i) {
		case AttrBold:
			b = append(b, ";1"...)
		case AttrFaint:
			b = append(b, ";2"...)
		case AttrItalic:
			b = append(b, ";3"...)
		case AttrBlink:
			b = append(b, ";5"...)
		case AttrReverse:
			b = append(b, ";7"...)
		case AttrInvisible:
			b = append(b, ";8"...)
		case AttrStrikethrough:
			b = append(b, ";9"...)
		case AttrOverline:
			b = append(b, ";53"...)
		}
	}
	switch ul := UnderlineStyle((c.attr & ulMask) >> ulShift); ul {
	case UnderlineNone:
	case UnderlineSingle:
		b = append(b, ";4"...)
	default:
		b = append(b, ";4:"...)
		b = strconv.AppendInt(b, int64(ul), 10)
	}
	b = AppendColorSGR(b, c.fg, 30, 90, "38")
	b = AppendColorSGR(b, c.bg, 40, 100, "48")
	if ul := t.tables.extraOf(c).ul; ul != 0 {
		b = AppendColorSGR(b, ul, -1, -1, "58")
	}
	return append(b, 'm')
}

// AppendColorSGR appends ";" and the SGR parameters that select colour c
// (nothing for the default colour): base+i for the 8 basic colours (30 for
// a foreground, 40 for a background; -1 for none), bright+i-8 for the 8
// bright ones (-1 for none), otherwise ext (38, 48 or 58) with ";5;N" or
// ";2;R;G;B". The emulator's row renderer and agentgrid's frame writer
// share it.
func AppendColorSGR(b []byte, c Color, base, bright int, ext string) []byte {
	if c == 0 {
		return b
	}
	if i, ok := c.Indexed(); ok {
		switch {
		case i < 8 && base >= 0:
			b = append(b, ';')
			return strconv.AppendInt(b, int64(base+int(i)), 10)
		case i < 16 && bright >= 0:
			b = append(b, ';')
			return strconv.AppendInt(b, int64(bright+int(i)-8), 10)
		}
		b = append(b, ';')
		b = append(b, ext...)
		b = append(b, ";5;"...)
		return strconv.AppendInt(b, int64(i), 10)
	}
	r, g, bl, _ := c.RGB()
	b = append(b, ';')
	b = append(b, ext...)
	b = append(b, ";2;"...)
	b = strconv.AppendInt(b, int64(r), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(g), 10)
	b = append(b, ';')
	return strconv.AppendInt(b, int64(bl), 10)
}

func nextCell(cs []cell, i int) int {
	for j := i + 1; j < len(cs); j++ {
		if !cs[j].cont() {
			return j
		}
	}
	return -1
}

// wouldMerge reports whether the text of b, written after a, would be
// segmented into a's grapheme cluster. Cheap filters keep the segmenter off
// the common path.
func (t *Terminal) wouldMerge(a, b cell) bool {
	return wouldMerge(&t.tables, &t.mergeBuf, a, b)
}

// wouldMerge is Terminal.wouldMerge with the side tables s and the scratch
// buffer buf given.
func wouldMerge(s *sideTables, buf *[]byte, a, b cell) bool {
	if !couldExtend(s.firstRune(b)) && (a.ch < 0x80 || !joinsNext(s.lastRune(a))) {
		return false
	}
	bs := s.appendContent((*buf)[:0], a)
	n := len(bs)
	bs = s.appendContent(bs, b)
	*buf = bs
	cluster, _ := ansi.FirstGraphemeCluster(bs, ansi.GraphemeWidth)
	return len(cluster) > n
}

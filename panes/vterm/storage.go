package vterm

import (
	"encoding/binary"
	"slices"
)

// line is one row of the visible screen.
type line struct {
	cells []cell
	// used is a high-water mark: every cell from used on is the zero cell.
	// It keeps the per-row cost of scrolling, clearing and packing into
	// history proportional to what the row holds rather than to its width,
	// which matters for floods of short lines.
	used    int
	wrapped bool // the text continues on the next row (soft wrap), used by reflow
	dirty   bool // the caches below are stale
	render  string
	pub     []Cell // the row's public cells (Frame.Cells); never written once made
	snap    []cell // a copy of cells for frames to convert (FrameRows); never written once made
	id      uint64 // names the content the caches were made from (Frame.IDs)
}

// fill sets cells [from, to) to c. Filling with the zero cell stops at the
// high-water mark, since everything past it is already zero.
func (l *line) fill(from, to int, c cell) {
	l.dirty = true
	if c == (cell{}) {
		if to >= l.used {
			to = l.used
			l.used = min(l.used, from)
		}
		if from < to {
			clear(l.cells[from:to])
		}
		return
	}
	cs := l.cells[from:to]
	for i := range cs {
		cs[i] = c
	}
	l.touch(to)
}

// touch records that cells before end may have been written.
func (l *line) touch(end int) {
	if end > l.used {
		l.used = end
	}
}

// usedLen is the row length without trailing default blanks, found in
// time proportional to the used part of the row.
func (l *line) usedLen() int { return usedLen(l.cells[:l.used]) }

// screen is the visible grid kept as a ring of rows so that scrolling the
// whole screen is moving the head plus clearing one row, never copying cells.
type screen struct {
	lines []line
	head  int
}

func newScreen(cols, rows int) screen {
	s := screen{lines: make([]line, rows)}
	backing := make([]cell, cols*rows)
	for i := range s.lines {
		s.lines[i].cells = backing[i*cols : (i+1)*cols : (i+1)*cols]
		s.lines[i].dirty = true
	}
	return s
}

func (s *screen) row(y int) *line {
	i := s.head + y
	if i >= len(s.lines) {
		i -= len(s.lines)
	}
	return &s.lines[i]
}

// history holds scrolled-off rows of the main screen in a compact packed
// form: runs of equally styled cells, one byte per ASCII character. Rows are
// FIFO, so their bytes live in one circular byte buffer and dropping the
// oldest row is moving a read offset; steady-state scrolling allocates
// nothing.
type history struct {
	max   int
	idx   []histLine // ring of rows, oldest at start
	start int
	n     int
	buf   []byte
	wpos  int // next write offset in buf
	// pushed counts the rows pushed in less those taken back (popNewest):
	// history row i is line pushed-n+i of the pane's output, whatever the
	// cap dropped, so a view anchored to a line can follow it (Frame.Pushed).
	pushed uint64
}

type histLine struct {
	off, size uint32
	wrapped   bool
}

func (h *history) at(i int) histLine {
	j := h.start + i
	if j >= len(h.idx) {
		j -= len(h.idx)
	}
	return h.idx[j]
}

func (h *history) reset() {
	h.idx = h.idx[:0]
	h.start, h.n, h.wpos = 0, 0, 0
}

// dropOldest removes the oldest row.
func (h *history) dropOldest() {
	if h.n == 0 {
		return
	}
	h.start++
	if h.start == len(h.idx) {
		h.start = 0
	}
	h.n--
	if h.n == 0 {
		h.start, h.wpos = 0, 0
		h.idx = h.idx[:0]
	}
}

// rpos is the offset of the oldest row's bytes.
func (h *history) rpos() int {
	if h.n == 0 {
		return h.wpos
	}
	return int(h.idx[h.start].off)
}

// reserve returns an offset where size contiguous bytes may be written.
func (h *history) reserve(size int) int {
	if h.n == 0 {
		h.wpos = 0
		if size > len(h.buf) {
			h.buf = make([]byte, max(size, 4096))
		}
		return 0
	}
	r := h.rpos()
	if h.wpos >= r {
		if h.wpos+size <= len(h.buf) {
			return h.wpos
		}
		if size < r {
			return 0
		}
	} else if h.wpos+size < r {
		return h.wpos
	}
	h.grow(size)
	return h.wpos
}

// grow reallocates the byte buffer, packing rows in order.
func (h *history) grow(need int) {
	used := 0
	for i := 0; i < h.n; i++ {
		used += int(h.at(i).size)
	}
	nb := make([]byte, max(2*(used+need), 4096))
	off := 0
	for i := 0; i < h.n; i++ {
		j := h.start + i
		if j >= len(h.idx) {
			j -= len(h.idx)
		}
		hl := &h.idx[j]
		copy(nb[off:], h.buf[hl.off:hl.off+hl.size])
		hl.off = uint32(off)
		off += int(hl.size)
	}
	h.buf = nb
	h.wpos = off
}

// push appends an encoded row, dropping the oldest when full.
func (h *history) push(enc []byte, wrapped bool) {
	if h.max <= 0 {
		return
	}
	if h.n == h.max {
		h.dropOldest()
	}
	off := h.reserve(len(enc))
	copy(h.buf[off:], enc)
	h.wpos = off + len(enc)
	hl := histLine{off: uint32(off), size: uint32(len(enc)), wrapped: wrapped}
	j := h.start + h.n
	switch {
	case j < len(h.idx):
		h.idx[j] = hl
	case h.start == 0:
		h.idx = append(h.idx, hl)
	default:
		h.idx[j-len(h.idx)] = hl
	}
	h.n++
	h.pushed++
}

// popNewest removes the newest row (the screen grew and took it back).
func (h *history) popNewest() {
	if h.n == 0 {
		return
	}
	h.n--
	h.pushed--
	if h.n == 0 {
		h.reset()
		return
	}
	last := h.at(h.n - 1)
	h.wpos = int(last.off + last.size)
}

func (h *history) bytes(i int) ([]byte, bool) {
	hl := h.at(i)
	return h.buf[hl.off : hl.off+hl.size], hl.wrapped
}

// Packed row format: a sequence of runs. Each run is a 2-byte little-endian
// header (count in bits 0-14, bit 15 set when characters take 4 bytes), the
// 12-byte style (fg, bg, attr), then the characters. Wide cells are stored
// once; their right halves are implied by the wide flag in attr.
const runHeader = 14

// usedLen is the row length without trailing default blanks.
func usedLen(cs []cell) int {
	n := len(cs)
	for n > 0 && cs[n-1].blank() {
		n--
	}
	return n
}

// encodeRow appends the packed form of cs to dst in one pass. A run ends
// when the style changes, or when a non-ASCII character meets a one-byte
// run (which then continues as a four-byte run).
func encodeRow(dst []byte, cs []cell) []byte {
	cs = cs[:usedLen(cs)]
	// Worst case: every cell its own four-byte run. Writing by index into
	// pre-grown space keeps the per-cell loop free of append checks.
	start := len(dst)
	dst = slices.Grow(dst, len(cs)*(runHeader+4))
	out := dst[start : start+len(cs)*(runHeader+4)]
	pos := 0
	for i := 0; i < len(cs); {
		c := cs[i]
		if c.cont() {
			c = cell{fg: c.fg, bg: c.bg, attr: c.attr &^ flagWideCont}
		}
		fg, bg, st := c.fg, c.bg, c.attr
		wide := st&flagWide != 0
		narrow := c.ch < 0x80
		hdr := pos
		binary.LittleEndian.PutUint32(out[pos+2:], uint32(fg))
		binary.LittleEndian.PutUint32(out[pos+6:], uint32(bg))
		binary.LittleEndian.PutUint32(out[pos+10:], st)
		pos += runHeader
		count := 0
		if narrow && !wide {
			for i < len(cs) && count < 0x7fff {
				d := cs[i]
				if d.fg != fg || d.bg != bg || d.attr != st || d.ch >= 0x80 {
					break
				}
				out[pos] = byte(d.ch)
				pos++
				count++
				i++
			}
			if count == 0 {
				// An orphan continuation cell: store it as a blank.
				out[pos] = 0
				pos++
				count++
				i++
			}
		} else {
			for i < len(cs) && count < 0x7fff {
				d := cs[i]
				if d.cont() {
					if wide {
						i++
						continue
					}
					d = cell{fg: d.fg, bg: d.bg, attr: d.attr &^ flagWideCont}
				}
				if d.fg != fg || d.bg != bg || d.attr != st {
					break
				}
				binary.LittleEndian.PutUint32(out[pos:], d.ch)
				pos += 4
				count++
				i++
			}
			narrow = false
		}
		h := uint16(count)
		if !narrow {
			h |= 0x8000
		}
		binary.LittleEndian.PutUint16(out[hdr:], h)
	}
	return dst[:start+pos]
}

// decodeRow fills dst from a packed row, blanking the rest, and returns the
// number of cells the row used. Cells beyond len(dst) are dropped; a wide
// char that would straddle the end is replaced by a blank.
func decodeRow(dst []cell, enc []byte) int {
	x := 0
	for len(enc) >= runHeader {
		hdr := binary.LittleEndian.Uint16(enc)
		fg := Color(binary.LittleEndian.Uint32(enc[2:]))
		bg := Color(binary.LittleEndian.Uint32(enc[6:]))
		st := binary.LittleEndian.Uint32(enc[10:])
		enc = enc[runHeader:]
		count := int(hdr & 0x7fff)
		step := 1
		if hdr&0x8000 != 0 {
			step = 4
		}
		if len(enc) < count*step {
			break
		}
		wide := st&flagWide != 0
		for k := 0; k < count; k++ {
			var ch uint32
			if step == 1 {
				ch = uint32(enc[k])
			} else {
				ch = binary.LittleEndian.Uint32(enc[4*k:])
			}
			if wide {
				if x+1 < len(dst) {
					dst[x] = cell{ch: ch, fg: fg, bg: bg, attr: st}
					dst[x+1] = cell{fg: fg, bg: bg, attr: st&^flagWide | flagWideCont}
				} else if x < len(dst) {
					dst[x] = cell{fg: fg, bg: bg, attr: st &^ flagWide}
				}
				x += 2
			} else {
				if x < len(dst) {
					dst[x] = cell{ch: ch, fg: fg, bg: bg, attr: st}
				}
				x++
			}
		}
		enc = enc[count*step:]
	}
	for i := min(x, len(dst)); i < len(dst); i++ {
		dst[i] = cell{}
	}
	return x
}

// rowWidth returns the number of cells a packed row uses.
func rowWidth(enc []byte) int {
	x := 0
	for len(enc) >= runHeader {
		hdr := binary.LittleEndian.Uint16(enc)
		st := binary.LittleEndian.Uint32(enc[10:])
		count := int(hdr & 0x7fff)
		step := 1
		if hdr&0x8000 != 0 {
			step = 4
		}
		enc = enc[runHeader:]
		if len(enc) < count*step {
			break
		}
		if st&flagWide != 0 {
			x += 2 * count
		} else {
			x += count
		}
		enc = enc[count*step:]
	}
	return x
}

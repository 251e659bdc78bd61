package vterm

// Resize changes the screen size (clamped to at least 1x1). The main screen
// reflows soft-wrapped lines to the new width, keeping the cursor on the
// same character; the alternate screen is clipped.
func (t *Terminal) Resize(cols, rows int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	cols, rows = clampSize(cols, rows)
	if cols == t.cols && rows == t.rows {
		return
	}
	oldCols, oldRows := t.cols, t.rows

	// Main screen: reflow with the live cursor, or the saved one while the
	// alternate screen is shown.
	mc := &t.cur
	if t.altActive {
		mc = &t.savedMain
	}
	if cols == oldCols {
		t.resizeMainHeight(rows, mc)
	} else {
		t.reflowMain(cols, rows, mc)
	}
	t.resizeAlt(oldCols, oldRows, cols, rows)
	if t.altActive {
		t.cur.x = min(t.cur.x, cols-1)
		t.cur.y = min(t.cur.y, rows-1)
		t.savedAlt.x = min(t.savedAlt.x, cols-1)
		t.savedAlt.y = min(t.savedAlt.y, rows-1)
	}
	t.cols, t.rows = cols, rows
	t.top, t.bot = 0, rows-1
	t.resizeTabs(oldCols)
	t.seq++
}

func (t *Terminal) resizeTabs(oldCols int) {
	old := t.tabs
	t.tabs = make([]bool, t.cols)
	for i := range t.tabs {
		if i < oldCols && i < len(old) {
			t.tabs[i] = old[i]
		} else {
			t.tabs[i] = i%8 == 0 && i > 0
		}
	}
}

// resizeAlt clips the alternate screen: rows below the cursor go first
// when shrinking (tmux behaviour), then rows at the top.
func (t *Terminal) resizeAlt(oldCols, oldRows, cols, rows int) {
	ns := newScreen(cols, rows)
	cy := 0
	if t.altActive {
		cy = t.cur.y
	}
	skip := 0
	if rows < oldRows {
		needed := oldRows - rows
		below := oldRows - 1 - cy
		needed -= min(below, needed)
		skip = needed
	}
	for y := 0; y < rows && y+skip < oldRows; y++ {
		src := t.alt.row(y + skip)
		dst := ns.row(y)
		n := copy(dst.cells, src.cells)
		if n > 0 && dst.cells[n-1].wide() {
			dst.cells[n-1] = cell{bg: dst.cells[n-1].bg}
		}
		dst.used = min(src.used, n)
		dst.wrapped = src.wrapped
	}
	if t.altActive {
		t.cur.y -= skip
		if t.cur.y < 0 {
			t.cur.y = 0
		}
	}
	t.alt = ns
	if t.altActive {
		t.scr = &t.alt
	}
}

// resizeMainHeight changes only the number of rows of the main screen,
// which needs no re-wrapping: shrinking drops rows below the cursor first
// and then moves top rows into history; growing pulls rows back from
// history, then adds blank rows at the bottom (tmux behaviour).
func (t *Terminal) resizeMainHeight(rows int, mc *cursor) {
	old := t.rows
	var keep []line // the rows that stay, top to bottom
	for y := 0; y < old; y++ {
		keep = append(keep, *t.main.row(y))
	}
	if rows < old {
		needed := old - rows
		below := min(needed, old-1-mc.y)
		keep = keep[:old-below]
		needed -= below
		for i := 0; i < needed; i++ {
			t.scratch = encodeRow(t.scratch[:0], keep[i].cells[:keep[i].used])
			t.hist.push(t.scratch, keep[i].wrapped)
		}
		keep = keep[needed:]
		mc.y -= needed
	}
	ns := newScreen(t.cols, rows)
	y := 0
	if rows > old {
		pull := min(rows-old, t.hist.n)
		for i := 0; i < pull; i++ {
			enc, wrapped := t.hist.bytes(t.hist.n - pull + i)
			ln := ns.row(i)
			ln.used = min(decodeRow(ln.cells, enc), len(ln.cells))
			ln.wrapped = wrapped
		}
		for i := 0; i < pull; i++ {
			t.hist.popNewest()
		}
		y = pull
		mc.y += pull
	}
	for _, ln := range keep {
		dst := ns.row(y)
		copy(dst.cells, ln.cells)
		dst.used = ln.used
		dst.wrapped = ln.wrapped
		y++
	}
	t.main = ns
	if !t.altActive {
		t.scr = &t.main
	}
	mc.y = min(max(mc.y, 0), rows-1)
}

// physLines collects re-wrapped rows in packed form during a reflow.
type physLines struct {
	buf     []byte
	offs    []int
	wrapped []bool
}

func (p *physLines) add(cs []cell, wrapped bool) {
	p.offs = append(p.offs, len(p.buf))
	p.buf = encodeRow(p.buf, cs)
	p.wrapped = append(p.wrapped, wrapped)
}

func (p *physLines) get(i int) []byte {
	end := len(p.buf)
	if i+1 < len(p.offs) {
		end = p.offs[i+1]
	}
	return p.buf[p.offs[i]:end]
}

// reflowMain rebuilds history and main screen at the new size: rows joined
// into logical lines by their wrapped flags, re-wrapped at the new width,
// and the window placed so the cursor stays visible with the screen filled
// from history where possible.
func (t *Terminal) reflowMain(cols, rows int, mc *cursor) {
	oldCols := t.cols
	nsrc := t.hist.n + t.rows
	curSrc := t.hist.n + mc.y
	curOff := mc.x
	if mc.wrapNext {
		curOff++
	}
	// Shrinking drops rows below the cursor first, as tmux does.
	last := nsrc - 1
	if rows < t.rows {
		last -= min(t.rows-rows, t.rows-1-mc.y)
	}

	var out physLines
	logical := make([]cell, 0, oldCols*2)
	tmp := make([]cell, oldCols)
	newCurLine, newCurX := -1, 0
	cursorInLogical := -1 // offset of the cursor within the current logical line

	for i := 0; i <= last; i++ {
		var cs []cell
		var wrapped bool
		if i < t.hist.n {
			enc, w := t.hist.bytes(i)
			decodeRow(tmp, enc)
			cs, wrapped = tmp, w
		} else {
			ln := t.main.row(i - t.hist.n)
			cs, wrapped = ln.cells, ln.wrapped
		}
		// A blank left at the end of a wrapped row because the wide char
		// that follows did not fit is padding, not text.
		if n := len(logical); n > 0 && len(cs) > 0 && cs[0].wide() && logical[n-1].ch == 0 && !logical[n-1].cont() {
			logical = logical[:n-1]
		}
		if i == curSrc {
			cursorInLogical = len(logical) + curOff
		}
		if wrapped && i < last {
			logical = append(logical, cs...)
			continue
		}
		logical = append(logical, cs[:usedLen(cs)]...)
		line, x := t.rewrap(&out, logical, cols, cursorInLogical)
		if cursorInLogical >= 0 {
			newCurLine, newCurX = line, x
			cursorInLogical = -1
		}
		logical = logical[:0]
	}
	if newCurLine < 0 {
		newCurLine = len(out.offs) - 1
		newCurX = 0
	}
	// Place the window: the screen shows the last rows, the rest is
	// history. A cursor pushed into history goes to the top left (tmux).
	top := max(0, len(out.offs)-rows)
	if newCurLine < top {
		newCurLine, newCurX = top, 0
	}
	// The rows are rewrapped, not new: the count of lines pushed stays.
	pushed := t.hist.pushed
	t.hist.reset()
	for i := 0; i < top; i++ {
		t.hist.push(out.get(i), out.wrapped[i])
	}
	t.hist.pushed = pushed
	ns := newScreen(cols, rows)
	for y := 0; y < rows && top+y < len(out.offs); y++ {
		ln := ns.row(y)
		ln.used = min(decodeRow(ln.cells, out.get(top+y)), len(ln.cells))
		ln.wrapped = out.wrapped[top+y]
	}
	t.main = ns
	if !t.altActive {
		t.scr = &t.main
	}
	mc.y = min(max(newCurLine-top, 0), rows-1)
	mc.x = min(newCurX, cols-1)
	mc.wrapNext = false
}

// rewrap splits one logical line into rows of width cols, appending them
// to out. It returns the row index and column of cursor offset cur (when
// cur >= 0).
func (t *Terminal) rewrap(out *physLines, logical []cell, cols int, cur int) (int, int) {
	first := len(out.offs)
	curLine, curX := -1, 0
	if cur >= 0 && cur > len(logical) {
		// The cursor sits beyond the text: pad so its row exists.
		for len(logical) < cur {
			logical = append(logical, cell{})
		}
	}
	row := make([]cell, 0, cols)
	pos := 0 // offset in logical
	for {
		row = row[:0]
		start := pos
		for pos < len(logical) && len(row) < cols {
			c := logical[pos]
			if c.wide() {
				if len(row)+2 > cols {
					if len(row) == 0 {
						// Wider than the screen: drop it.
						pos += 2
						continue
					}
					break
				}
				row = append(row, c)
				if pos+1 < len(logical) {
					row = append(row, logical[pos+1])
				} else {
					row = append(row, cell{attr: c.attr&^flagWide | flagWideCont})
				}
				pos += 2
				continue
			}
			if c.cont() {
				c = cell{bg: c.bg}
			}
			row = append(row, c)
			pos++
		}
		if cur >= start && (cur < pos || (pos >= len(logical) && curLine < 0)) {
			curLine = len(out.offs)
			curX = cur - start
		}
		more := pos < len(logical)
		out.add(row, more)
		if !more {
			break
		}
	}
	if cur >= 0 && curLine >= 0 && curX >= cols {
		// Cursor right after a full final row: put it at the start of a
		// new row, as the next character would go there.
		out.wrapped[len(out.wrapped)-1] = true
		out.add(nil, false)
		curLine, curX = len(out.offs)-1, 0
	}
	if curLine < 0 {
		curLine = first
	}
	return curLine, curX
}

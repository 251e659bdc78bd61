package vterm

// execute runs a C0 control.
func (t *Terminal) execute(c byte) {
	t.lastRune = 0
	switch c {
	case 0x07:
		t.emit(event{kind: 'b'})
	case 0x08:
		t.backspace()
	case 0x09:
		t.tab(1)
	case 0x0a, 0x0b, 0x0c:
		t.linefeed()
	case 0x0d:
		t.cur.x = 0
		t.cur.wrapNext = false
	case 0x0e:
		t.cur.gl = 1
	case 0x0f:
		t.cur.gl = 0
	}
}

// backspace moves left; at column 0 it returns to the end of the previous
// row when that row soft-wrapped (tmux behaviour).
func (t *Terminal) backspace() {
	switch {
	case t.cur.wrapNext:
		t.cur.wrapNext = false
	case t.cur.x > 0:
		t.cur.x--
	case t.cur.y > 0 && t.scr.row(t.cur.y-1).wrapped:
		t.cur.y--
		t.cur.x = t.cols - 1
	}
}

// tab moves to the n-th next tab stop (or the last column).
func (t *Terminal) tab(n int) {
	if t.cur.wrapNext {
		return
	}
	x := t.cur.x
	for ; n > 0 && x < t.cols-1; n-- {
		x++
		for x < t.cols-1 && !t.tabs[x] {
			x++
		}
	}
	t.cur.x = x
}

// backTab moves to the n-th previous tab stop (or column 0).
func (t *Terminal) backTab(n int) {
	x := t.cur.x
	t.cur.wrapNext = false
	for ; n > 0 && x > 0; n-- {
		x--
		for x > 0 && !t.tabs[x] {
			x--
		}
	}
	t.cur.x = x
}

// linefeed moves down, scrolling at the bottom of the scroll region. A
// pending wrap survives it, as in tmux.
func (t *Terminal) linefeed() {
	switch {
	case t.cur.y == t.bot:
		t.scrollUp(t.top, t.bot, 1)
	case t.cur.y < t.rows-1:
		t.cur.y++
	}
}

// reverseIndex moves up, scrolling down at the top of the region.
func (t *Terminal) reverseIndex() {
	switch {
	case t.cur.y == t.top:
		t.scrollDown(t.top, t.bot, 1)
	case t.cur.y > 0:
		t.cur.y--
	}
}

func (t *Terminal) blank() cell { return cell{bg: t.cur.pen.bg} }

func (t *Terminal) clearLine(ln *line) {
	ln.fill(0, len(ln.cells), t.blank())
	ln.wrapped = false
}

// scrollUp scrolls rows [top, bot] up by n. On the main screen the rows
// leaving the top of the region go to history, as in tmux (even for a
// region that does not span the screen). When the region is the whole
// screen the ring head moves instead of any cells.
func (t *Terminal) scrollUp(top, bot, n int) {
	if n <= 0 || top > bot {
		return
	}
	n = min(n, bot-top+1)
	keep := !t.altActive && t.hist.max > 0
	if top == 0 && bot == t.rows-1 {
		for i := 0; i < n; i++ {
			ln := t.scr.row(0)
			if keep {
				t.scratch = encodeRow(t.scratch[:0], ln.cells[:ln.used])
				t.hist.push(t.scratch, ln.wrapped)
			}
			t.scr.head++
			if t.scr.head == len(t.scr.lines) {
				t.scr.head = 0
			}
			// ln is now the bottom row; with a default background
			// clearing it touches only its used prefix.
			t.clearLine(ln)
		}
		return
	}
	for i := 0; i < n; i++ {
		saved := *t.scr.row(top)
		if keep {
			t.scratch = encodeRow(t.scratch[:0], saved.cells[:saved.used])
			t.hist.push(t.scratch, saved.wrapped)
		}
		for y := top; y < bot; y++ {
			*t.scr.row(y) = *t.scr.row(y + 1)
		}
		ln := t.scr.row(bot)
		*ln = saved
		t.clearLine(ln)
	}
}

// scrollDown scrolls rows [top, bot] down by n, blank rows entering at top.
func (t *Terminal) scrollDown(top, bot, n int) {
	if n <= 0 || top > bot {
		return
	}
	n = min(n, bot-top+1)
	for i := 0; i < n; i++ {
		saved := *t.scr.row(bot)
		for y := bot; y > top; y-- {
			*t.scr.row(y) = *t.scr.row(y - 1)
		}
		ln := t.scr.row(top)
		*ln = saved
		t.clearLine(ln)
	}
}

// moveTo sets the cursor, clamping to the screen (or to the scroll region
// when DECOM is set and origin is true).
func (t *Terminal) moveTo(x, y int) {
	t.cur.x = min(max(x, 0), t.cols-1)
	t.cur.y = min(max(y, 0), t.rows-1)
	t.cur.wrapNext = false
}

// cup implements CUP/HVP with 1-based params, honouring DECOM.
func (t *Terminal) cup(row, col int) {
	if t.cur.origin {
		row += t.top
		t.moveTo(col, min(row, t.bot))
		return
	}
	t.moveTo(col, row)
}

// cursorUp moves up n, stopping at the top margin when inside the region.
func (t *Terminal) cursorUp(n int) {
	lim := 0
	if t.cur.y >= t.top {
		lim = t.top
	}
	t.cur.y = max(t.cur.y-n, lim)
	t.cur.wrapNext = false
}

func (t *Terminal) cursorDown(n int) {
	lim := t.rows - 1
	if t.cur.y <= t.bot {
		lim = t.bot
	}
	t.cur.y = min(t.cur.y+n, lim)
	t.cur.wrapNext = false
}

func (t *Terminal) cursorLeft(n int) {
	if t.cur.wrapNext {
		// tmux keeps the cursor one past the last column while a wrap is
		// pending, so moving left counts from there.
		t.cur.wrapNext = false
		t.cur.x = max(t.cols-n, 0)
		return
	}
	t.cur.x = max(t.cur.x-n, 0)
}

func (t *Terminal) cursorRight(n int) {
	if t.cur.wrapNext {
		t.cur.wrapNext = false
		return
	}
	t.cur.x = min(t.cur.x+n, t.cols-1)
}

// eraseLine implements EL.
func (t *Terminal) eraseLine(mode int) {
	ln := t.scr.row(t.cur.y)
	x := t.cur.x
	switch mode {
	case 0:
		if t.cur.wrapNext {
			return
		}
		t.breakWide(ln, x, len(ln.cells))
		ln.fill(x, len(ln.cells), t.blank())
		ln.wrapped = false
	case 1:
		if t.cur.wrapNext {
			x = t.cols - 1
		}
		t.breakWide(ln, 0, x+1)
		ln.fill(0, x+1, t.blank())
	case 2:
		t.clearLine(ln)
	}
}

// eraseDisplay implements ED.
func (t *Terminal) eraseDisplay(mode int) {
	switch mode {
	case 0:
		if t.cur.x == 0 && t.cur.y == 0 && !t.cur.wrapNext {
			t.clearScreen() // the whole screen: tmux keeps it in history
			return
		}
		t.eraseLine(0)
		for y := t.cur.y + 1; y < t.rows; y++ {
			t.clearLine(t.scr.row(y))
		}
	case 1:
		for y := 0; y < t.cur.y; y++ {
			t.clearLine(t.scr.row(y))
		}
		t.eraseLine(1)
	case 2:
		t.clearScreen()
	case 3:
		if !t.altActive {
			t.hist.reset()
		}
	}
}

// clearScreen implements ED 2. On the main screen the rows up to the last
// used one are scrolled into history first, so a `clear` keeps what was on
// screen reachable (tmux behaviour).
func (t *Terminal) clearScreen() {
	if !t.altActive && t.hist.max > 0 {
		last := 0
		for y := 0; y < t.rows; y++ {
			if t.scr.row(y).usedLen() > 0 {
				last = y + 1
			}
		}
		t.scrollUp(0, t.rows-1, last)
	}
	for y := 0; y < t.rows; y++ {
		t.clearLine(t.scr.row(y))
	}
}

// eraseChars implements ECH.
func (t *Terminal) eraseChars(n int) {
	if t.cur.wrapNext {
		return
	}
	ln := t.scr.row(t.cur.y)
	end := min(t.cur.x+n, t.cols)
	t.breakWide(ln, t.cur.x, end)
	ln.fill(t.cur.x, end, t.blank())
}

// insertLines and deleteLines implement IL and DL: within the scroll
// region when the cursor is in it, otherwise down to the bottom.
func (t *Terminal) insertLines(n int) {
	bot := t.bot
	if t.cur.y < t.top || t.cur.y > t.bot {
		bot = t.rows - 1
	}
	t.scrollDown(t.cur.y, bot, n)
}

func (t *Terminal) deleteLines(n int) {
	bot := t.bot
	if t.cur.y < t.top || t.cur.y > t.bot {
		bot = t.rows - 1
	}
	t.scrollUpNoHistory(t.cur.y, bot, n)
}

// scrollUpNoHistory scrolls a region up without feeding history (DL never
// creates history in tmux).
func (t *Terminal) scrollUpNoHistory(top, bot, n int) {
	keep := t.hist.max
	t.hist.max = 0
	t.scrollUp(top, bot, n)
	t.hist.max = keep
}

// saveCursor and restoreCursor implement DECSC/DECRC (per screen).
func (t *Terminal) saveCursor() {
	if t.altActive {
		t.savedAlt = t.cur
	} else {
		t.savedMain = t.cur
	}
}

func (t *Terminal) restoreCursor() {
	if t.altActive {
		t.cur = t.savedAlt
	} else {
		t.cur = t.savedMain
	}
	t.cur.x = min(t.cur.x, t.cols-1)
	t.cur.y = min(t.cur.y, t.rows-1)
	t.refreshPen()
}

// alignmentTest implements DECALN: fill with E, reset margins, home.
func (t *Terminal) alignmentTest() {
	for y := 0; y < t.rows; y++ {
		ln := t.scr.row(y)
		ln.fill(0, t.cols, cell{ch: 'E'})
		ln.wrapped = false
	}
	t.top, t.bot = 0, t.rows-1
	t.cur.origin = false
	t.moveTo(0, 0)
}

// fullReset implements RIS.
func (t *Terminal) fullReset() {
	t.reset()
	// Like tmux, RIS keeps history and scrolls the screen into it.
	t.clearScreen()
	for y := 0; y < t.rows; y++ {
		t.clearLine(t.alt.row(y))
	}
	t.title, t.iconTitle = "", ""
}

// softReset implements DECSTR.
func (t *Terminal) softReset() {
	t.cursorVisible = true
	t.insert = false
	t.cur.origin = false
	t.autowrap = true
	t.appCursor, t.appKeypad = false, false
	t.top, t.bot = 0, t.rows-1
	t.cur.pen = cell{}
	t.cur.ul, t.cur.link = 0, ""
	t.cur.charsets = [2]byte{'B', 'B'}
	t.cur.gl = 0
	t.savedMain = cursor{charsets: [2]byte{'B', 'B'}}
	t.savedAlt = t.savedMain
}

// escDispatch handles ESC sequences.
func (t *Terminal) escDispatch(c byte) {
	t.lastRune = 0
	ps := &t.p
	if ps.ninter > 1 {
		return
	}
	switch ps.inter {
	case 0:
		switch c {
		case '7':
			t.saveCursor()
		case '8':
			t.restoreCursor()
		case 'D':
			t.linefeed()
		case 'E':
			t.cur.x = 0
			t.cur.wrapNext = false
			t.linefeed()
		case 'H':
			t.tabs[t.cur.x] = true
		case 'M':
			t.reverseIndex()
		case 'c':
			t.fullReset()
		case '=':
			t.appKeypad = true
		case '>':
			t.appKeypad = false
		}
	case '(', ')':
		g := 0
		if ps.inter == ')' {
			g = 1
		}
		t.cur.charsets[g] = c
	case '#':
		if c == '8' {
			t.alignmentTest()
		}
	}
}

// setAltScreen switches screens for modes 47, 1047 and 1049.
func (t *Terminal) setAltScreen(on bool, clear, saveCursor bool) {
	if on == t.altActive {
		if on && clear {
			for y := 0; y < t.rows; y++ {
				t.clearLine(t.alt.row(y))
			}
		}
		return
	}
	if on {
		if saveCursor {
			t.savedMain = t.cur
		}
		t.altActive = true
		t.scr = &t.alt
		if clear {
			for y := 0; y < t.rows; y++ {
				t.clearLine(t.alt.row(y))
			}
		}
	} else {
		if clear {
			for y := 0; y < t.rows; y++ {
				t.clearLine(t.alt.row(y))
			}
		}
		t.altActive = false
		t.scr = &t.main
		if saveCursor {
			t.cur = t.savedMain
			t.cur.x = min(t.cur.x, t.cols-1)
			t.cur.y = min(t.cur.y, t.rows-1)
			t.refreshPen()
		}
	}
	for y := 0; y < t.rows; y++ {
		t.scr.row(y).dirty = true
	}
}

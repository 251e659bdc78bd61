package vterm

import "strconv"

// csiDispatch handles a complete CSI sequence with final byte c.
func (t *Terminal) csiDispatch(c byte) {
	t.csi(c)
	if c != 'b' {
		t.lastRune = 0
	}
}

func (t *Terminal) csi(c byte) {
	ps := &t.p
	switch ps.prefix {
	case 0:
		switch ps.inter {
		case 0:
			t.csiPlain(c)
		case ' ':
			if c == 'q' { // DECSCUSR
				if s := ps.param(0, 0); s <= 6 {
					t.cursorStyle = CursorStyle(s)
				}
			}
		case '!':
			if c == 'p' {
				t.softReset()
			}
		case '$':
			if c == 'p' { // DECRQM for ANSI modes
				t.reportMode(ps.param(0, 0), false)
			}
		}
	case '?':
		switch {
		case ps.inter == '$' && c == 'p':
			t.reportMode(ps.param(0, 0), true)
		case ps.inter != 0:
		case c == 'h' || c == 'l':
			for i := 0; i < max(ps.nparams, 1); i++ {
				t.setPrivateMode(ps.rawParam(i), c == 'h')
			}
		case c == 'u': // kitty keyboard query
			t.respond([]byte("\x1b[?" + strconv.Itoa(t.kittyFlags()) + "u"))
		case c == 'J':
			t.eraseDisplay(ps.param(0, 0))
		case c == 'K':
			t.eraseLine(ps.param(0, 0))
		case c == 'n':
			if ps.param(0, 0) == 6 {
				t.reportCursor(true)
			}
		}
	case '>':
		switch c {
		case 'c': // DA2
			if ps.param(0, 0) == 0 {
				t.respond([]byte("\x1b[>84;0;0c"))
			}
		case 'm': // XTMODKEYS: only modifyOtherKeys (resource 4) matters
			if ps.param(0, 0) == 4 {
				t.otherKeys = min(ps.param(1, 0), 2)
			}
		case 'n': // XTMODKEYS reset
			if ps.nparams > 0 && ps.param(0, 0) == 4 {
				t.otherKeys = 0
			}
		case 'q': // XTVERSION
			if ps.param(0, 0) == 0 {
				t.respond([]byte("\x1bP>|agentgrid(" + Version + ")\x1b\\"))
			}
		case 'u': // kitty push
			s := t.kittyStack()
			if len(*s) >= 64 {
				*s = (*s)[1:]
			}
			*s = append(*s, ps.param(0, 0)&0x1f)
		}
	case '<':
		if c == 'u' { // kitty pop
			s := t.kittyStack()
			n := min(ps.param(0, 1), len(*s))
			*s = (*s)[:len(*s)-n]
		}
	case '=':
		if c == 'u' { // kitty set
			flags := ps.param(0, 0) & 0x1f
			mode := ps.param(1, 1)
			s := t.kittyStack()
			if len(*s) == 0 {
				*s = append(*s, 0)
			}
			top := &(*s)[len(*s)-1]
			switch mode {
			case 1:
				*top = flags
			case 2:
				*top |= flags
			case 3:
				*top &^= flags
			}
		}
	}
}

func (t *Terminal) csiPlain(c byte) {
	ps := &t.p
	n := ps.param(0, 1)
	switch c {
	case '@': // ICH
		if !t.cur.wrapNext {
			t.insertCells(t.scr.row(t.cur.y), t.cur.x, n)
		}
	case 'A':
		t.cursorUp(n)
	case 'B', 'e':
		t.cursorDown(n)
	case 'C', 'a':
		t.cursorRight(n)
	case 'D':
		t.cursorLeft(n)
	case 'E':
		t.cursorDown(n)
		t.cur.x = 0
	case 'F':
		t.cursorUp(n)
		t.cur.x = 0
	case 'G', '`':
		t.moveTo(n-1, t.cur.y)
	case 'H', 'f':
		t.cup(ps.param(0, 1)-1, ps.param(1, 1)-1)
	case 'I':
		t.tab(n)
	case 'J':
		t.eraseDisplay(ps.param(0, 0))
	case 'K':
		t.eraseLine(ps.param(0, 0))
	case 'L':
		t.insertLines(n)
	case 'M':
		t.deleteLines(n)
	case 'P': // DCH
		if !t.cur.wrapNext {
			t.deleteCells(t.scr.row(t.cur.y), t.cur.x, n)
		}
	case 'S':
		t.scrollUp(t.top, t.bot, n)
	case 'T':
		if ps.nparams <= 1 {
			t.scrollDown(t.top, t.bot, n)
		}
	case 'X':
		t.eraseChars(n)
	case 'Z':
		t.backTab(n)
	case 'b':
		t.repeat(n)
	case 'c':
		if ps.param(0, 0) == 0 {
			// VT220-class with ANSI colour (22).
			t.respond([]byte("\x1b[?62;22c"))
		}
	case 'd':
		if t.cur.origin {
			t.moveTo(t.cur.x, min(t.top+n-1, t.bot))
		} else {
			t.moveTo(t.cur.x, n-1)
		}
	case 'g':
		switch ps.param(0, 0) {
		case 0:
			t.tabs[t.cur.x] = false
		case 3:
			for i := range t.tabs {
				t.tabs[i] = false
			}
		}
	case 'h', 'l':
		for i := 0; i < max(ps.nparams, 1); i++ {
			if ps.rawParam(i) == 4 {
				t.insert = c == 'h'
			}
		}
	case 'm':
		t.sgr()
	case 'n':
		switch ps.param(0, 0) {
		case 5:
			t.respond([]byte("\x1b[0n"))
		case 6:
			t.reportCursor(false)
		}
	case 'r': // DECSTBM
		top := ps.param(0, 1) - 1
		bot := ps.param(1, t.rows) - 1
		bot = min(bot, t.rows-1)
		if top < bot {
			t.top, t.bot = top, bot
			t.cup(0, 0)
		}
	case 's':
		t.saveCursor()
	case 'u':
		t.restoreCursor()
	case 't':
		// Window manipulation: only the title stack ops are harmless; ignore all.
	}
}

// reportCursor answers DSR 6 with the cursor position, relative to the
// scroll region when DECOM is set.
func (t *Terminal) reportCursor(private bool) {
	y := t.cur.y
	if t.cur.origin {
		y -= t.top
	}
	b := []byte("\x1b[")
	if private {
		b = append(b, '?')
	}
	b = strconv.AppendInt(b, int64(y+1), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(t.cur.x+1), 10)
	b = append(b, 'R')
	t.respond(b)
}

// setPrivateMode handles DECSET/DECRST.
func (t *Terminal) setPrivateMode(mode int, on bool) {
	switch mode {
	case 1:
		t.appCursor = on
	case 3:
		// DECCOLM: agentgrid never changes the pane's width, but a program
		// switching columns expects what a real switch does, and what tmux
		// does: the cursor homed (honouring DECOM) and the screen cleared,
		// the margins kept.
		t.cup(0, 0)
		t.clearScreen()
	case 6:
		t.cur.origin = on
		t.cup(0, 0)
	case 7:
		t.autowrap = on
		if !on {
			t.cur.wrapNext = false
		}
	case 9:
		t.setMouse(MouseX10, on)
	case 25:
		t.cursorVisible = on
	case 47:
		t.setAltScreen(on, false, false)
	case 1047:
		t.setAltScreen(on, true, false)
	case 1049:
		t.setAltScreen(on, true, true)
	case 1000:
		t.setMouse(MouseNormal, on)
	case 1002:
		t.setMouse(MouseButton, on)
	case 1003:
		t.setMouse(MouseAny, on)
	case 1004:
		t.focusEvents = on
	case 1006:
		t.mouseSGR = on
	case 1048:
		if on {
			t.saveCursor()
		} else {
			t.restoreCursor()
		}
	case 2004:
		t.bracketed = on
	case 2026:
		t.setSync(on)
	case 2027:
		t.graphemes = on
	}
}

// setMouse sets the mouse mode; resetting any mouse mode turns reporting
// off entirely, as tmux does.
func (t *Terminal) setMouse(m MouseMode, on bool) {
	if on {
		t.mouse = m
	} else {
		t.mouse = MouseNone
	}
}

// reportMode answers DECRQM: 1 set, 2 reset, 0 unknown.
func (t *Terminal) reportMode(mode int, private bool) {
	v := 0
	b2 := func(on bool) int {
		if on {
			return 1
		}
		return 2
	}
	if private {
		switch mode {
		case 1:
			v = b2(t.appCursor)
		case 6:
			v = b2(t.cur.origin)
		case 7:
			v = b2(t.autowrap)
		case 9:
			v = b2(t.mouse == MouseX10)
		case 25:
			v = b2(t.cursorVisible)
		case 47, 1047, 1049:
			v = b2(t.altActive)
		case 1000:
			v = b2(t.mouse == MouseNormal)
		case 1002:
			v = b2(t.mouse == MouseButton)
		case 1003:
			v = b2(t.mouse == MouseAny)
		case 1004:
			v = b2(t.focusEvents)
		case 1006:
			v = b2(t.mouseSGR)
		case 2004:
			v = b2(t.bracketed)
		case 2026:
			v = b2(t.sync)
		case 2027:
			v = b2(t.graphemes)
		}
	} else if mode == 4 {
		v = b2(t.insert)
	}
	b := []byte("\x1b[")
	if private {
		b = append(b, '?')
	}
	b = strconv.AppendInt(b, int64(mode), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(v), 10)
	b = append(b, "$y"...)
	t.respond(b)
}

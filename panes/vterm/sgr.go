package vterm

// sgr applies Select Graphic Rendition parameters to the pen.
func (t *Terminal) sgr() {
	ps := &t.p
	pen := &t.cur.pen
	if ps.nparams == 0 {
		t.resetPen()
		return
	}
	extraChanged := false
	for i := 0; i < ps.nparams; i++ {
		p := int(ps.params[i])
		next := i + 1
		switch {
		case p == 0:
			if t.cur.ul != 0 {
				extraChanged = true
			}
			pen.fg, pen.bg = 0, 0
			pen.attr &^= attrMask | ulMask
			t.cur.ul = 0
		case p == 1:
			pen.attr |= uint32(AttrBold)
		case p == 2:
			pen.attr |= uint32(AttrFaint)
		case p == 3:
			pen.attr |= uint32(AttrItalic)
		case p == 4:
			style := UnderlineSingle
			if ps.isSub(next) {
				s := int(ps.params[next])
				if s > int(UnderlineDashed) {
					s = int(UnderlineSingle)
				}
				style = UnderlineStyle(s)
			}
			pen.attr = pen.attr&^ulMask | uint32(style)<<ulShift
		case p == 5 || p == 6:
			pen.attr |= uint32(AttrBlink)
		case p == 7:
			pen.attr |= uint32(AttrReverse)
		case p == 8:
			pen.attr |= uint32(AttrInvisible)
		case p == 9:
			pen.attr |= uint32(AttrStrikethrough)
		case p == 21:
			pen.attr = pen.attr&^ulMask | uint32(UnderlineDouble)<<ulShift
		case p == 22:
			pen.attr &^= uint32(AttrBold | AttrFaint)
		case p == 23:
			pen.attr &^= uint32(AttrItalic)
		case p == 24:
			pen.attr &^= ulMask
		case p == 25:
			pen.attr &^= uint32(AttrBlink)
		case p == 27:
			pen.attr &^= uint32(AttrReverse)
		case p == 28:
			pen.attr &^= uint32(AttrInvisible)
		case p == 29:
			pen.attr &^= uint32(AttrStrikethrough)
		case p >= 30 && p <= 37:
			pen.fg = IndexedColor(uint8(p - 30))
		case p == 38, p == 48, p == 58:
			col, used, ok := t.extColor(i)
			if ok {
				switch p {
				case 38:
					pen.fg = col
				case 48:
					pen.bg = col
				case 58:
					t.cur.ul = col
					extraChanged = true
				}
			}
			i += used
			continue
		case p == 39:
			pen.fg = 0
		case p >= 40 && p <= 47:
			pen.bg = IndexedColor(uint8(p - 40))
		case p == 49:
			pen.bg = 0
		case p == 53:
			pen.attr |= uint32(AttrOverline)
		case p == 55:
			pen.attr &^= uint32(AttrOverline)
		case p == 59:
			t.cur.ul = 0
			extraChanged = true
		case p >= 90 && p <= 97:
			pen.fg = IndexedColor(uint8(p - 90 + 8))
		case p >= 100 && p <= 107:
			pen.bg = IndexedColor(uint8(p - 100 + 8))
		}
		// Skip sub-parameters this code did not consume.
		for i+1 < ps.nparams && ps.isSub(i+1) {
			i++
		}
	}
	if extraChanged {
		t.refreshPen()
	}
}

// extColor parses the colour after a 38/48/58 at index i in either the
// colon form (38:2::r:g:b, 38:2:r:g:b, 38:5:n) or the semicolon form
// (38;2;r;g;b, 38;5;n). used is how many parameters after i it consumed.
func (t *Terminal) extColor(i int) (col Color, used int, ok bool) {
	ps := &t.p
	if i+1 >= ps.nparams {
		return 0, 0, false
	}
	colon := ps.isSub(i + 1)
	if colon {
		// Count the sub-parameters belonging to this attribute.
		n := 0
		for j := i + 1; j < ps.nparams && ps.isSub(j); j++ {
			n++
		}
		switch ps.params[i+1] {
		case 5:
			if n >= 2 {
				return IndexedColor(uint8(min(ps.params[i+2], 255))), n, true
			}
		case 2:
			// 38:2:cs:r:g:b has a colour space id; 38:2:r:g:b does not.
			first := i + 2
			if n >= 5 {
				first = i + 3
			}
			if n >= 4 {
				return rgbParams(ps, first), n, true
			}
		}
		return 0, n, false
	}
	switch ps.params[i+1] {
	case 5:
		if i+2 < ps.nparams {
			return IndexedColor(uint8(min(ps.params[i+2], 255))), 2, true
		}
		return 0, 1, false
	case 2:
		if i+4 < ps.nparams {
			return rgbParams(ps, i+2), 4, true
		}
		return 0, ps.nparams - i - 1, false
	}
	return 0, 1, false
}

func rgbParams(ps *parser, first int) Color {
	return RGBColor(uint8(min(ps.params[first], 255)), uint8(min(ps.params[first+1], 255)), uint8(min(ps.params[first+2], 255)))
}

func (t *Terminal) resetPen() {
	t.cur.pen.fg, t.cur.pen.bg = 0, 0
	t.cur.pen.attr = 0
	if t.cur.ul != 0 {
		t.cur.ul = 0
	}
	t.refreshPen()
}

// refreshPen stores the pen's underline colour and hyperlink in the extras
// table and points the pen at it.
func (t *Terminal) refreshPen() {
	var idx uint32
	if t.cur.ul != 0 || t.cur.link != "" {
		idx = t.tables.internExtra(extra{ul: t.cur.ul, link: t.cur.link})
	}
	t.cur.pen.attr = t.cur.pen.attr&^(0xffff<<extraShift) | idx<<extraShift
}

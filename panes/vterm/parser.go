package vterm

import "unicode/utf8"

// Parser states of the DEC/ECMA-48 state machine. C0 controls are executed
// in every state except the string states, as a VT does: `ESC [ 2 BS C`
// moves left then right by 2.
const (
	stGround uint8 = iota
	stEscape
	stEscInter
	stCSIEntry
	stCSIParam
	stCSIInter
	stCSIIgnore
	stOSC
	stDCSEntry
	stDCSParam
	stDCSInter
	stDCSPass
	stDCSIgnore
	stSOS // SOS, PM and APC strings: consumed and ignored
	// stDCSPassEsc follows an ESC inside a DCS string: as in tmux, only
	// ESC \ ends the string; ESC and any other byte are that byte of the
	// string (tmux passthrough doubles the ESCs it wraps), never a new
	// sequence that the string would smuggle past a terminal that ignores
	// the DCS.
	stDCSPassEsc
)

// Bounds for hostile input.
const (
	maxParams     = 32
	maxParamValue = 65535
	maxStringLen  = 64 << 10
)

type parser struct {
	state   uint8
	params  [maxParams]uint16
	sub     uint32 // bit i: param i followed a ':' (a sub-parameter)
	nparams int
	digits  bool // the current param has digits (or an explicit separator)
	prefix  byte // private marker: ? > < =
	inter   byte
	final   byte // DCS final byte
	ninter  int
	str     []byte // OSC/DCS payload
	strOver bool   // payload exceeded maxStringLen and is discarded
	strBEL  bool   // OSC ended with BEL (replies use the same terminator)
	utf8    [utf8.UTFMax]byte
	nutf8   int
}

func (p *parser) reset() {
	p.state = stGround
	p.clear()
	p.nutf8 = 0
}

func (p *parser) clear() {
	p.nparams = 0
	p.sub = 0
	p.digits = false
	p.prefix = 0
	p.inter = 0
	p.ninter = 0
	p.params[0] = 0
}

// param returns parameter i, or def when absent or zero.
func (p *parser) param(i int, def int) int {
	if i >= p.nparams || p.params[i] == 0 {
		return def
	}
	return int(p.params[i])
}

// rawParam returns parameter i, or -1 when absent.
func (p *parser) rawParam(i int) int {
	if i >= p.nparams {
		return -1
	}
	return int(p.params[i])
}

func (p *parser) addDigit(b byte) {
	if p.nparams == 0 {
		p.nparams = 1
		p.params[0] = 0
	}
	v := uint32(p.params[p.nparams-1])*10 + uint32(b-'0')
	if v > maxParamValue {
		v = maxParamValue
	}
	p.params[p.nparams-1] = uint16(v)
	p.digits = true
}

func (p *parser) separator(colon bool) {
	if p.nparams == 0 {
		p.nparams = 1
		p.params[0] = 0
	}
	if p.nparams >= maxParams {
		// Extra parameters are dropped; the last slot keeps absorbing.
		p.params[maxParams-1] = 0
		return
	}
	p.params[p.nparams] = 0
	if colon {
		p.sub |= 1 << uint(p.nparams)
	}
	p.nparams++
}

func (p *parser) isSub(i int) bool { return i < 32 && p.sub&(1<<uint(i)) != 0 }

func (p *parser) startString() {
	p.str = p.str[:0]
	p.strOver = false
	p.strBEL = false
}

func (p *parser) putString(b byte) {
	if p.strOver {
		return
	}
	if len(p.str) >= maxStringLen {
		p.strOver = true
		p.str = p.str[:0]
		return
	}
	p.str = append(p.str, b)
}

// parse runs the state machine over p.
func (t *Terminal) parse(b []byte) {
	ps := &t.p
	i := 0
	if ps.nutf8 > 0 {
		i = t.finishUTF8(b)
	}
	for i < len(b) {
		c := b[i]
		if ps.state == stGround {
			if c >= 0x20 && c < 0x7f {
				j := i + 1
				for j < len(b) && b[j] >= 0x20 && b[j] < 0x7f {
					j++
				}
				t.printASCII(b[i:j])
				i = j
				continue
			}
			if c < 0x20 {
				if c == 0x1b {
					ps.state = stEscape
					ps.clear()
				} else {
					t.execute(c)
				}
				i++
				continue
			}
			if c == 0x7f {
				i++
				continue
			}
			if !utf8.FullRune(b[i:]) {
				ps.nutf8 = copy(ps.utf8[:], b[i:])
				return
			}
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				n = invalidLen(b[i:])
			}
			t.printRune(r)
			i += n
			continue
		}
		i++
		t.step(c)
	}
}

// finishUTF8 completes a rune split across writes; it returns how many
// bytes of b it used.
func (t *Terminal) finishUTF8(b []byte) int {
	ps := &t.p
	var tmp [utf8.UTFMax]byte
	n := copy(tmp[:], ps.utf8[:ps.nutf8])
	take := copy(tmp[n:], b)
	if !utf8.FullRune(tmp[:n+take]) {
		copy(ps.utf8[ps.nutf8:], b)
		ps.nutf8 += len(b)
		return len(b)
	}
	r, size := utf8.DecodeRune(tmp[:n+take])
	ps.nutf8 = 0
	if r == utf8.RuneError && size <= n {
		// The stored prefix was cut short by a non-continuation byte:
		// one replacement character, then the new byte as usual.
		t.printRune(utf8.RuneError)
		return 0
	}
	t.printRune(r)
	return size - n
}

// step handles one byte outside the ground-state fast path.
func (t *Terminal) step(c byte) {
	ps := &t.p
	switch ps.state {
	case stOSC:
		switch {
		case c == 0x07:
			ps.strBEL = true
			ps.state = stGround
			t.oscDispatch()
		case c == 0x1b:
			t.oscDispatch()
			ps.state = stEscape
			ps.clear()
		case c == 0x18 || c == 0x1a:
			ps.state = stGround
		case c < 0x20:
			// ignored inside OSC
		default:
			ps.putString(c)
		}
		return
	case stDCSPass:
		switch {
		case c == 0x1b:
			ps.state = stDCSPassEsc
		case c == 0x18 || c == 0x1a:
			ps.state = stGround
		default:
			ps.putString(c)
		}
		return
	case stDCSPassEsc:
		if c == '\\' {
			t.dcsDispatch()
			ps.state = stGround
			ps.clear()
			return
		}
		ps.putString(c)
		ps.state = stDCSPass
		return
	case stDCSIgnore, stSOS:
		switch c {
		case 0x1b:
			ps.state = stEscape
			ps.clear()
		case 0x18, 0x1a:
			ps.state = stGround
		}
		return
	}

	// Controls valid in every other state.
	switch {
	case c == 0x1b:
		ps.state = stEscape
		ps.clear()
		return
	case c == 0x18 || c == 0x1a:
		ps.state = stGround
		return
	case c < 0x20:
		if ps.state >= stDCSEntry {
			return // C0 in DCS header is ignored
		}
		t.execute(c)
		return
	case c == 0x7f:
		return
	}

	switch ps.state {
	case stEscape:
		switch {
		case c >= 0x20 && c <= 0x2f:
			ps.inter = c
			ps.ninter = 1
			ps.state = stEscInter
		case c == '[':
			ps.state = stCSIEntry
		case c == ']':
			ps.state = stOSC
			ps.startString()
		case c == 'P':
			ps.state = stDCSEntry
			ps.startString()
		case c == 'X' || c == '^' || c == '_':
			ps.state = stSOS
		case c < 0x80:
			ps.state = stGround
			t.escDispatch(c)
		default:
			ps.state = stGround
		}
	case stEscInter:
		switch {
		case c >= 0x20 && c <= 0x2f:
			ps.ninter++
		case c < 0x80:
			ps.state = stGround
			t.escDispatch(c)
		default:
			ps.state = stGround
		}
	case stCSIEntry, stCSIParam:
		switch {
		case c >= '0' && c <= '9':
			ps.addDigit(c)
			ps.state = stCSIParam
		case c == ';' || c == ':':
			ps.separator(c == ':')
			ps.state = stCSIParam
		case c >= 0x3c && c <= 0x3f:
			if ps.state == stCSIEntry {
				ps.prefix = c
				ps.state = stCSIParam
			} else {
				ps.state = stCSIIgnore
			}
		case c >= 0x20 && c <= 0x2f:
			ps.inter = c
			ps.ninter = 1
			ps.state = stCSIInter
		case c >= 0x40 && c <= 0x7e:
			ps.state = stGround
			t.csiDispatch(c)
		default:
			ps.state = stCSIIgnore
		}
	case stCSIInter:
		switch {
		case c >= 0x20 && c <= 0x2f:
			ps.ninter++
		case c >= 0x40 && c <= 0x7e:
			ps.state = stGround
			if ps.ninter == 1 {
				t.csiDispatch(c)
			}
		default:
			ps.state = stCSIIgnore
		}
	case stCSIIgnore:
		if c >= 0x40 && c <= 0x7e {
			ps.state = stGround
		}
	case stDCSEntry, stDCSParam:
		switch {
		case c >= '0' && c <= '9':
			ps.addDigit(c)
			ps.state = stDCSParam
		case c == ';' || c == ':':
			ps.separator(c == ':')
			ps.state = stDCSParam
		case c >= 0x3c && c <= 0x3f:
			if ps.state == stDCSEntry {
				ps.prefix = c
				ps.state = stDCSParam
			} else {
				ps.state = stDCSIgnore
			}
		case c >= 0x20 && c <= 0x2f:
			ps.inter = c
			ps.ninter = 1
			ps.state = stDCSInter
		case c >= 0x40 && c <= 0x7e:
			ps.final = c
			ps.state = stDCSPass
		default:
			ps.state = stDCSIgnore
		}
	case stDCSInter:
		switch {
		case c >= 0x20 && c <= 0x2f:
			ps.ninter++
		case c >= 0x40 && c <= 0x7e:
			ps.final = c
			ps.state = stDCSPass
		default:
			ps.state = stDCSIgnore
		}
	}
}

// invalidLen returns the length of the maximal invalid subpart at the start
// of b (a lead byte and the continuation bytes that follow it), so one
// broken sequence shows as one U+FFFD.
func invalidLen(b []byte) int {
	need := 0
	switch c := b[0]; {
	case c >= 0xc2 && c <= 0xdf:
		need = 1
	case c >= 0xe0 && c <= 0xef:
		need = 2
	case c >= 0xf0 && c <= 0xf4:
		need = 3
	}
	n := 1
	for n <= need && n < len(b) && b[n] >= 0x80 && b[n] <= 0xbf {
		n++
	}
	return n
}

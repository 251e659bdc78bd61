package vterm

import (
	"bytes"
	"fmt"
	"image/color"
	"strconv"
)

// oscDispatch handles a complete OSC string.
func (t *Terminal) oscDispatch() {
	ps := &t.p
	if ps.strOver {
		return
	}
	s := ps.str
	semi := bytes.IndexByte(s, ';')
	var cmd, arg []byte
	if semi < 0 {
		cmd = s
	} else {
		cmd, arg = s[:semi], s[semi+1:]
	}
	n, err := strconv.Atoi(string(cmd))
	if err != nil {
		return
	}
	switch n {
	case 0, 2:
		t.setTitle(string(arg))
		if n == 0 {
			t.iconTitle = t.title
		}
	case 1:
		t.iconTitle = string(arg)
	case 7:
		t.emit(event{kind: 'c', a: string(arg)})
	case 8:
		t.hyperlink(arg)
	case 9:
		// OSC 9;4 is a progress report, not a notification.
		if bytes.HasPrefix(arg, []byte("4;")) {
			return
		}
		t.emit(event{kind: 'n', b: string(arg)})
	case 777:
		// notify;TITLE[;BODY], cut without allocating a list of parts.
		verb, rest, ok := bytes.Cut(arg, []byte(";"))
		if ok && string(verb) == "notify" {
			title, body, _ := bytes.Cut(rest, []byte(";"))
			t.emit(event{kind: 'n', a: string(title), b: string(body)})
		}
	case 99:
		t.kittyNotify(arg)
	case 10, 11, 12:
		if string(arg) == "?" {
			t.colorReply(n)
		}
	case 52:
		if !t.cfg.clipboard {
			return
		}
		sel, data, ok := bytes.Cut(arg, []byte(";"))
		if ok && string(data) != "?" {
			t.emit(event{kind: 'y', a: string(sel), b: string(data)})
		}
	case 133:
		if len(arg) > 0 {
			t.emit(event{kind: 'p', mark: arg[0]})
		}
	}
}

func (t *Terminal) setTitle(s string) {
	if len(s) > 1024 {
		s = s[:1024]
	}
	t.title = s
	t.emit(event{kind: 't', a: s})
}

// hyperlink handles OSC 8 ; params ; URI (an empty URI ends the link).
func (t *Terminal) hyperlink(arg []byte) {
	_, uri, ok := bytes.Cut(arg, []byte(";"))
	if !ok {
		return
	}
	// The URI is echoed inside an escape sequence when rendering, so only
	// printable ASCII (what OSC 8 allows) is kept; anything else drops it.
	if len(uri) > 2048 {
		uri = nil
	}
	for _, c := range uri {
		if c < 0x20 || c > 0x7e {
			uri = nil
			break
		}
	}
	t.cur.link = string(uri)
	t.refreshPen()
}

// kittyNotify handles OSC 99 ; metadata ; payload. Only the simple form
// (title then body, or a one-shot message) is supported.
func (t *Terminal) kittyNotify(arg []byte) {
	meta, payload, ok := bytes.Cut(arg, []byte(";"))
	if !ok {
		return
	}
	isBody := false
	for _, kv := range bytes.Split(meta, []byte(":")) {
		switch string(kv) {
		case "p=body":
			isBody = true
		case "p=title", "p=":
		default:
			if bytes.HasPrefix(kv, []byte("p=")) {
				// A capability query (p=?), an icon, buttons, a close or
				// alive request: not a notification to show.
				return
			}
		}
	}
	if isBody {
		t.emit(event{kind: 'n', b: string(payload)})
	} else {
		t.emit(event{kind: 'n', a: string(payload)})
	}
}

// colorReply answers an OSC 10/11/12 query in the X11 rgb: form.
func (t *Terminal) colorReply(n int) {
	var c color.Color
	switch n {
	case 10:
		c = t.cfg.fg
	case 11:
		c = t.cfg.bg
	case 12:
		c = t.cfg.cc
	}
	if t.cfg.dc != nil && n != 12 {
		fg, bg := t.cfg.dc.Get()
		if n == 10 && fg != nil {
			c = fg
		} else if n == 11 && bg != nil {
			c = bg
		}
	}
	if c == nil {
		switch n {
		case 11:
			c = color.Black
		default:
			c = color.White
		}
	}
	r, g, b, _ := c.RGBA()
	term := "\x1b\\"
	if t.p.strBEL {
		term = "\a"
	}
	t.respond(fmt.Appendf(nil, "\x1b]%d;rgb:%04x/%04x/%04x%s", n, r, g, b, term))
}

// dcsDispatch handles a complete DCS string; only DECRQSS for SGR and
// DECSTBM-free queries are answered, everything else is consumed.
func (t *Terminal) dcsDispatch() {
	ps := &t.p
	if ps.strOver || ps.inter != '$' || ps.final != 'q' {
		return
	}
	// DECRQSS: report "not recognised" except for the cursor style.
	switch string(ps.str) {
	case " q":
		t.respond(fmt.Appendf(nil, "\x1bP1$r%d q\x1b\\", int(t.cursorStyle)))
	default:
		t.respond([]byte("\x1bP0$r\x1b\\"))
	}
}

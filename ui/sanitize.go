package ui

import (
	"strings"
	"unicode/utf8"
)

// maxSGRLen bounds one kept SGR sequence; agentgrid's own are far shorter.
const maxSGRLen = 96

// SanitizeLine makes one line that came from a session's socket safe to
// write to this terminal, the way pane titles are made safe: every escape
// sequence except SGR (colours and attributes, kept when keepSGR is set) is
// removed (OSC such as clipboard writes, window titles and hyperlinks; DCS
// such as tmux passthrough; APC, PM, SOS; every CSI that moves the cursor,
// erases or changes a mode), and so are C0 and C1 control characters,
// DEL and bidirectional overrides. A tab becomes a space; invalid UTF-8
// becomes U+FFFD. The server may not be the session it claims to be, and
// even a real session shows what its agents printed.
func SanitizeLine(s string, keepSGR bool) string {
	if lineIsPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			n, sgr := escapeSpan(s[i:])
			if sgr && keepSGR {
				b.WriteString(s[i : i+n])
			}
			i += n
		case c == '\t':
			b.WriteByte(' ')
			i++
		case c < 0x20 || c == 0x7f:
			i++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			switch {
			case r == utf8.RuneError && size == 1:
				b.WriteRune(utf8.RuneError)
			case unsafeRune(r):
			default:
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// lineIsPlain reports whether s has nothing SanitizeLine would change:
// printable ASCII only.
func lineIsPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// unsafeRune reports the runes that act as controls on a terminal or
// reorder the rest of the line: C1 controls (CSI, OSC, DCS as single
// characters), line separators, zero-width and bidirectional controls.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == '\u200b', r == '\u2028', r == '\u2029', r == '\ufeff':
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// escapeSpan is the length of the escape sequence s starts with (s[0] is
// ESC), and whether it is one well-formed SGR sequence. A string sequence
// (OSC, DCS, APC, PM, SOS) runs to its terminator, or to the end of the
// line when it has none; a malformed CSI ends before the byte that broke
// it, which is then judged on its own.
func escapeSpan(s string) (n int, sgr bool) {
	if len(s) < 2 {
		return len(s), false
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			c := s[i]
			switch {
			case c >= 0x30 && c <= 0x3f, c >= 0x20 && c <= 0x2f:
				continue
			case c >= 0x40 && c <= 0x7e:
				return i + 1, c == 'm' && i+1 <= maxSGRLen && sgrParams(s[2:i])
			default:
				return i, false
			}
		}
		return len(s), false
	case ']', 'P', '_', '^', 'X':
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1, false
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2, false
			}
		}
		return len(s), false
	}
	// ESC, intermediates, then one final byte (ESC c, ESC ( B, ESC 7 ...).
	i := 1
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i, false
}

// sgrParams reports whether p is the parameter list of a plain SGR: digits,
// ';' and ':' only (no private markers or intermediates).
func sgrParams(p string) bool {
	for i := 0; i < len(p); i++ {
		if c := p[i]; (c < '0' || c > '9') && c != ';' && c != ':' {
			return false
		}
	}
	return true
}

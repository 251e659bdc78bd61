// Package oneline makes untrusted text safe to draw on one line of the
// screen: what agents, hooks and socket clients send ends up in pane
// borders, the status line and error messages.
package oneline

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// Sanitize makes s safe to draw on one line: escape sequences are
// removed, line breaks, tabs and other whitespace become single spaces, the
// remaining control and format characters are dropped, invalid UTF-8 is
// replaced, surrounding space is trimmed, and the result is capped at max
// runes (ending in "…" when cut; max <= 0 means no cap).
func Sanitize(s string, max int) string {
	if s == "" {
		return ""
	}
	s = ansi.Strip(strings.ToValidUTF8(s, "\uFFFD"))
	var b strings.Builder
	b.Grow(len(s))
	space, cut := false, false
	n := 0
loop:
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r), r == '\u200b', r == '\u2028', r == '\u2029', r == '\ufeff',
			r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
			// Controls and bidi overrides could move the cursor or reorder
			// the rest of the status line.
			continue
		}
		need := 1
		if space {
			need = 2
		}
		if max > 0 && n+need > max {
			cut = true
			break loop
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
		n += need
	}
	out := b.String()
	if cut {
		out = trimLastRune(out) + "…"
	}
	return out
}

func trimLastRune(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return s
	}
	return string(r[:len(r)-1])
}

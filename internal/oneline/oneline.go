// Package oneline makes untrusted text safe to draw on one line of the
// screen: what agents, hooks and socket clients send ends up in pane
// borders, the status line and error messages.
package oneline

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Sanitize makes s safe to draw on one line: escape sequences are
// removed, line breaks, tabs and other whitespace become single spaces, the
// remaining control and format characters are dropped, invalid UTF-8 is
// replaced, surrounding space is trimmed, and the result is capped at max
// runes (ending in "…" when cut; max <= 0 means no cap). It is the one
// sanitiser for text from children and agents: titles, state reasons,
// notifications, status entries and table cells all pass through it.
func Sanitize(s string, max int) string {
	if s == "" || clean(s, max) {
		return s
	}
	return sanitize(s, max)
}

// sanitize is Sanitize for text that is not clean.
func sanitize(s string, max int) string {
	s = ansi.Strip(strings.ToValidUTF8(s, "\uFFFD"))
	var b strings.Builder
	b.Grow(len(s))
	space, cut := false, false
	n := 0
	prev := rune(0) // the last rune written
loop:
	for i, r := range s {
		switch {
		case r == '\u200d' && !space && emojiJoin(prev, s[i+len("\u200d"):]):
			// A joiner between two emoji draws one glyph (👩‍💻): keep it.
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), r == '\u2028', r == '\u2029':
			// Controls could move the cursor. Format characters are
			// invisible: bidi embeddings, overrides, isolates and marks
			// (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C) would
			// reorder the rest of a border or a list line, and zero-width
			// ones (U+200B-U+200D, U+2060, U+FEFF) hide text or make two
			// titles that look alike differ.
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
		prev = r
		n += need
	}
	out := b.String()
	if cut {
		out = trimLastRune(out) + "…"
	}
	return out
}

// clean reports whether Sanitize(s, max) is s itself: valid UTF-8 with no
// control, format or line-separator character, no whitespace but single
// spaces between words, and no more than max runes. Labels and status text
// are redrawn as they tick (an idle badge's minutes), and nearly all of it is
// already clean: it is then returned as it is, without allocating.
func clean(s string, max int) bool {
	n := 0
	space := true // a leading space is trimmed: not clean
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return false // invalid UTF-8 is replaced
			}
		}
		i += size
		n++
		switch {
		case r == ' ':
			if space {
				return false // a run of spaces becomes one
			}
			space = true
			continue
		case r >= 0x21 && r < 0x7f:
		case r < 0x80 || unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return false
		}
		space = false
	}
	return !space && (max <= 0 || n <= max)
}

// emojiJoin reports whether a zero-width joiner after prev and before rest
// is part of an emoji sequence: a symbol (or its emoji presentation
// selector or skin tone) on the left, a symbol on the right.
func emojiJoin(prev rune, rest string) bool {
	next, _ := utf8.DecodeRuneInString(rest)
	isSym := func(r rune) bool { return unicode.Is(unicode.So, r) }
	left := isSym(prev) || prev == '\ufe0f' || (prev >= 0x1f3fb && prev <= 0x1f3ff)
	return left && isSym(next)
}

func trimLastRune(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return s
	}
	return string(r[:len(r)-1])
}

package vterm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Search looks for query in history and screen, lines numbered from the
// oldest history line (0) to the last screen row (ScrollbackLen()+rows-1).
// It starts at line fromLine (inclusive) and walks forward, or backward
// when backward is set, returning the line and cell column of the first
// line containing a match. The match is case-insensitive unless the query
// contains an upper-case letter.
func (t *Terminal) Search(query string, fromLine int, backward bool) (line, col int, ok bool) {
	if query == "" {
		return 0, 0, false
	}
	fold := true
	for _, r := range query {
		if unicode.IsUpper(r) {
			fold = false
			break
		}
	}
	if fold {
		query = strings.ToLower(query)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	total := t.hist.n + t.rows
	if t.altActive {
		total = t.rows
	}
	tmp := make([]cell, t.cols)
	var text []byte
	var colOf []int
	step := 1
	if backward {
		step = -1
	}
	for l := fromLine; l >= 0 && l < total; l += step {
		cs := t.searchRow(l, tmp)
		text, colOf = text[:0], colOf[:0]
		for x, c := range cs {
			if c.cont() {
				continue
			}
			n := len(text)
			text = t.tables.appendContent(text, c)
			for range len(text) - n {
				colOf = append(colOf, x)
			}
		}
		s := string(text)
		if fold {
			s = lowerKeepLen(s)
		}
		if i := strings.Index(s, query); i >= 0 {
			return l, colOf[i], true
		}
	}
	return 0, 0, false
}

func (t *Terminal) searchRow(l int, tmp []cell) []cell {
	if t.altActive {
		return t.scr.row(l).cells
	}
	if l < t.hist.n {
		enc, _ := t.hist.bytes(l)
		decodeRow(tmp, enc)
		return tmp
	}
	return t.main.row(l - t.hist.n).cells
}

// Wrapped reports whether line l (numbered as Search numbers lines) was
// soft-wrapped: its text goes on at the start of the next line. Copy mode's
// word motions read words across such a break, as tmux's do.
func (t *Terminal) Wrapped(l int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case l < 0:
		return false
	case t.altActive:
		return l < t.rows && t.scr.row(l).wrapped
	case l < t.hist.n:
		return t.hist.at(l).wrapped
	}
	return l-t.hist.n < t.rows && t.main.row(l-t.hist.n).wrapped
}

// lowerKeepLen lower-cases s rune by rune, keeping each rune's byte length
// so byte offsets still map to cells.
func lowerKeepLen(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if l := unicode.ToLower(r); l != r && utf8.RuneLen(l) == n {
			utf8.EncodeRune(b[i:], l)
		}
		i += n
	}
	return string(b)
}

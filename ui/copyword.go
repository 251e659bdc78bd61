package ui

import (
	"strings"

	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// Word motions of the copy cursor (w, b, e and W, B, E), as in tmux's vi
// copy mode. A cell is blank, a separator (ASCII punctuation but '_') or
// part of a word; w stops at the next word's first cell, e at a word's
// last, b at a word's first, each skipping blanks; a run of separators is
// a word of its own. W, B and E know only blank and not blank. Blank lines
// are skipped like blanks, and a line's end is a blank, so no word goes on
// to the next line, unless the line was soft-wrapped: then its last cell
// is followed by the next line's first.

// wordSeparators are the characters that end a word for w, b and e.
const wordSeparators = "!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~"

// Word classes of a cell.
const (
	classBlank = iota
	classSeparator
	classWord
)

// wordMotion is one of the six motions.
type wordMotion struct {
	backward bool // b, B
	toEnd    bool // e, E
	spaces   bool // W, B, E: only blanks separate words
}

// wordPos is a cell of the pane's lines, numbered as the selection's.
type wordPos struct{ line, col int }

// wordWalker reads a pane's lines as the motions step over them, a
// screenful at a time.
type wordWalker struct {
	t          orchestrator.PaneReader
	cols, rows int
	last       int // the newest line
	spaces     bool
	lines      map[int][]vterm.Cell
	wraps      map[int]bool
}

func newWordWalker(t orchestrator.PaneReader, spaces bool) *wordWalker {
	cols, rows := t.Size()
	return &wordWalker{t: t, cols: max(1, cols), rows: max(1, rows), last: t.ScrollbackLen() + rows - 1, spaces: spaces,
		lines: map[int][]vterm.Cell{}, wraps: map[int]bool{}}
}

// wrapped reports whether line l goes on at the next line's start.
func (w *wordWalker) wrapped(l int) bool {
	v, ok := w.wraps[l]
	if !ok {
		v = w.t.Wrapped(l)
		w.wraps[l] = v
	}
	return v
}

// line is line l's cells, trailing blanks dropped.
func (w *wordWalker) line(l int) []vterm.Cell {
	if r, ok := w.lines[l]; ok {
		return r
	}
	from, to := max(0, l-w.rows), min(w.last, l+w.rows)
	for i, r := range lineCells(w.t, from, to) {
		n := len(r)
		for n > 0 && (r[n-1].Content == " " || r[n-1].Content == "") {
			n--
		}
		w.lines[from+i] = r[:n]
	}
	if _, ok := w.lines[l]; !ok {
		w.lines[l] = nil // not readable (dropped from history): blank
	}
	return w.lines[l]
}

// class is the word class of the cell at p; past the line's text is blank.
func (w *wordWalker) class(p wordPos) int {
	r := w.line(p.line)
	if p.col >= len(r) {
		return classBlank
	}
	c := r[p.col].Content
	switch {
	case c == "" || c == " ":
		return classBlank
	case w.spaces:
		return classWord
	case len(c) == 1 && strings.Contains(wordSeparators, c):
		return classSeparator
	}
	return classWord
}

// next steps p one cell on: past a line's text (one blank cell, its end)
// to the next line's start, or from a soft-wrapped line's last cell
// straight to the next line's first. The right half of a wide character is
// stepped over. On the newest line it reports false when p went past the
// text's end, where it stays (one cell on, as tmux's cursor does).
func (w *wordWalker) next(p *wordPos) bool {
	r := w.line(p.line)
	wrapped := w.wrapped(p.line)
	end := len(r) // the blank after the text
	if wrapped {
		end = w.cols - 1 // the last cell: no blank after it
	}
	if p.col < end {
		p.col++
		for p.col < len(r) && r[p.col].Width == 0 {
			p.col++
		}
		if !wrapped || p.col < w.cols {
			return true
		}
	}
	if p.line < w.last {
		p.line, p.col = p.line+1, 0
		return true
	}
	if p.col == end {
		p.col++
	}
	return false
}

// prev steps p one cell back: from a line's start to the previous line's
// end (the blank after its text); false at the oldest line's start.
func (w *wordWalker) prev(p *wordPos) bool {
	switch {
	case p.col > 0:
		r := w.line(p.line)
		p.col = min(p.col-1, len(r)) // from past the text: its end
		for p.col > 0 && p.col < len(r) && r[p.col].Width == 0 {
			p.col--
		}
	case p.line > 0:
		p.line--
		r := w.line(p.line)
		p.col = len(r) // the blank after the text
		if w.wrapped(p.line) {
			p.col = w.cols - 1 // the last cell, which goes on where p was
			for p.col > 0 && p.col < len(r) && r[p.col].Width == 0 {
				p.col--
			}
		}
	default:
		return false
	}
	return true
}

// move is where motion mv takes the copy cursor from p.
func (w *wordWalker) move(p wordPos, mv wordMotion) wordPos {
	switch {
	case mv.backward: // b: back over blanks, then to this word's first cell
		if !w.prev(&p) {
			return p
		}
		for w.class(p) == classBlank && w.prev(&p) {
		}
		c := w.class(p)
		for q := p; w.prev(&q) && w.class(q) == c; p = q {
		}
	case mv.toEnd: // e: on one, over blanks, then to this word's last cell
		if !w.next(&p) {
			p.col = max(0, p.col-1) // at the end already: back onto it
			return p
		}
		for w.class(p) == classBlank {
			if !w.next(&p) {
				// Blanks to the end: the last cell of the newest line's text.
				p.col = max(0, p.col-1)
				return p
			}
		}
		c := w.class(p)
		for q := p; w.next(&q) && w.class(q) == c; p = q {
		}
	default: // w: to the end of this word, then over blanks
		if c := w.class(p); c != classBlank {
			for w.class(p) == c && w.next(&p) {
			}
		}
		for w.class(p) == classBlank && w.next(&p) {
		}
	}
	return p
}

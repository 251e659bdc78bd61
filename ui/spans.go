package ui

import (
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/internal/oneline"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// span is plain text in one look; a line of an overlay widget is a few of
// them, turned into cells where the widget is drawn. A span with the zero
// look takes the widget's text look.
type span struct {
	text string
	st   termrt.Style
}

// line is a line of spans.
type line []span

// plain is a line of one span in the widget's text look.
func plain(s string) line { return line{{text: s}} }

// width is the line's width in cells.
func (l line) width() int {
	w := 0
	for _, s := range l {
		w += ansi.StringWidth(s.text)
	}
	return w
}

// text is the line without its looks.
func (l line) text() string {
	s := ""
	for _, sp := range l {
		s += sp.text
	}
	return s
}

// appendCells appends the line's cells, spans of the zero look in def, at
// most w cells (a wide character that does not fit is left out) and
// padded with blanks in def to exactly w.
func (l line) appendCells(dst []vterm.Cell, w int, def termrt.Style) []vterm.Cell {
	start := len(dst)
	for _, s := range l {
		st := s.st
		if st == (termrt.Style{}) {
			st = def
		}
		for t := s.text; len(t) > 0; {
			g, gw := ansi.FirstGraphemeCluster(t, ansi.GraphemeWidth)
			t = t[len(g):]
			if gw <= 0 {
				continue
			}
			if len(dst)-start+gw > w {
				return pad(dst, start+w, def)
			}
			dst = append(dst, st.Cell(g, gw))
			if gw == 2 {
				dst = append(dst, st.Cell("", 0))
			}
		}
	}
	return pad(dst, start+w, def)
}

// pad appends blanks in st until dst is n cells long.
func pad(dst []vterm.Cell, n int, st termrt.Style) []vterm.Cell {
	for len(dst) < n {
		dst = append(dst, st.Cell(" ", 1))
	}
	return dst
}

// truncate cuts the line to w cells, ending it with tail in the widget's
// text look when it was cut.
func (l line) truncate(w int, tail string) line {
	if l.width() <= w {
		return l
	}
	out := oneline.Truncate(l, w-ansi.StringWidth(tail), "",
		func(s span) string { return s.text },
		func(s span, text string) span { return span{text: text, st: s.st} })
	return append(out, span{text: tail})
}

package ui

import (
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// decodeStyled turns a line of styled text (SGR and hyperlinks, at most w
// cells) into w cells, blank-padded, with agentgrid's terminal emulator.
// It serves what comes as strings: the status line, which hooks builds,
// when it changes; the theme's SGR prefixes, once; a watched session's
// lines, which come over the socket. Pane content, borders and overlays
// are cells from the start.
func decodeStyled(s string, w int) []vterm.Cell {
	if w <= 0 {
		return nil
	}
	t := vterm.New(w, 1, vterm.WithScrollback(0))
	_, _ = t.Write([]byte(fitLine(s, w)))
	var f vterm.Frame
	t.Frame(&f, 0)
	if len(f.Cells) == 0 {
		return nil
	}
	return f.Cells[0]
}

// styleOf is the look an SGR prefix of the theme selects, worked out once
// when the model is built.
func styleOf(sgr string) termrt.Style {
	if sgr == "" {
		return termrt.Style{}
	}
	cs := decodeStyled(sgr+"x", 1)
	if len(cs) == 0 {
		return termrt.Style{}
	}
	return termrt.StyleOf(cs[0])
}

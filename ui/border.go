package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/internal/oneline"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// borderTop renders a pane's top border with its label:
//
//	┌─ 1 build-api ● running 12s · tests 42/50 ──────── 12/340 ─┐
//
// When the label does not fit, parts are dropped in reverse order of
// importance: status entries first, then a worktree's branch, then the
// title is shortened with "…", then the state badge goes; the pane number and the scrollback position
// stay as long as they fit at all.
func (c *composer) borderTop(dst []vterm.Cell, w int, p *paneFrame, st termrt.Style) []vterm.Cell {
	if w < 2 {
		return dst
	}
	plain := func(dst []vterm.Cell) []vterm.Cell {
		dst = append(dst, st.Cell("┌", 1))
		for range w - 2 {
			dst = append(dst, st.Cell("─", 1))
		}
		return append(dst, st.Cell("┐", 1))
	}
	avail := w - 4 // "┌─" and "─┐"
	if avail < 0 {
		return plain(dst)
	}
	l := &p.label
	numSt, titleSt := c.looks.number, c.looks.title
	if p.focused {
		numSt, titleSt = c.looks.numberFocus, c.looks.titleFocus
	}
	left := c.pieces[:0]
	used := 0
	add := func(pc labelPiece) bool {
		pw := pc.width()
		if used+pw > avail {
			return false
		}
		left = append(left, pc)
		used += pw
		return true
	}

	if l.number == "" || !add(labelPiece{" ", l.number, " ", numSt}) {
		return plain(dst)
	}
	// Reserve the right part (the scrollback position, only shown in
	// scrollback mode, where it is what the user looks at) and the badge
	// before the title gets the rest.
	var badge, right labelPiece
	if l.right != "" {
		right = labelPiece{" ", sanitizeLabel(l.right), " ", c.looks.muted}
		if rw := right.width(); used+rw+1 > avail {
			right = labelPiece{}
		} else {
			used += rw + 1 // keep one dash between the label and it
		}
	}
	if l.badge != "" {
		badge = labelPiece{"", sanitizeLabel(l.badge), " ", l.badgeSt}
		if bw := badge.width(); used+bw > avail {
			badge = labelPiece{}
		} else {
			used += bw
		}
	}
	if title := sanitizeLabel(l.title); title != "" {
		room := avail - used - 1 // the space after the title
		// The category and model follow the title and are cut first,
		// then dropped (when fewer than 4 cells of them would show), then
		// the title is cut.
		tw := textWidth(title)
		tag := runTag(l.category, l.model)
		tagRoom := room - tw - 1 // after the title and a space
		switch {
		case tag != "" && tagRoom >= min(4, textWidth(tag)):
			add(labelPiece{"", title, " ", titleSt})
			if textWidth(tag) > tagRoom {
				tag = strings.TrimRight(ansi.Truncate(tag, tagRoom-1, ""), " ·") + "…"
			}
			add(labelPiece{"", tag, " ", c.looks.muted})
		case tw <= room:
			add(labelPiece{"", title, " ", titleSt})
		case room >= 2:
			add(labelPiece{"", ansi.Truncate(title, room, "…"), " ", titleSt})
		}
	}
	if badge.text != "" {
		left = append(left, badge)
	}
	// The worktree's branch gives way to the title and the badge: a pane
	// without its name says less than one without its branch.
	if right.text == "" && l.branch != "" {
		b := labelPiece{" ", sanitizeLabel(l.branch), " ", c.looks.muted}
		if bw := b.width(); used+bw+1 <= avail {
			right = b
			used += bw + 1
		}
	}
	for _, e := range l.entries {
		e = sanitizeLabel(e)
		if e == "" {
			continue
		}
		if !add(labelPiece{"· ", e, " ", c.looks.entry}) {
			break
		}
	}

	dst = append(dst, st.Cell("┌", 1), st.Cell("─", 1))
	for _, pc := range left {
		dst = pc.appendTo(dst)
	}
	c.pieces = left[:0]
	fill := avail - used
	if right.text != "" {
		fill++ // the dash reserved before the right part
	}
	for range max(fill, 0) {
		dst = append(dst, st.Cell("─", 1))
	}
	if right.text != "" {
		dst = right.appendTo(dst)
	}
	return append(dst, st.Cell("─", 1), st.Cell("┐", 1))
}

// labelPiece is one part of a border's label: its text between a lead and a
// trail (spaces, "· "), in one style. Kept apart, they are drawn without
// first being joined into a new string.
type labelPiece struct {
	lead, text, trail string
	st                termrt.Style
}

// width is how many cells the piece takes.
func (p labelPiece) width() int { return textWidth(p.lead) + textWidth(p.text) + textWidth(p.trail) }

// appendTo draws the piece after dst.
func (p labelPiece) appendTo(dst []vterm.Cell) []vterm.Cell {
	for _, s := range [...]string{p.lead, p.text, p.trail} {
		if s != "" {
			dst = termrt.AppendText(dst, s, p.st)
		}
	}
	return dst
}

// textWidth is ansi.StringWidth, at once for printable ASCII (most labels).
func textWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// runTag is what an agent runs as, beside its title: "[review · opus]"
// for a category and its model, "[opus]" or "[review]" for one; "" for
// neither. The model is cut to 24 cells: the border has little room.
func runTag(category, model string) string {
	category, model = sanitizeLabel(category), ansi.Truncate(sanitizeLabel(model), 24, "…")
	switch {
	case category != "" && model != "":
		return "[" + category + " · " + model + "]"
	case category != "" || model != "":
		return "[" + category + model + "]"
	}
	return ""
}

// sanitizeLabel makes text safe for a border or a notification with the
// one sanitiser (escape sequences, control, bidi and zero-width characters
// removed, whitespace collapsed): a label may come straight from a pane's
// terminal title.
func sanitizeLabel(s string) string {
	return oneline.Sanitize(s, 0)
}

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
	type piece struct {
		text string
		st   termrt.Style
	}
	var left []piece
	used := 0
	add := func(text string, style termrt.Style) bool {
		tw := ansi.StringWidth(text)
		if used+tw > avail {
			return false
		}
		left = append(left, piece{text, style})
		used += tw
		return true
	}

	num := " " + l.number + " "
	if l.number == "" || !add(num, numSt) {
		return plain(dst)
	}
	// Reserve the right part (the scrollback position, only shown in
	// scrollback mode, where it is what the user looks at) and the badge
	// before the title gets the rest.
	var badge, right piece
	if l.right != "" {
		right = piece{" " + sanitizeLabel(l.right) + " ", c.looks.muted}
		if rw := ansi.StringWidth(right.text); used+rw+1 > avail {
			right = piece{}
		} else {
			used += rw + 1 // keep one dash between the label and it
		}
	}
	if l.badge != "" {
		badge = piece{sanitizeLabel(l.badge) + " ", l.badgeSt}
		if bw := ansi.StringWidth(badge.text); used+bw > avail {
			badge = piece{}
		} else {
			used += bw
		}
	}
	if title := sanitizeLabel(l.title); title != "" {
		room := avail - used - 1 // the space after the title
		// The category and model follow the title and are cut first,
		// then dropped (when fewer than 4 cells of them would show), then
		// the title is cut.
		tw := ansi.StringWidth(title)
		tag := runTag(l.category, l.model)
		tagRoom := room - tw - 1 // after the title and a space
		switch {
		case tag != "" && tagRoom >= min(4, ansi.StringWidth(tag)):
			add(title+" ", titleSt)
			if ansi.StringWidth(tag) > tagRoom {
				tag = strings.TrimRight(ansi.Truncate(tag, tagRoom-1, ""), " ·") + "…"
			}
			add(tag+" ", c.looks.muted)
		case tw <= room:
			add(title+" ", titleSt)
		case room >= 2:
			add(ansi.Truncate(title, room, "…")+" ", titleSt)
		}
	}
	if badge.text != "" {
		left = append(left, badge)
	}
	// The worktree's branch gives way to the title and the badge: a pane
	// without its name says less than one without its branch.
	if right.text == "" && l.branch != "" {
		b := piece{" " + sanitizeLabel(l.branch) + " ", c.looks.muted}
		if bw := ansi.StringWidth(b.text); used+bw+1 <= avail {
			right = b
			used += bw + 1
		}
	}
	for _, e := range l.entries {
		e = sanitizeLabel(e)
		if e == "" {
			continue
		}
		if !add("· "+e+" ", c.looks.entry) {
			break
		}
	}

	dst = append(dst, st.Cell("┌", 1), st.Cell("─", 1))
	for _, pc := range left {
		dst = termrt.AppendText(dst, pc.text, pc.st)
	}
	fill := avail - used
	if right.text != "" {
		fill++ // the dash reserved before the right part
	}
	for range max(fill, 0) {
		dst = append(dst, st.Cell("─", 1))
	}
	if right.text != "" {
		dst = termrt.AppendText(dst, right.text, right.st)
	}
	return append(dst, st.Cell("─", 1), st.Cell("┐", 1))
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

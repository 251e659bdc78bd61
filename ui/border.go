package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/internal/oneline"
)

// borderTop renders a pane's top border with its label:
//
//	┌─ 1 build-api ● running 12s · tests 42/50 ──────── 12/340 ─┐
//
// When the label does not fit, parts are dropped in reverse order of
// importance: status entries first, then the title is shortened with "…",
// then the state badge goes; the pane number and the scrollback position
// stay as long as they fit at all.
func (c *composer) borderTop(w int, p *paneFrame, sgr string) string {
	if w < 2 {
		return ""
	}
	avail := w - 4 // "┌─" and "─┐"
	if avail < 0 {
		return sgr + "┌" + strings.Repeat("─", w-2) + "┐" + sgrReset
	}
	l := &p.label
	numSGR, titleSGR := c.styles.number, c.styles.title
	if p.focused {
		numSGR, titleSGR = c.styles.numberFocus, c.styles.titleFocus
	}
	type piece struct{ text, sgr string }
	var left []piece
	used := 0
	add := func(text, style string) bool {
		tw := ansi.StringWidth(text)
		if used+tw > avail {
			return false
		}
		left = append(left, piece{text, style})
		used += tw
		return true
	}

	num := " " + l.number + " "
	if l.number == "" || !add(num, numSGR) {
		return sgr + "┌" + strings.Repeat("─", w-2) + "┐" + sgrReset
	}
	// Reserve the right part (the scrollback position, only shown in
	// scrollback mode, where it is what the user looks at) and the badge
	// before the title gets the rest.
	var badge, right piece
	if l.right != "" {
		right = piece{" " + l.right + " ", c.styles.muted}
		if rw := ansi.StringWidth(right.text); used+rw+1 > avail {
			right = piece{}
		} else {
			used += rw + 1 // keep one dash between the label and it
		}
	}
	if l.badge != "" {
		badge = piece{l.badge + " ", l.badgeSGR}
		if bw := ansi.StringWidth(badge.text); used+bw > avail {
			badge = piece{}
		} else {
			used += bw
		}
	}
	if title := sanitizeLabel(l.title); title != "" {
		room := avail - used - 1 // the space after the title
		if tw := ansi.StringWidth(title); tw > room && room >= 2 {
			title = ansi.Truncate(title, room, "…")
		}
		if ansi.StringWidth(title) <= room {
			add(title+" ", titleSGR)
		}
	}
	if badge.text != "" {
		left = append(left, badge)
	}
	for _, e := range l.entries {
		e = sanitizeLabel(e)
		if e == "" {
			continue
		}
		if !add("· "+e+" ", c.styles.entry) {
			break
		}
	}

	var sb strings.Builder
	sb.Grow(w*4 + 64)
	sb.WriteString(sgr)
	sb.WriteString("┌─")
	for _, pc := range left {
		sb.WriteString(sgrReset)
		sb.WriteString(pc.sgr)
		sb.WriteString(pc.text)
		sb.WriteString(sgrReset)
		sb.WriteString(sgr)
	}
	fill := avail - used
	if right.text != "" {
		fill++ // the dash reserved before the right part
	}
	sb.WriteString(strings.Repeat("─", max(fill, 0)))
	if right.text != "" {
		sb.WriteString(sgrReset)
		sb.WriteString(right.sgr)
		sb.WriteString(right.text)
		sb.WriteString(sgrReset)
		sb.WriteString(sgr)
	}
	sb.WriteString("─┐")
	sb.WriteString(sgrReset)
	return sb.String()
}

// sanitizeLabel makes text safe for a border or a notification with the
// one sanitiser (escape sequences, control, bidi and zero-width characters
// removed, whitespace collapsed): a label may come straight from a pane's
// terminal title.
func sanitizeLabel(s string) string {
	return oneline.Sanitize(s, 0)
}

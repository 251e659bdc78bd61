package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/ui/termrt"
)

// lineInput is a one-line text editor for prompts: emacs-style motions,
// paste, and horizontal scrolling. The terminal's real cursor marks the
// insertion point, so there is no blink timer.
type lineInput struct {
	prompt      string
	placeholder string
	value       []rune
	pos         int // insertion point, in runes
	width       int // cells available for prompt and text
	limit       int // maximum runes; 0 = none
}

// Value returns the text entered.
func (l *lineInput) Value() string { return string(l.value) }

// SetWidth sets the cells available to the line.
func (l *lineInput) SetWidth(w int) { l.width = max(w, 1) }

// insert adds text at the insertion point; line breaks and other control
// characters become spaces (a prompt is one line).
func (l *lineInput) insert(s string) {
	rs := []rune(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s))
	if l.limit > 0 && len(l.value)+len(rs) > l.limit {
		rs = rs[:max(l.limit-len(l.value), 0)]
	}
	l.value = append(l.value[:l.pos], append(rs, l.value[l.pos:]...)...)
	l.pos += len(rs)
}

// wordLeft is the start of the word before the insertion point.
func (l *lineInput) wordLeft() int {
	i := l.pos
	for i > 0 && l.value[i-1] == ' ' {
		i--
	}
	for i > 0 && l.value[i-1] != ' ' {
		i--
	}
	return i
}

// wordRight is the end of the word after the insertion point.
func (l *lineInput) wordRight() int {
	i := l.pos
	for i < len(l.value) && l.value[i] == ' ' {
		i++
	}
	for i < len(l.value) && l.value[i] != ' ' {
		i++
	}
	return i
}

// Update edits the line for a key press or paste.
func (l *lineInput) Update(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		l.insert(msg.Content)
	case tea.KeyPressMsg:
		switch msg.Keystroke() {
		case "left", "ctrl+b":
			l.pos = max(l.pos-1, 0)
		case "right", "ctrl+f":
			l.pos = min(l.pos+1, len(l.value))
		case "home", "ctrl+a":
			l.pos = 0
		case "end", "ctrl+e":
			l.pos = len(l.value)
		case "alt+left", "alt+b", "ctrl+left":
			l.pos = l.wordLeft()
		case "alt+right", "alt+f", "ctrl+right":
			l.pos = l.wordRight()
		case "backspace", "ctrl+h":
			if l.pos > 0 {
				l.value = append(l.value[:l.pos-1], l.value[l.pos:]...)
				l.pos--
			}
		case "delete", "ctrl+d":
			if l.pos < len(l.value) {
				l.value = append(l.value[:l.pos], l.value[l.pos+1:]...)
			}
		case "ctrl+w", "alt+backspace":
			i := l.wordLeft()
			l.value = append(l.value[:i], l.value[l.pos:]...)
			l.pos = i
		case "ctrl+u":
			l.value = append(l.value[:0], l.value[l.pos:]...)
			l.pos = 0
		case "ctrl+k":
			l.value = l.value[:l.pos]
		default:
			if msg.Text != "" && msg.Mod&^(tea.ModShift|tea.ModCapsLock) == 0 {
				l.insert(msg.Text)
			}
		}
	}
}

// view renders the prompt and the part of the text around the insertion
// point that fits, and returns the cursor's cell column.
func (l *lineInput) view(textSt, placeholderSt termrt.Style) (line, int) {
	pw := ansi.StringWidth(l.prompt)
	room := max(l.width-pw-1, 1) // one cell for the cursor at the end
	if len(l.value) == 0 {
		out := plain(l.prompt)
		if l.placeholder != "" {
			out = append(out, span{text: ansi.Truncate(l.placeholder, room, "…"), st: placeholderSt})
		}
		return out, pw
	}
	// Scroll so the insertion point is visible: start from the cursor and
	// take as much text to its left as fits.
	start := l.pos
	w := 0
	for start > 0 {
		cw := ansi.StringWidth(string(l.value[start-1]))
		if w+cw > room {
			break
		}
		w += cw
		start--
	}
	end := l.pos
	for end < len(l.value) {
		cw := ansi.StringWidth(string(l.value[end]))
		if w+cw > room {
			break
		}
		w += cw
		end++
	}
	before := string(l.value[start:l.pos])
	return line{{text: l.prompt}, {text: before + string(l.value[l.pos:end]), st: textSt}}, pw + ansi.StringWidth(before)
}

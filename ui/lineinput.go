package ui

import (
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/ui/termrt"
)

// lineInput is the one-line text editor of the prompts, with the keys of
// a shell's line editor (emacs-style motions and deletions), paste with
// line breaks and tabs made spaces and other controls dropped, and a
// length limit in characters; it draws its value into cells, scrolled so
// the insertion point shows. The terminal's real cursor marks the
// insertion point, so there is no blink timer, and no key reads the
// system clipboard: the terminal pastes. It is agentgrid's own rather
// than a widget library's: those pull in packages whose start-up work
// (the colour profile, looking for clipboard programs) every agentgrid
// process would pay for.
type lineInput struct {
	prompt, placeholder string
	limit               int    // most characters, 0 for no limit
	value               []rune // the text
	pos                 int    // the insertion point, 0..len(value)
	width               int    // cells available for prompt and text
}

// lineKeys are the editing keys of every lineInput.
var lineKeys = struct {
	charForward, charBackward, wordForward, wordBackward         key.Binding
	deleteWordBackward, deleteWordForward                        key.Binding
	deleteAfter, deleteBefore, deleteCharBackward, deleteCharFwd key.Binding
	lineStart, lineEnd                                           key.Binding
}{
	charForward:        key.NewBinding(key.WithKeys("right", "ctrl+f")),
	charBackward:       key.NewBinding(key.WithKeys("left", "ctrl+b")),
	wordForward:        key.NewBinding(key.WithKeys("alt+right", "ctrl+right", "alt+f")),
	wordBackward:       key.NewBinding(key.WithKeys("alt+left", "ctrl+left", "alt+b")),
	deleteWordBackward: key.NewBinding(key.WithKeys("alt+backspace", "ctrl+w", "ctrl+backspace")),
	deleteWordForward:  key.NewBinding(key.WithKeys("alt+delete", "alt+d", "ctrl+delete")),
	deleteAfter:        key.NewBinding(key.WithKeys("ctrl+k")),
	deleteBefore:       key.NewBinding(key.WithKeys("ctrl+u")),
	deleteCharBackward: key.NewBinding(key.WithKeys("backspace", "ctrl+h")),
	deleteCharFwd:      key.NewBinding(key.WithKeys("delete", "ctrl+d")),
	lineStart:          key.NewBinding(key.WithKeys("home", "ctrl+a")),
	lineEnd:            key.NewBinding(key.WithKeys("end", "ctrl+e")),
}

// newLineInput is an empty input with prompt and placeholder that takes
// at most limit characters (0: no limit).
func newLineInput(prompt, placeholder string, limit int) lineInput {
	return lineInput{prompt: prompt, placeholder: placeholder, limit: limit, width: 1}
}

// Value returns the text entered.
func (l *lineInput) Value() string { return string(l.value) }

// SetWidth sets the cells available to the line.
func (l *lineInput) SetWidth(w int) { l.width = max(w, 1) }

// Update edits the line for a key press or paste. Keys with ctrl or alt
// that are not editing keys type nothing.
func (l *lineInput) Update(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		l.insert(msg.Content)
	case tea.KeyPressMsg:
		if !l.edit(msg) && msg.Mod&^(tea.ModShift|tea.ModCapsLock) == 0 {
			l.insert(msg.Text)
		}
	}
}

// edit carries out k if it is an editing key, and reports whether it was.
func (l *lineInput) edit(k tea.KeyPressMsg) bool {
	k2 := &lineKeys
	switch {
	case key.Matches(k, k2.deleteWordBackward):
		start := l.wordStart()
		l.value = append(l.value[:start], l.value[l.pos:]...)
		l.pos = start
	case key.Matches(k, k2.deleteCharBackward):
		if l.pos > 0 {
			l.value = append(l.value[:l.pos-1], l.value[l.pos:]...)
			l.pos--
		}
	case key.Matches(k, k2.wordBackward):
		l.pos = l.wordStart()
	case key.Matches(k, k2.charBackward):
		l.pos = max(l.pos-1, 0)
	case key.Matches(k, k2.wordForward):
		l.pos = l.wordEnd()
	case key.Matches(k, k2.charForward):
		l.pos = min(l.pos+1, len(l.value))
	case key.Matches(k, k2.lineStart):
		l.pos = 0
	case key.Matches(k, k2.deleteCharFwd):
		if l.pos < len(l.value) {
			l.value = append(l.value[:l.pos], l.value[l.pos+1:]...)
		}
	case key.Matches(k, k2.lineEnd):
		l.pos = len(l.value)
	case key.Matches(k, k2.deleteAfter):
		l.value = l.value[:l.pos]
	case key.Matches(k, k2.deleteBefore):
		l.value = append(l.value[:0], l.value[l.pos:]...)
		l.pos = 0
	case key.Matches(k, k2.deleteWordForward):
		end := l.wordEnd()
		l.value = append(l.value[:l.pos], l.value[end:]...)
	default:
		return false
	}
	return true
}

// wordStart is where the word before the insertion point starts, past
// the spaces right before it.
func (l *lineInput) wordStart() int {
	i := l.pos
	for i > 0 && unicode.IsSpace(l.value[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(l.value[i-1]) {
		i--
	}
	return i
}

// wordEnd is where the word at or after the insertion point ends.
func (l *lineInput) wordEnd() int {
	i := l.pos
	for i < len(l.value) && unicode.IsSpace(l.value[i]) {
		i++
	}
	for i < len(l.value) && !unicode.IsSpace(l.value[i]) {
		i++
	}
	return i
}

// insert types s at the insertion point: a line break or a tab becomes a
// space, other control characters and invalid bytes are dropped, and what
// goes past the limit is cut off.
func (l *lineInput) insert(s string) {
	var add []rune
	for _, r := range s {
		switch {
		case r == '\r' || r == '\n' || r == '\t':
			add = append(add, ' ')
		case r == unicode.ReplacementChar || unicode.IsControl(r):
		default:
			add = append(add, r)
		}
	}
	if l.limit > 0 {
		add = add[:min(len(add), max(l.limit-len(l.value), 0))]
	}
	if len(add) == 0 {
		return
	}
	l.value = append(l.value[:l.pos], append(add, l.value[l.pos:]...)...)
	l.pos += len(add)
}

// view renders the prompt and the part of the text around the insertion
// point that fits, and returns the cursor's cell column.
func (l *lineInput) view(textSt, placeholderSt termrt.Style) (line, int) {
	prompt := l.prompt
	pw := ansi.StringWidth(prompt)
	room := max(l.width-pw-1, 1) // one cell for the cursor at the end
	value := l.value
	if len(value) == 0 {
		out := plain(prompt)
		if l.placeholder != "" {
			out = append(out, span{text: ansi.Truncate(l.placeholder, room, "…"), st: placeholderSt})
		}
		return out, pw
	}
	pos := min(l.pos, len(value))
	// Scroll so the insertion point is visible: start from the cursor and
	// take as much text to its left as fits.
	start, w := pos, 0
	for start > 0 {
		cw := ansi.StringWidth(string(value[start-1]))
		if w+cw > room {
			break
		}
		w += cw
		start--
	}
	end := pos
	for end < len(value) {
		cw := ansi.StringWidth(string(value[end]))
		if w+cw > room {
			break
		}
		w += cw
		end++
	}
	before := string(value[start:pos])
	return line{{text: prompt}, {text: before + string(value[pos:end]), st: textSt}}, pw + ansi.StringWidth(before)
}

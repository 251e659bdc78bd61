package ui

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/ui/termrt"
)

// lineInput is the one-line text editor of the prompts: the Bubbles text
// input does the editing (emacs-style motions and deletions, paste with
// line breaks and tabs made spaces, a length limit), and lineInput draws
// its value into cells, scrolled so the insertion point shows. The
// terminal's real cursor marks the insertion point, so there is no blink
// timer, and no key reads the system clipboard: the terminal pastes.
type lineInput struct {
	ti    textinput.Model
	width int // cells available for prompt and text
}

// newLineInput is an empty, focused input with prompt and placeholder.
func newLineInput(prompt, placeholder string, limit int) lineInput {
	ti := textinput.New()
	ti.Prompt = prompt
	ti.Placeholder = placeholder
	ti.CharLimit = limit
	ti.SetVirtualCursor(false)
	// ctrl+v would read the clipboard with a helper program; the terminal
	// pastes (bracketed) on its own. The suggestion keys have nothing to do.
	ti.KeyMap.Paste = key.NewBinding(key.WithDisabled())
	ti.KeyMap.AcceptSuggestion = key.NewBinding(key.WithDisabled())
	ti.KeyMap.NextSuggestion = key.NewBinding(key.WithDisabled())
	ti.KeyMap.PrevSuggestion = key.NewBinding(key.WithDisabled())
	ti.Focus()
	return lineInput{ti: ti, width: 1}
}

// Value returns the text entered.
func (l *lineInput) Value() string { return l.ti.Value() }

// SetWidth sets the cells available to the line.
func (l *lineInput) SetWidth(w int) { l.width = max(w, 1) }

// Update edits the line for a key press or paste. Keys with ctrl or alt
// that the input has no binding for type nothing.
func (l *lineInput) Update(msg tea.Msg) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.Mod&^(tea.ModShift|tea.ModCapsLock) != 0 && !l.bound(k) {
		return
	}
	// The input's commands are the virtual cursor's blinks and the
	// clipboard's reads, both turned off.
	l.ti, _ = l.ti.Update(msg)
}

// bound reports whether k is one of the input's editing keys.
func (l *lineInput) bound(k tea.KeyPressMsg) bool {
	km := l.ti.KeyMap
	return key.Matches(k, km.CharacterForward, km.CharacterBackward, km.WordForward, km.WordBackward,
		km.DeleteWordBackward, km.DeleteWordForward, km.DeleteAfterCursor, km.DeleteBeforeCursor,
		km.DeleteCharacterBackward, km.DeleteCharacterForward, km.LineStart, km.LineEnd)
}

// view renders the prompt and the part of the text around the insertion
// point that fits, and returns the cursor's cell column.
func (l *lineInput) view(textSt, placeholderSt termrt.Style) (line, int) {
	prompt := l.ti.Prompt
	pw := ansi.StringWidth(prompt)
	room := max(l.width-pw-1, 1) // one cell for the cursor at the end
	value := []rune(l.ti.Value())
	if len(value) == 0 {
		out := plain(prompt)
		if l.ti.Placeholder != "" {
			out = append(out, span{text: ansi.Truncate(l.ti.Placeholder, room, "…"), st: placeholderSt})
		}
		return out, pw
	}
	pos := min(l.ti.Position(), len(value))
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

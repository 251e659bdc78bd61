package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/ui/termrt"
)

// TestLineInputEditing edits a prompt's line with the keys of a shell's
// line editor: word motions and deletions both ways (alt+d deletes to the
// end of the word, as a shell does), paste with its line breaks and
// tabs made spaces, the length limit, and the cursor column after wide
// characters. ctrl+v reads no clipboard and types nothing.
func TestLineInputEditing(t *testing.T) {
	l := newLineInput("run: ", "", 20)
	l.SetWidth(40)
	typeIn := func(keys ...string) {
		t.Helper()
		for _, k := range keys {
			l.Update(keyOf(t, k))
		}
	}
	text := func(s string) {
		for _, r := range s {
			typeIn(string(r))
		}
	}
	text("one two three")
	typeIn("home", "alt+d")
	if got := l.Value(); got != " two three" {
		t.Errorf("alt+d at the start: %q", got)
	}
	typeIn("end", "ctrl+w")
	if got := l.Value(); got != " two " {
		t.Errorf("ctrl+w at the end: %q", got)
	}
	typeIn("alt+b", "ctrl+k")
	if got := l.Value(); got != " " {
		t.Errorf("alt+b then ctrl+k: %q", got)
	}
	typeIn("ctrl+u")
	text("ab  cd")
	typeIn("home", "right", "alt+d")
	if got := l.Value(); got != "a  cd" {
		t.Errorf("alt+d inside a word: %q, want the rest of the word deleted", got)
	}
	typeIn("end", "ctrl+u", "ctrl+v", "ctrl+x")
	if got := l.Value(); got != "" {
		t.Errorf("ctrl+u, ctrl+v and ctrl+x left %q", got)
	}
	l.Update(tea.PasteMsg{Content: "a\nb\tc"})
	if got := l.Value(); got != "a b c" {
		t.Errorf("paste: %q", got)
	}
	l.Update(tea.PasteMsg{Content: strings.Repeat("x", 50)})
	if got := len([]rune(l.Value())); got != 20 {
		t.Errorf("%d runes after pasting past the limit, want 20", got)
	}

	w := newLineInput("> ", "", 100)
	w.SetWidth(40)
	for _, r := range "日本x" {
		w.Update(keyOf(t, string(r)))
	}
	w.Update(keyOf(t, "left"))
	if ln, col := w.view(termrt.Style{}, termrt.Style{}); col != 2+4 || ln.text() != "> 日本x" {
		t.Errorf("view %q, cursor column %d; want the cursor after 日本 at 6", ln.text(), col)
	}
}

package ui

import (
	"strings"
	"testing"
)

// TestPromptShowsTheWholeRefusal: at 80x24 a refused command's reason,
// which lists the themes or the commands, wraps in the prompt's box
// instead of being cut at its edge; the box keeps its width.
func TestPromptShowsTheWholeRefusal(t *testing.T) {
	m, _ := newTestModel(t, testSnapshot())
	m.Update(teaWindowSize(80, 24))
	for _, text := range []string{"theme neon", "colour red"} {
		press(t, m, "ctrl+b", ":")
		for _, r := range text {
			press(t, m, string(r))
		}
		press(t, m, "enter")
		p, ok := m.overlay.(*promptOverlay)
		if !ok || p.err == "" {
			t.Fatalf("%q: no refusal in the prompt (%T)", text, m.overlay)
		}
		rows, _, _ := p.View()
		var words []string
		for _, r := range rows {
			var b strings.Builder
			for _, c := range r {
				b.WriteString(c.Content)
			}
			if w := len([]rune(b.String())); w != p.boxW {
				t.Errorf("%q: a row of the box is %d cells, the box %d", text, w, p.boxW)
			}
			words = append(words, strings.Fields(strings.Trim(b.String(), "│"))...)
		}
		if got, want := strings.Join(words, " "), strings.Join(strings.Fields(sanitizeLabel(p.err)), " "); !strings.Contains(got, want) {
			t.Errorf("%q: the box shows %q\nwithout the whole reason %q", text, got, want)
		}
		press(t, m, "esc")
	}
}

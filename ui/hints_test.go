package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestHintsKeepWholeKeys: a widget's key hints that do not fit its border
// drop whole keys and end in "…", never a word cut in half; a search
// prompt's enter says search, not run.
func TestHintsKeepWholeKeys(t *testing.T) {
	m, _ := newTestModel(t, testSnapshot())
	m.Update(teaWindowSize(40, 14))
	press(t, m, "ctrl+b", "w")
	text := ansi.Strip(viewText(m))
	var bottom string
	for _, r := range strings.Split(text, "\n") {
		if strings.Contains(r, "└─ ↑↓") {
			bottom = r
		}
	}
	if bottom == "" {
		t.Fatalf("no hints in the agents list's border:\n%s", text)
	}
	inner := strings.TrimSpace(strings.Trim(strings.TrimSpace(bottom[strings.Index(bottom, "└─")+len("└─"):]), "─┘"))
	whole := map[string]bool{"↑↓ select": true, "enter show": true, "x close": true, "esc back": true}
	parts := strings.Split(strings.TrimSuffix(inner, " …"), " · ")
	for _, p := range parts {
		if !whole[p] {
			t.Errorf("hint %q is cut (border %q)", p, bottom)
		}
	}
	if len(parts) == len(whole) || !strings.HasSuffix(inner, "…") {
		t.Errorf("at 40 columns the hints %q should be shortened with …", inner)
	}
	press(t, m, "esc")

	m.Update(teaWindowSize(80, 24))
	press(t, m, "ctrl+b", "[", "/")
	if p, ok := m.overlay.(*promptOverlay); !ok || p.HelpKeys() != "enter search · esc cancel" {
		t.Errorf("the search prompt's hints: %T %q", m.overlay, m.overlay.HelpKeys())
	}
}

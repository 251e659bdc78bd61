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

// TestHelpWrapsLongDescriptions: in an 80-column terminal every binding's
// description shows whole in the help, wrapped under itself when it is
// longer than its column, never cut at the box's edge.
func TestHelpWrapsLongDescriptions(t *testing.T) {
	o := newHelpOverlay("ctrl+b", keyOptions{}, 80, 24, newUIStyles(testStyles()))
	var all []string
	for _, l := range o.lines {
		if w := ansi.StringWidth(l.text()); w > o.boxW-3 {
			t.Errorf("help line %q is %d cells, the box has room for %d", l.text(), w, o.boxW-3)
		}
		all = append(all, strings.TrimSpace(l.text()))
	}
	text := strings.Join(strings.Fields(strings.Join(all, " ")), " ")
	for _, sec := range o.secs {
		for _, r := range sec.rows {
			if desc := strings.Join(strings.Fields(r[1]), " "); !strings.Contains(text, desc) {
				t.Errorf("the help lacks %q whole", desc)
			}
		}
	}
}

// TestHelpKeyColumnFitsTheKeys: the keys' column is as wide as the widest
// key, not as the commands of the help's last sections (agentgrid spawn
// --worktree NAME), so at 80 columns the key descriptions keep their room
// and wrap less.
func TestHelpKeyColumnFitsTheKeys(t *testing.T) {
	o := newHelpOverlay("ctrl+b", keyOptions{}, 80, 24, newUIStyles(testStyles()))
	keySecs := map[string]bool{}
	for _, m := range modeNames {
		keySecs[m.title] = true
	}
	keyW := 0
	for _, sec := range o.secs {
		for _, r := range sec.rows {
			if keySecs[sec.title] {
				keyW = max(keyW, ansi.StringWidth(r[0]))
			}
		}
	}
	for _, l := range o.lines {
		text := l.text()
		if i := strings.Index(text, "new agent: prompt"); i >= 0 {
			if want := 2 + keyW + 2; i != want {
				t.Errorf("the description of c starts at column %d, want %d (keys up to %d wide): %q", i, want, keyW, text)
			}
			return
		}
	}
	t.Fatal("the help has no row for c")
}

// TestHelpFirstScreenReachesDetachAndQuit: at 80x24 the help's first
// screen, before any scrolling, shows how to detach and how to quit.
func TestHelpFirstScreenReachesDetachAndQuit(t *testing.T) {
	o := newHelpOverlay("ctrl+b", keyOptions{}, 80, 24, newUIStyles(testStyles()))
	rows, _, _ := o.View()
	var b strings.Builder
	for _, r := range rows {
		for _, c := range r {
			b.WriteString(c.Content)
		}
		b.WriteString("\n")
	}
	for _, want := range []string{"detach: leave the session running", "quit the session for every terminal"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the help's first screen at 80x24 lacks %q:\n%s", want, b.String())
		}
	}
}

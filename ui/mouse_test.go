package ui

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/charmbracelet/x/ansi"
)

func TestClickFocusesPane(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	m.Update(tea.MouseClickMsg{X: 50, Y: 3, Button: tea.MouseLeft})
	if eng.lastCall() != "focus a1" {
		t.Errorf("click on a1: %q", eng.lastCall())
	}
	if len(eng.takeInputs()) != 0 {
		t.Error("a click was forwarded to a pane that did not ask for the mouse")
	}
}

func TestClickForwardedWithPaneCoordinates(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	// a1 asks for SGR mouse reports; its content starts at (41,1).
	_, _ = m.snap.Panes[0].Term.(*vterm.Terminal).Write([]byte("\x1b[?1000h\x1b[?1006h"))
	m.Update(tea.MouseClickMsg{X: 45, Y: 3, Button: tea.MouseLeft})
	m.Update(tea.MouseReleaseMsg{X: 45, Y: 3, Button: tea.MouseLeft})
	got := eng.takeInputs()
	want := []string{"a1:\x1b[<0;5;3M", "a1:\x1b[<0;5;3m"}
	if !slices.Equal(got, want) {
		t.Errorf("mouse reports = %q, want %q", got, want)
	}
	// A click on the border focuses but is not reported.
	m.Update(tea.MouseClickMsg{X: 40, Y: 3, Button: tea.MouseLeft})
	if got := eng.takeInputs(); len(got) != 0 {
		t.Errorf("border click reported: %q", got)
	}
}

func TestWheelScrollsHistoryOrForwards(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	term := m.snap.Panes[0].Term.(*vterm.Terminal) // the fake engine's pane
	for i := range 40 {
		_, _ = term.Write([]byte("line " + string(rune('A'+i%26)) + "\r\n"))
	}
	refreshFrom(m)
	m.Update(tea.MouseWheelMsg{X: 50, Y: 3, Button: tea.MouseWheelUp})
	s := m.scroll["a1"]
	if s == nil || s.offset != 3 {
		t.Fatalf("wheel up: scroll state %+v", s)
	}
	m.View()
	if !strings.Contains(ansi.Strip(m.final.String()), "[3/") {
		t.Error("scroll position not shown in the border")
	}
	m.Update(tea.MouseWheelMsg{X: 50, Y: 3, Button: tea.MouseWheelDown})
	if m.scroll["a1"] != nil {
		t.Error("wheel back to the bottom should leave scrollback mode")
	}
	// With mouse reporting on, the wheel is forwarded instead.
	_, _ = term.Write([]byte("\x1b[?1000h\x1b[?1006h"))
	m.Update(tea.MouseWheelMsg{X: 50, Y: 3, Button: tea.MouseWheelUp})
	if got := eng.takeInputs(); !slices.Equal(got, []string{"a1:\x1b[<64;10;3M"}) {
		t.Errorf("forwarded wheel = %q", got)
	}
	if m.scroll["a1"] != nil {
		t.Error("forwarded wheel entered scrollback mode")
	}
}

func TestWheelInAltScreenSendsArrows(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	_, _ = m.snap.Panes[0].Term.(*vterm.Terminal).Write([]byte("\x1b[?1049h\x1b[?1h"))
	m.Update(tea.MouseWheelMsg{X: 50, Y: 3, Button: tea.MouseWheelDown})
	if got := eng.takeInputs(); !slices.Equal(got, []string{"a1:\x1bOB\x1bOB\x1bOB"}) {
		t.Errorf("wheel in a full-screen program = %q", got)
	}
	if m.scroll["a1"] != nil {
		t.Error("entered scrollback mode on the alternate screen")
	}
}

func TestScrollbackModeKeysAndSearch(t *testing.T) {
	snap := testSnapshot()
	snap.Focus = "a1"
	m, eng := newTestModel(t, snap)
	term := m.snap.Panes[0].Term.(*vterm.Terminal) // the fake engine's pane
	for i := range 50 {
		_, _ = term.Write([]byte("row " + strconv.Itoa(i) + "\r\n"))
	}
	refreshFrom(m)
	press(t, m, "ctrl+b", "[")
	s := m.scroll["a1"]
	if s == nil {
		t.Fatal("not in scrollback mode")
	}
	press(t, m, "k", "k")
	if s.offset != 2 {
		t.Errorf("two lines up: offset %d", s.offset)
	}
	press(t, m, "g")
	if s.offset != term.ScrollbackLen() {
		t.Errorf("g: offset %d, want %d", s.offset, term.ScrollbackLen())
	}
	press(t, m, "G")
	if s.offset != 0 {
		t.Errorf("G: offset %d", s.offset)
	}
	// Keys do not reach the pane in scrollback mode.
	press(t, m, "x")
	if len(eng.takeInputs()) != 0 {
		t.Error("a key leaked to the pane in scrollback mode")
	}
	// Search backward for an old row.
	press(t, m, "?")
	if _, ok := m.overlay.(*promptOverlay); !ok {
		t.Fatalf("? did not open the search prompt: %T", m.overlay)
	}
	for _, r := range "row 7" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	press(t, m, "enter")
	if m.overlay != nil {
		t.Fatal("search prompt still open")
	}
	if s.match < 0 || s.notFound {
		t.Fatalf("no match: %+v", s)
	}
	m.View()
	if !strings.Contains(ansi.Strip(m.final.String()), "row 7") {
		t.Error("the match is not on screen")
	}
	if !hasStyled(m.base, "row 7", m.ui.frame.match) {
		t.Error("the match is not highlighted")
	}
	// "row 1" matches rows 1 and 10..19: n goes on to an older match.
	press(t, m, "?")
	for _, r := range "row 1" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	press(t, m, "enter")
	first := s.match
	press(t, m, "n")
	if s.notFound || s.match >= first {
		t.Errorf("n (backward) went from line %d to %d", first, s.match)
	}
	press(t, m, "N")
	if s.match != first {
		t.Errorf("N went back to line %d, want %d", s.match, first)
	}
	// A search finding nothing says so in the border.
	press(t, m, "/")
	for _, r := range "zzz" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	press(t, m, "enter")
	if !s.notFound || !strings.Contains(ansi.Strip(m.final.String()), "no match: zzz") {
		t.Errorf("missing match not reported: %+v", s)
	}
	press(t, m, "q")
	if m.scroll["a1"] != nil {
		t.Error("q did not leave scrollback mode")
	}
}

func TestOutputKeepsScrolledViewAnchored(t *testing.T) {
	m, _ := newTestModel(t, testSnapshot())
	term := m.snap.Panes[0].Term.(*vterm.Terminal) // the fake engine's pane
	for i := range 30 {
		_, _ = term.Write([]byte("old " + strconv.Itoa(i) + "\r\n"))
	}
	refreshFrom(m)
	s := m.enterScroll("a1", false)
	m.scrollBy("a1", 5)
	before := s.offset
	for range 4 {
		_, _ = term.Write([]byte("new\r\n"))
	}
	refreshFrom(m)
	if s.offset != before+4 {
		t.Errorf("offset %d after 4 new lines, want %d", s.offset, before+4)
	}
}

func TestAgentsOverlay(t *testing.T) {
	snap := testSnapshot()
	q := snap.Agents[0]
	q.ID, q.Title, q.Visible, q.Number, q.QueuePos, q.QueueReason, q.State = "a3", "queued-one", false, 0, 1, "grid full", "pending"
	snap.Agents = append(snap.Agents, q)
	m, eng := newTestModel(t, snap)
	press(t, m, "ctrl+b", "w")
	plain := ansi.Strip(m.final.String())
	for _, want := range []string{"agents (4)", "main view", "pane 1", "pane 2", "queued #1", "grid full"} {
		if !strings.Contains(plain, want) {
			t.Errorf("agents overlay lacks %q:\n%s", want, plain)
		}
	}
	press(t, m, "down", "down", "enter")
	if eng.lastCall() != "show a3" || m.snap.Focus != "a3" {
		t.Errorf("enter on a3: calls %q, focus %q", eng.calls, m.snap.Focus)
	}
	if m.overlay != nil {
		t.Error("overlay still open after show")
	}
}

func TestHelpOverlayFromKeymap(t *testing.T) {
	m, _ := newTestModel(t, testSnapshot())
	press(t, m, "ctrl+b", "?")
	h, ok := m.overlay.(*helpOverlay)
	if !ok {
		t.Fatalf("overlay %T", m.overlay)
	}
	// Long descriptions wrap: compare with the line breaks made spaces.
	all := strings.Join(strings.Fields(ansi.Strip(linesText(h.lines))), " ")
	for _, b := range keymap {
		if !strings.Contains(all, strings.Join(strings.Fields(b.desc), " ")) {
			t.Errorf("help lacks %q", b.desc)
		}
	}
	if !strings.Contains(ansi.Strip(m.final.String()), "After the prefix") {
		t.Error("help not drawn")
	}
	press(t, m, "esc")
	if m.overlay != nil {
		t.Error("esc did not close the help")
	}
}

// TestKeysDocUpToDate keeps docs/KEYS.md generated from the keymap.
func TestKeysDocUpToDate(t *testing.T) {
	got, err := os.ReadFile("../docs/KEYS.md")
	if os.IsNotExist(err) {
		t.Skip("docs/KEYS.md not written yet")
	}
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != KeymapMarkdown() {
		t.Error("docs/KEYS.md is out of date: write ui.KeymapMarkdown() to it")
	}
}

func TestKeymapMarkdown(t *testing.T) {
	md := KeymapMarkdown()
	for _, b := range keymap {
		if !strings.Contains(md, b.desc) {
			t.Errorf("KEYS.md lacks %q", b.desc)
		}
	}
	for _, want := range []string{"# agentgrid keys", "## After the prefix", "`ctrl+b`", "`alt+left`", "| `/` |"} {
		if !strings.Contains(md, want) {
			t.Errorf("KEYS.md lacks %q", want)
		}
	}
}

// TestScrolledViewStaysPutAtTheScrollbackCap: once a flooding pane's
// history is full, every new line drops the oldest and the history's
// length stays the same; a view scrolled back keeps showing the same lines
// all the same, until they are dropped.
func TestScrolledViewStaysPutAtTheScrollbackCap(t *testing.T) {
	m, _ := newTestModel(t, testSnapshot())
	term := m.snap.Panes[0].Term.(*vterm.Terminal) // 38x9, 100 lines of history
	for i := range 300 {
		_, _ = term.Write([]byte("line-" + strconv.Itoa(i) + "\r\n"))
	}
	refreshFrom(m)
	m.enterScroll("a1", false)
	m.scrollBy("a1", 40)
	refreshFrom(m)
	before := paneContent(m, m.snap.Panes[0].Box)
	if !strings.Contains(before, "line-255") {
		t.Fatalf("the view 40 lines back does not show line-255:\n%s", before)
	}
	for i := 300; i < 330; i++ {
		_, _ = term.Write([]byte("line-" + strconv.Itoa(i) + "\r\n"))
	}
	refreshFrom(m)
	if after := paneContent(m, m.snap.Panes[0].Box); after != before {
		t.Errorf("30 new lines moved the scrolled view:\nbefore\n%s\nafter\n%s", before, after)
	}
}

// paneContent is the text inside box on the model's screen.
func paneContent(m *Model, box layout.Rect) string {
	rows := screenRows(m.final)
	var out []string
	for y := box.Y + 1; y < box.Y+box.H-1 && y < len(rows); y++ {
		r := []rune(rows[y])
		out = append(out, string(r[min(box.X+1, len(r)):min(box.X+box.W-1, len(r))]))
	}
	return strings.Join(out, "\n")
}

// linesText is lines without their looks, joined by "\n".
func linesText(ls []line) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = l.text()
	}
	return strings.Join(s, "\n")
}

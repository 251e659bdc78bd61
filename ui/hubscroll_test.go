package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// paneRows is the text of the rows a client shows inside the box whose
// label starts with "┌─ "+number: its content, one string per row.
func paneRows(screen, number string) []string {
	lines := strings.Split(screen, "\n")
	for y, l := range lines {
		i := strings.Index(l, "┌─ "+number+" ")
		if i < 0 {
			continue
		}
		x := len([]rune(l[:i]))
		var out []string
		for _, r := range lines[y+1:] {
			rs := []rune(r)
			if x >= len(rs) || rs[x] != '│' {
				break
			}
			end := x + 1
			for end < len(rs) && rs[end] != '│' {
				end++
			}
			out = append(out, strings.TrimRight(string(rs[x+1:end]), " "))
		}
		return out
	}
	return nil
}

// TestHubSmallClientScrollbackFollowsTheBottom: a read-write client
// smaller than the one the panes' sizes follow, in scrollback mode, shows
// the newest lines at the bottom of its box, scrolled back by the same
// offset as a larger client would be: the line above the pane's last one
// is its box's last row after one line up, not a row from the top of the
// pane's screen.
func TestHubSmallClientScrollbackFollowsTheBottom(t *testing.T) {
	h, eng, a1 := startHubEngine(t, "hub-marker-9")
	big := attachTest(t, h, 120, 40, false, true)
	waitFor(t, "the big client's first frame", func() bool { return strings.Contains(big.text(), "hub-marker-9") })
	big.typeIn(t, "\x02c")
	waitFor(t, "the new-agent prompt", func() bool { return strings.Contains(big.text(), "command") })
	big.typeIn(t, "sh -c 'i=1; while [ $i -le 80 ]; do echo row-$i; i=$((i+1)); done; printf last-row; exec cat'\r")
	waitFor(t, "the agent's last row in the big client", func() bool { return strings.Contains(big.text(), "last-row") })

	small := attachTest(t, h, 100, 24, false, true)
	waitFor(t, "the small client's first frame", func() bool { return strings.Contains(small.text(), "last-row") })
	// The small client focuses agent 2 and scrolls back one line: it
	// typed last, so the panes take its size for now.
	small.typeIn(t, "\x022")
	small.typeIn(t, "\x02[")
	small.typeIn(t, "k")
	waitFor(t, "the small client scrolled back one line", func() bool { return strings.Contains(small.text(), "[1/") })
	// The big client types (the prefix and a key bound to nothing): the
	// panes are its size again, taller than the small client's boxes (the
	// pane takes lines back from its history).
	big.typeIn(t, "\x02~")
	waitFor(t, "the panes at the big client's size", func() bool {
		s := eng.Snapshot()
		return s.Cols == 120 && s.Rows == 39 && strings.Contains(big.text(), "row-64")
	})
	// Output of agent 1 redraws the small client after the resize.
	if err := eng.Send(a1.ID, []byte("poke\n")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the small client drawn after the resize", func() bool { return strings.Contains(small.text(), "poke") })
	rows := paneRows(small.text(), "2")
	n := len(rows)
	if n < 3 || rows[n-1] != "row-80" || rows[n-2] != "row-79" || strings.Contains(small.text(), "last-row") {
		t.Fatalf("scrolled back one line, the small client's box of agent 2 shows %q, want it to end with row-79, row-80:\n%s", rows, small.text())
	}
	// Its border says how far back it can go: the history and the rows
	// its box leaves out.
	if !strings.Contains(small.text(), "[1/71]") {
		t.Errorf("the small client's position is not [1/71] (63 lines of history, 8 rows above its box):\n%s", small.text())
	}
}

// smallBoxModel is a session whose main view's terminal is 20 rows high
// with 30 lines of history, drawn into a box with room for 10 rows: what
// a client smaller than the one the panes' sizes follow sees.
func smallBoxModel(t *testing.T) *Model {
	t.Helper()
	snap := testSnapshot()
	main := testPane(control.MainID, 0, agentstate.Running, layout.Rect{X: 0, Y: 0, W: 40, H: 22}, "")
	main.Term = vterm.New(38, 20, vterm.WithScrollback(100))
	var text strings.Builder
	for i := range 50 {
		fmt.Fprintf(&text, "line-%02d\r\n", i)
	}
	text.WriteString("$ ")
	if _, err := main.Term.(interface{ Write([]byte) (int, error) }).Write([]byte(text.String())); err != nil {
		t.Fatal(err)
	}
	main.Box = layout.Rect{X: 0, Y: 0, W: 40, H: 12}
	snap.Main = &main
	m, _ := newTestModel(t, snap)
	return m
}

// TestSmallBoxScrollbackIsBottomAnchored: in a box lower than its pane,
// scrollback mode shows the pane's bottom rows, so one line up shows the
// line above the last at the box's bottom; scrolling on past the oldest
// line of history shows the rows above the box, down to line 0; the copy
// cursor, the marks and the copy follow the rows drawn, and so does a
// search's match.
func TestSmallBoxScrollbackIsBottomAnchored(t *testing.T) {
	m := smallBoxModel(t)
	box := func() []string { return paneRows(ansi.Strip(viewText(m)), "0") }
	if rows := box(); len(rows) != 10 || rows[9] != "$" || rows[0] != "line-41" {
		t.Fatalf("the live view shows %q, want line-41 … line-49 and the prompt", rows)
	}
	press(t, m, "ctrl+b", "[")
	if rows := box(); rows[9] != "$" || rows[0] != "line-41" {
		t.Errorf("entering scrollback mode moved the view to %q", rows)
	}
	press(t, m, "k")
	if rows := box(); rows[9] != "line-49" || rows[0] != "line-40" {
		t.Errorf("one line up shows %q, want line-40 … line-49", rows)
	}
	if s := statusText(m) + viewText(m); !strings.Contains(ansi.Strip(s), "[1/41]") {
		t.Errorf("the border does not say [1/41] (31 lines of history, 10 rows above the box)")
	}
	press(t, m, "g")
	if rows := box(); rows[0] != "line-00" || rows[9] != "line-09" {
		t.Errorf("the oldest line: the box shows %q, want line-00 … line-09", rows)
	}
	press(t, m, "j")
	if rows := box(); rows[0] != "line-01" {
		t.Errorf("one line down from the oldest shows %q", rows)
	}
	// The copy cursor starts on the box's rows and marks what is drawn.
	m.buffers = control.NewBuffers()
	press(t, m, "0", "j", "v", "$")
	cur := m.cursor
	if cur == nil || cur.Y < 1 || cur.Y > 10 {
		t.Fatalf("the copy cursor is at %+v, want it inside the box", cur)
	}
	row := box()[cur.Y-1]
	if c := m.final.Row(cur.Y)[1]; c.Attrs&vterm.AttrReverse == 0 {
		t.Errorf("the marked row %d (%q) is not drawn reversed", cur.Y, row)
	}
	if got := osc52Text(t, rawOutput(press(t, m, "y"))); got != row {
		t.Errorf("copied %q, want the row under the copy cursor %q", got, row)
	}
	// A search's match is drawn on the row that shows it.
	press(t, m, "ctrl+b", "[", "G", "?")
	for _, r := range "line-33" {
		press(t, m, string(r))
	}
	press(t, m, "enter")
	rows := box()
	y := slices.Index(rows, "line-33")
	if y < 0 {
		t.Fatalf("the match line-33 is not in the box: %q", rows)
	}
	if c := m.final.Row(1 + y)[1]; c.Attrs&vterm.AttrReverse == 0 && c.Bg == m.final.Row(1 + y)[20].Bg {
		t.Errorf("the match on row %d is not highlighted", 1+y)
	}
}

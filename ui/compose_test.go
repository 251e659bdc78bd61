package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// fakeView is a terminal copy of fixed plain rows, cols cells wide.
func fakeView(cols int, rows ...string) *vterm.Frame {
	f := &vterm.Frame{Cols: cols, Rows: len(rows)}
	for _, r := range rows {
		cs := termrt.AppendText(nil, r, termrt.Style{})
		for len(cs) < cols {
			cs = append(cs, termrt.Blank)
		}
		f.Cells = append(f.Cells, cs)
	}
	return f
}

// screenRows is a composed frame as plain text rows.
func screenRows(cv *termrt.Canvas) []string {
	rows := make([]string, cv.H)
	for y := range rows {
		var b strings.Builder
		for _, c := range cv.Row(y) {
			b.WriteString(c.Content)
		}
		rows[y] = b.String()
	}
	return rows
}

// screenText is a composed frame as plain text, rows joined by "\n".
func screenText(cv *termrt.Canvas) string { return strings.Join(screenRows(cv), "\n") }

// checkWidths checks the canvas size and that every row is w cells wide
// with each wide character whole.
func checkWidths(t *testing.T, cv *termrt.Canvas, w, h int) {
	t.Helper()
	if cv.W != w || cv.H != h {
		t.Fatalf("frame is %dx%d, want %dx%d", cv.W, cv.H, w, h)
	}
	for y := 0; y < h; y++ {
		r := cv.Row(y)
		for x := 0; x < len(r); x++ {
			switch r[x].Width {
			case 2:
				if x+1 >= len(r) || r[x+1].Width != 0 {
					t.Errorf("row %d: wide character at %d without its right half", y, x)
				}
				x++
			case 0:
				t.Errorf("row %d: right half at %d without its left half", y, x)
			}
		}
		if got := ansi.StringWidth(screenRows(cv)[y]); got != w {
			t.Errorf("row %d is %d cells wide, want %d", y, got, w)
		}
	}
}

func compare(t *testing.T, frame *termrt.Canvas, want string) {
	t.Helper()
	want = strings.TrimPrefix(want, "\n")
	got := strings.Join(screenRows(frame), "\n")
	if got != want {
		t.Errorf("frame mismatch\n--- got\n%s\n--- want\n%s", got, want)
	}
}

func TestComposeBordersTitlesBadges(t *testing.T) {
	main := fakeView(14, "$ ls", "a b c", "$")
	a1 := fakeView(12, "building")
	a2 := fakeView(12, "ok")
	in := frameInput{
		width: 30, height: 7,
		panes: []paneFrame{
			{id: "main", box: layout.Rect{X: 0, Y: 0, W: 16, H: 5}, view: main, focused: true,
				label: paneLabel{number: "0", title: "zsh"}},
			{id: "a1", box: layout.Rect{X: 16, Y: 0, W: 14, H: 3}, view: a1,
				label: paneLabel{number: "1", title: "build", badge: "● 3s"}},
			{id: "a2", box: layout.Rect{X: 16, Y: 3, W: 14, H: 3}, view: a2, waiting: true,
				label: paneLabel{number: "2", title: "test"}},
		},
		status: plain("1 running"),
	}
	var c composer
	frame := c.compose(&in)
	checkWidths(t, frame, 30, 7)
	compare(t, frame, `
┌─ 0 zsh ──────┐┌─ 1 ● 3s ───┐
│$ ls          ││building    │
│a b c         │└────────────┘
│$             │┌─ 2 test ───┐
└──────────────┘│ok          │
                └────────────┘
1 running                     `)
}

func TestComposeStylesFocusAndWaiting(t *testing.T) {
	st := frameLooks{border: termrt.Style{Fg: vterm.IndexedColor(1)}, borderFocus: termrt.Style{Fg: vterm.IndexedColor(2)}, borderWaiting: termrt.Style{Fg: vterm.IndexedColor(3)}}
	c := composer{looks: st}
	mk := func(focused, waiting bool) vterm.Cell {
		in := frameInput{width: 10, height: 4, panes: []paneFrame{{id: "x", box: layout.Rect{W: 10, H: 3}, focused: focused, waiting: waiting, label: paneLabel{number: "1"}}}}
		return c.compose(&in).Row(1)[0]
	}
	if got := mk(false, false); got.Content != "│" || got.Fg != vterm.IndexedColor(1) {
		t.Errorf("plain border = %+v", got)
	}
	if got := mk(true, false); got.Content != "│" || got.Fg != vterm.IndexedColor(2) {
		t.Errorf("focused border = %+v", got)
	}
	if got := mk(true, true); got.Content != "│" || got.Fg != vterm.IndexedColor(3) {
		t.Errorf("waiting border should win over focus, got %+v", got)
	}
	// A program's own colour (tmux pane styles) marks the pane while it is
	// neither focused nor waiting.
	accent := func(focused bool) vterm.Cell {
		in := frameInput{width: 10, height: 4, panes: []paneFrame{{id: "x", box: layout.Rect{W: 10, H: 3}, focused: focused, accent: accentColor("4"), label: paneLabel{number: "1"}}}}
		return c.compose(&in).Row(1)[0]
	}
	if got := accent(false); got.Fg != vterm.IndexedColor(4) {
		t.Errorf("accented border = %+v", got)
	}
	if got := accent(true); got.Fg != vterm.IndexedColor(2) {
		t.Errorf("focus should win over the accent, got %+v", got)
	}
	for in, want := range map[string]vterm.Color{
		"#ff8800": vterm.RGBColor(255, 136, 0), "208": vterm.IndexedColor(208), "": vterm.DefaultColor,
		"256": vterm.DefaultColor, "\x1b[34m": vterm.DefaultColor, "#ff88": vterm.DefaultColor,
	} {
		if got := accentColor(in); got != want {
			t.Errorf("accentColor(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestBorderTopTruncation(t *testing.T) {
	c := composer{}
	tests := []struct {
		name  string
		w     int
		label paneLabel
		want  string
	}{
		{"everything fits", 48, paneLabel{number: "3", title: "build-api", badge: "● running 12s", entries: []string{"tests 42/50"}},
			"┌─ 3 build-api ● running 12s · tests 42/50 ────┐"},
		{"entries dropped first", 36, paneLabel{number: "3", title: "build-api", badge: "● running 12s", entries: []string{"tests 42/50"}},
			"┌─ 3 build-api ● running 12s ──────┐"},
		{"title shortened", 26, paneLabel{number: "3", title: "build-api", badge: "● running 12s"},
			"┌─ 3 bui… ● running 12s ─┐"},
		{"title gone, badge kept", 22, paneLabel{number: "3", title: "build-api", badge: "● running 12s"},
			"┌─ 3 ● running 12s ──┐"},
		{"badge dropped when nothing fits", 10, paneLabel{number: "3", title: "build-api", badge: "● running 12s"},
			"┌─ 3 b… ─┐"},
		{"right part", 30, paneLabel{number: "1", title: "log", right: "[12/340]"},
			"┌─ 1 log ───────── [12/340] ─┐"},
		{"branch when there is room", 50, paneLabel{number: "1", title: "wt", badge: "✓ exit 0 · 9s", branch: "⎇ agentgrid/fix-login"},
			"┌─ 1 wt ✓ exit 0 · 9s ─── ⎇ agentgrid/fix-login ─┐"},
		{"branch gives way to the title", 46, paneLabel{number: "1", title: "wt", badge: "✓ exit 0 · 1m40s", branch: "⎇ agentgrid/fix-login"},
			"┌─ 1 wt ✓ exit 0 · 1m40s ────────────────────┐"},
		{"control chars in title", 20, paneLabel{number: "1", title: "evil\x1b[2J\ttitle\a"},
			"┌─ 1 evil title ───┐"},
		{"wide title", 16, paneLabel{number: "1", title: "日本語のタイトル"},
			"┌─ 1 日本語… ──┐"},
		{"tiny box", 3, paneLabel{number: "1", title: "x"}, "┌─┐"},
	}
	for _, tt := range tests {
		p := paneFrame{label: tt.label}
		var b strings.Builder
		for _, cl := range c.borderTop(nil, tt.w, &p, termrt.Style{}) {
			b.WriteString(cl.Content)
		}
		got := b.String()
		if got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
		if gw := ansi.StringWidth(got); gw != tt.w {
			t.Errorf("%s: width %d, want %d", tt.name, gw, tt.w)
		}
	}
}

func TestComposeClipsWideCharsAndMismatchedSizes(t *testing.T) {
	// The terminal is wider and taller than its content rect (a resize in
	// flight): rows are cut, a wide char straddling the edge becomes a
	// blank, and missing rows are blank.
	wide := fakeView(8, "日本語xy", "abcdefgh", "1", "2", "3")
	narrow := fakeView(2, "ab")
	in := frameInput{
		width: 16, height: 6,
		panes: []paneFrame{
			{id: "a", box: layout.Rect{X: 0, Y: 0, W: 7, H: 5}, view: wide, label: paneLabel{number: "1"}},
			{id: "b", box: layout.Rect{X: 7, Y: 0, W: 9, H: 5}, view: narrow, label: paneLabel{number: "2"}},
		},
	}
	var c composer
	frame := c.compose(&in)
	checkWidths(t, frame, 16, 6)
	compare(t, frame, `
┌─ 1 ─┐┌─ 2 ───┐
│日本 ││ab     │
│abcde││       │
│1    ││       │
└─────┘└───────┘
                `)
}

func TestComposeOverflowingBoxIsCut(t *testing.T) {
	in := frameInput{width: 10, height: 3, panes: []paneFrame{
		{id: "a", box: layout.Rect{X: 4, Y: 0, W: 12, H: 2}, label: paneLabel{number: "1"}},
	}}
	var c composer
	frame := c.compose(&in)
	checkWidths(t, frame, 10, 3)
	compare(t, frame, `
    ┌─ 1 ─
    └─────
          `)
}

func TestComposeScrollbackView(t *testing.T) {
	term := vterm.New(6, 2, vterm.WithScrollback(10))
	_, _ = term.Write([]byte("l0\r\nl1\r\nl2\r\nl3\r\nl4"))
	var view vterm.Frame
	term.Frame(&view, 2)
	in := frameInput{width: 8, height: 5, panes: []paneFrame{
		{id: "a", box: layout.Rect{W: 8, H: 4}, term: term, view: &view, offset: 2, label: paneLabel{number: "1"}},
	}}
	var c composer
	compare(t, c.compose(&in), `
┌─ 1 ──┐
│l1    │
│l2    │
└──────┘
        `)
}

func TestComposeTooSmallNotice(t *testing.T) {
	var c composer
	in := frameInput{width: 60, height: 4, notice: "terminal too small: need 20x6, have 60x4"}
	got := c.compose(&in)
	if got.H != 1 || strings.TrimSpace(screenText(got)) != in.notice {
		t.Errorf("notice frame = %q", screenText(got))
	}
	// Narrower than the notice: it wraps at words over the rows there
	// are, so "too small" still shows.
	in = frameInput{width: 10, height: 2, notice: "terminal too small: need 20x6, have 10x2"}
	if got := c.compose(&in); got.W != 10 || got.H != 2 || screenText(got) != "terminal  \ntoo small " {
		t.Errorf("notice at 10x2: %q", screenText(got))
	}
	in = frameInput{width: 10, height: 3, notice: "terminal too small: need 20x6, have 10x3"}
	if got := c.compose(&in); got.H != 3 || screenText(got) != "terminal  \ntoo small \nneed 20x6," {
		t.Errorf("notice at 10x3: %q", screenText(got))
	}
	in = frameInput{width: 0, height: 0, notice: "terminal too small: need 20x6, have 0x0"}
	if got := c.compose(&in); screenText(got) != "" {
		t.Errorf("0x0 frame = %q, want empty", screenText(got))
	}
}

// TestCanvasPutCutsWideCharacters draws cells over a row with wide
// characters: a wide character cut by either edge of what is drawn leaves
// a blank in its own style, and what is drawn is cut at the canvas edge.
func TestCanvasPutCutsWideCharacters(t *testing.T) {
	var cv termrt.Canvas
	cv.Resize(9, 1)
	red := termrt.Style{Fg: vterm.IndexedColor(1)}
	cv.Text(0, 0, 9, "日本語abc", red)
	cv.Put(0, 1, 9, termrt.AppendText(nil, "XY", termrt.Style{}))
	if got := screenText(&cv); got != " XY 語abc" {
		t.Errorf("put = %q", got)
	}
	if c := cv.Row(0)[0]; c.Fg != red.Fg || c.Content != " " {
		t.Errorf("the cut left half = %+v, want a blank in its style", c)
	}
	checkWidths(t, &cv, 9, 1)

	cv.Resize(6, 1)
	cv.Text(0, 0, 6, "abcdef", termrt.Style{})
	cv.Put(0, 4, 6, termrt.AppendText(nil, "XYZW", termrt.Style{}))
	if got := screenText(&cv); got != "abcdXY" {
		t.Errorf("put at the edge = %q", got)
	}
	// A wide character that does not fit before the edge is not drawn
	// half: it becomes a blank.
	cv.Put(0, 5, 6, termrt.AppendText(nil, "語", termrt.Style{}))
	if got := screenText(&cv); got != "abcdX " {
		t.Errorf("wide put at the edge = %q", got)
	}
	checkWidths(t, &cv, 6, 1)
}

// TestComposeRedrawsOnlyWhatChangedYetEqualsAFullDraw: a composer that
// keeps its canvas and redraws only what changed gives, frame after frame,
// exactly the canvas a fresh composer draws from the same input; and a
// frame where one pane printed, or one pane's badge changed, marks only the
// row that changed.
func TestComposeRedrawsOnlyWhatChangedYetEqualsAFullDraw(t *testing.T) {
	bf := newBench16(t)
	st := frameLooks{border: termrt.Style{Fg: vterm.IndexedColor(240)}, borderFocus: termrt.Style{Fg: vterm.IndexedColor(39)}, borderWaiting: termrt.Style{Fg: vterm.IndexedColor(214)}, match: termrt.Style{Attrs: vterm.AttrReverse}}
	kept := composer{looks: st}
	bf.copyViews()
	kept.compose(&bf.in).ClearDirty()
	for i := range 60 {
		switch i % 6 {
		case 0: // one pane prints a character
			_, _ = bf.terms[i%len(bf.terms)].Write([]byte("x"))
		case 1: // several panes print lines
			for j := range 4 {
				bf.feed(bf.terms[(i+j)%len(bf.terms)])
			}
		case 2: // a badge changes
			bf.in.panes[i%len(bf.in.panes)].label.badge = "● running " + string(rune('a'+i%26))
		case 3: // a search match appears, moves or goes
			p := &bf.in.panes[1]
			if p.mark == nil {
				p.mark = &matchMark{row: i % 5, col: 2, width: 3}
			} else {
				p.mark = nil
			}
		case 4: // focus moves, the status line changes
			for j := range bf.in.panes {
				bf.in.panes[j].focused = j == i%len(bf.in.panes)
			}
			bf.in.status = plain("status " + string(rune('a'+i%26)))
		case 5: // a pane redraws everything
			bf.redraw(bf.terms[i%len(bf.terms)])
		}
		bf.copyViews()
		got := kept.compose(&bf.in)
		fresh := composer{looks: st}
		want := fresh.compose(&bf.in)
		if !slices.Equal(got.Cells, want.Cells) {
			t.Fatalf("frame %d (change %d): the kept canvas differs from a full draw:\n%s\n--- want\n%s", i, i%6, screenText(got), screenText(want))
		}
		if i%6 == 0 || i%6 == 2 {
			n := 0
			for y := range got.H {
				if got.Dirty(y) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("frame %d: one printed character or one badge marked %d rows", i, n)
			}
		}
		got.ClearDirty()
	}
}

// After reset (prefix r) the composer draws every cell again from the
// borders it kept: the very frame a new composer draws,
// also when a pane's label and the status line changed since.
func TestComposeAfterResetIsAFreshFrame(t *testing.T) {
	bf := newBench16(t)
	kept := composer{looks: benchLooks}
	bf.copyViews()
	kept.compose(&bf.in)
	bf.in.panes[3].label.badge = "✓ done 40s"
	bf.in.status = line{{text: "status", st: termrt.Style{Attrs: vterm.AttrBold}}, {text: " changed"}}
	kept.compose(&bf.in)
	// Scribble on the kept canvas: reset must not trust it.
	kept.cv.Fill(10, 0, 240, termrt.Style{Attrs: vterm.AttrBold}.Cell("#", 1))
	kept.reset()
	got := kept.compose(&bf.in)
	fresh := composer{looks: benchLooks}
	want := fresh.compose(&bf.in)
	if got.W != want.W || got.H != want.H {
		t.Fatalf("size %dx%d, fresh %dx%d", got.W, got.H, want.W, want.H)
	}
	for i := range want.Cells {
		if got.Cells[i] != want.Cells[i] {
			t.Fatalf("cell %d,%d = %+v, a fresh composer draws %+v", i%want.W, i/want.W, got.Cells[i], want.Cells[i])
		}
	}
}

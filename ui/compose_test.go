package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// fakeView is a terminal copy of fixed plain rows, cols cells wide.
func fakeView(cols int, rows ...string) *vterm.Frame {
	f := &vterm.Frame{Cols: cols, Rows: len(rows)}
	for _, r := range rows {
		f.Lines = append(f.Lines, r+strings.Repeat(" ", cols-ansi.StringWidth(r))+sgrReset)
	}
	return f
}

// screenRows is a composed frame as plain text rows.
func screenRows(frame string) []string {
	rows := strings.Split(frame, "\n")
	for i, r := range rows {
		rows[i] = ansi.Strip(r)
	}
	return rows
}

func checkWidths(t *testing.T, frame string, w, h int) {
	t.Helper()
	rows := strings.Split(frame, "\n")
	if len(rows) != h {
		t.Fatalf("frame has %d rows, want %d", len(rows), h)
	}
	for i, r := range rows {
		if got := ansi.StringWidth(r); got != w {
			t.Errorf("row %d is %d cells wide, want %d: %q", i, got, w, ansi.Strip(r))
		}
	}
}

func compare(t *testing.T, frame, want string) {
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
		status: "1 running",
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
	st := frameStyles{border: "<b>", borderFocus: "<f>", borderWaiting: "<w>"}
	c := composer{styles: st}
	mk := func(focused, waiting bool) string {
		in := frameInput{width: 10, height: 4, panes: []paneFrame{{id: "x", box: layout.Rect{W: 10, H: 3}, focused: focused, waiting: waiting, label: paneLabel{number: "1"}}}}
		return strings.Split(c.compose(&in), "\n")[1]
	}
	if got := mk(false, false); !strings.HasPrefix(got, "<b>│") {
		t.Errorf("plain border = %q", got)
	}
	if got := mk(true, false); !strings.HasPrefix(got, "<f>│") {
		t.Errorf("focused border = %q", got)
	}
	if got := mk(true, true); !strings.HasPrefix(got, "<w>│") {
		t.Errorf("waiting border should win over focus, got %q", got)
	}
}

func TestBorderTopTruncation(t *testing.T) {
	var c composer
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
		{"control chars in title", 20, paneLabel{number: "1", title: "evil\x1b[2J\ttitle\a"},
			"┌─ 1 evil title ───┐"},
		{"wide title", 16, paneLabel{number: "1", title: "日本語のタイトル"},
			"┌─ 1 日本語… ──┐"},
		{"tiny box", 3, paneLabel{number: "1", title: "x"}, "┌─┐"},
	}
	for _, tt := range tests {
		p := paneFrame{label: tt.label}
		got := ansi.Strip(c.borderTop(tt.w, &p, ""))
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
	in := frameInput{width: 60, height: 4, notice: "terminal too small: 60x4, need at least 20x6"}
	got := c.compose(&in)
	if strings.Contains(got, "\n") || strings.TrimSpace(ansi.Strip(got)) != in.notice {
		t.Errorf("notice frame = %q", got)
	}
	in = frameInput{width: 10, height: 2, notice: "terminal too small: 10x2, need at least 20x6"}
	if got := c.compose(&in); ansi.StringWidth(got) != 10 {
		t.Errorf("notice not cut to the width: %q", got)
	}
	in = frameInput{width: 0, height: 0, notice: "terminal too small: 0x0, need at least 20x6"}
	if got := c.compose(&in); got != "" {
		t.Errorf("0x0 frame = %q, want empty", got)
	}
}

func TestSplice(t *testing.T) {
	line := "\x1b[31m日本語abc\x1b[m"
	got := splice(line, "XY", 1, 9)
	if s := ansi.Strip(got); s != " XY 語abc" || ansi.StringWidth(got) != 9 {
		t.Errorf("splice = %q (%q)", got, ansi.Strip(got))
	}
	got = splice("abcdef", "XYZW", 4, 6)
	if s := ansi.Strip(got); s != "abcdXY" {
		t.Errorf("splice at the edge = %q", s)
	}
}

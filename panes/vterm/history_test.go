package vterm

import (
	"fmt"
	"strings"
	"testing"
)

func numberedLines(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "line %d\r\n", i)
	}
	return b.String()
}

func TestScrollback(t *testing.T) {
	term := New(20, 5, WithScrollback(10))
	term.Write([]byte(numberedLines(30)))
	if n := term.ScrollbackLen(); n != 10 {
		t.Fatalf("ScrollbackLen %d, want 10", n)
	}
	// 30 lines + the empty cursor row: rows 26..29 and "" are on screen,
	// history holds 16..25.
	if got := term.HistoryLine(0, false); got != "line 16" {
		t.Errorf("oldest history line %q", got)
	}
	if got := term.HistoryLine(9, false); got != "line 25" {
		t.Errorf("newest history line %q", got)
	}
	if got := term.HistoryLine(10, false); got != "" {
		t.Errorf("out of range %q", got)
	}
	// No scrollback configured: nothing kept.
	term = New(20, 5)
	term.Write([]byte(numberedLines(30)))
	if n := term.ScrollbackLen(); n != 0 {
		t.Errorf("ScrollbackLen without scrollback: %d", n)
	}
	// A scroll region's top line goes to history too (tmux policy); the
	// row above the region stays put.
	term = New(20, 5, WithScrollback(100))
	term.Write([]byte("top\x1b[2;5r\x1b[5;1H" + numberedLines(10)))
	if n := term.ScrollbackLen(); n != 10 {
		t.Errorf("region scroll fed %d history lines, want 10", n)
	}
	if got := term.HistoryLine(9, false); got != "line 6" {
		t.Errorf("newest region history line %q", got)
	}
	if got := screenString(term); !strings.HasPrefix(got, "top|") {
		t.Errorf("row above region moved: %q", got)
	}
	// DL never feeds history, the alternate screen has none.
	term = New(20, 5, WithScrollback(100))
	term.Write([]byte("a\r\nb\x1b[H\x1b[5M\x1b[?1049h" + numberedLines(10) + "\x1b[?1049l"))
	if n := term.ScrollbackLen(); n != 0 {
		t.Errorf("DL or alt screen fed history: %d", n)
	}
	// ED 2 scrolls the used rows into history.
	term = New(20, 5, WithScrollback(100))
	term.Write([]byte("a\r\nb\r\n\x1b[2J"))
	if n := term.ScrollbackLen(); n != 2 || term.HistoryLine(1, false) != "b" {
		t.Errorf("ED 2 history: %d lines", n)
	}
	// ED 3 clears history.
	term = New(20, 5, WithScrollback(100))
	term.Write([]byte(numberedLines(10) + "\x1b[3J"))
	if n := term.ScrollbackLen(); n != 0 {
		t.Errorf("ED 3 left %d lines", n)
	}
}

func TestHistoryStylesSurvive(t *testing.T) {
	term := New(20, 2, WithScrollback(10))
	term.Write([]byte("\x1b[1;31mred\x1b[0m plain \x1b[38;2;1;2;3m中文\x1b[0m e\u0301\r\n\r\n\r\n"))
	if got := term.HistoryLine(0, false); got != "red plain 中文 e\u0301" {
		t.Errorf("plain history %q", got)
	}
	want := "\x1b[0;1;31mred\x1b[0m plain \x1b[0;38;2;1;2;3m中文\x1b[0m e\u0301\x1b[m"
	if got := term.HistoryLine(0, true); got != want {
		t.Errorf("styled history\n got %q\nwant %q", got, want)
	}
}

func TestHistoryRingGrowsAndWraps(t *testing.T) {
	h := history{max: 50}
	for i := 0; i < 1000; i++ {
		cs := make([]cell, 10)
		for j := range cs {
			cs[j] = cell{ch: uint32('a' + (i+j)%26)}
		}
		// Vary lengths so the byte ring wraps at odd offsets.
		h.push(encodeRow(nil, cs[:1+i%10]), i%3 == 0)
		if h.n > 50 {
			t.Fatalf("history holds %d > max", h.n)
		}
	}
	for i := 0; i < h.n; i++ {
		line := 950 + i
		enc, wrapped := h.bytes(i)
		cs := make([]cell, 10)
		n := decodeRow(cs, enc)
		if n != 1+line%10 || wrapped != (line%3 == 0) || cs[0].ch != uint32('a'+line%26) {
			t.Fatalf("row %d: n=%d wrapped=%v first=%c", i, n, wrapped, rune(cs[0].ch))
		}
	}
	if len(h.buf) > 64<<10 {
		t.Errorf("byte ring grew to %d bytes for 50 short rows", len(h.buf))
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	term := New(12, 1)
	term.Write([]byte("a\x1b[31m中\x1b[4:3;58;5;9mé\x1b]8;;u\x1b\\x\x1b]8;;\x1b\\\x1b[44m  \x1b[0m"))
	src := term.scr.row(0).cells
	enc := encodeRow(nil, src)
	dst := make([]cell, 12)
	decodeRow(dst, enc)
	for x := range src {
		if src[x] != dst[x] {
			t.Errorf("cell %d: %+v != %+v", x, dst[x], src[x])
		}
	}
	// Decoding into a narrower row drops a straddling wide char.
	narrow := make([]cell, 2)
	decodeRow(narrow, enc)
	if narrow[1].wide() || narrow[1].cont() {
		t.Errorf("straddling wide char kept: %+v", narrow[1])
	}
}

func TestReflow(t *testing.T) {
	term := New(10, 4, WithScrollback(100))
	term.Write([]byte("0123456789abcdef\r\nshort\r\n$ "))
	// Narrower: the long line re-wraps.
	term.Resize(6, 4)
	if got, want := allLines(term), "012345|6789ab|cdef|short|$"; got != want {
		t.Errorf("narrow:\n got %q\nwant %q", got, want)
	}
	if c := term.Cursor(); c.X != 2 || c.Y != 3 {
		t.Errorf("cursor after narrow: %+v", c)
	}
	// Wider again: it joins back, history is pulled onto the screen.
	term.Resize(20, 4)
	if got, want := allLines(term), "0123456789abcdef|short|$"; got != want {
		t.Errorf("wide:\n got %q\nwant %q", got, want)
	}
	if c := term.Cursor(); c.X != 2 || c.Y != 2 {
		t.Errorf("cursor after wide: %+v", c)
	}
	checkInvariants(t, term)
}

func TestReflowWideAndCursorMidLine(t *testing.T) {
	term := New(6, 3, WithScrollback(10))
	term.Write([]byte("ab中文xy\x1b[1;2H"))
	term.Resize(5, 3)
	if got, want := allLines(term), "ab中|文xy"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	if c := term.Cursor(); c.X != 1 || c.Y != 0 {
		t.Errorf("cursor %+v", c)
	}
	term.Resize(40, 3)
	if got, want := allLines(term), "ab中文xy"; got != want {
		t.Errorf("back to wide: got %q want %q", got, want)
	}
	term.Resize(3, 3)
	checkInvariants(t, term)
	term.Resize(1, 1)
	checkInvariants(t, term)
}

func TestResizeAltScreenClips(t *testing.T) {
	term := New(10, 4, WithScrollback(10))
	term.Write([]byte("main line that wraps\x1b[?1049h\x1b[H0123456789\r\nabc\x1b[2;2H"))
	term.Resize(5, 2)
	if got, want := screenString(term), "01234|abc"; got != want {
		t.Errorf("alt clipped: got %q want %q", got, want)
	}
	term.Resize(10, 4)
	term.Write([]byte("\x1b[?1049l"))
	if got := allLines(term); !strings.HasPrefix(got, "main line|that wraps") {
		t.Errorf("main after alt resize: %q", got)
	}
	checkInvariants(t, term)
}

// allLines is history plus screen, trailing empty rows dropped, '|'-joined.
func allLines(term *Terminal) string {
	var lines []string
	for i := 0; i < term.ScrollbackLen(); i++ {
		lines = append(lines, term.HistoryLine(i, false))
	}
	lines = append(lines, strings.Split(strings.TrimSuffix(term.Text(), "\n"), "\n")...)
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "|")
}

func TestSearch(t *testing.T) {
	term := New(20, 3, WithScrollback(100))
	term.Write([]byte("alpha\r\nbeta 中Gamma\r\ngamma\r\ndelta\r\nepsilon"))
	// history: alpha, beta.. ; screen: gamma, delta, epsilon
	cases := []struct {
		q        string
		from     int
		backward bool
		line     int
		col      int
		ok       bool
	}{
		{"alpha", 0, false, 0, 0, true},
		{"gamma", 0, false, 1, 7, true},
		{"Gamma", 2, false, 0, 0, false},
		{"gamma", 2, false, 2, 0, true},
		{"gamma", 4, true, 2, 0, true},
		{"zeta", 0, false, 0, 0, false},
		{"silo", 4, true, 4, 2, true},
	}
	for _, c := range cases {
		line, col, ok := term.Search(c.q, c.from, c.backward)
		if ok != c.ok || (ok && (line != c.line || col != c.col)) {
			t.Errorf("Search(%q,%d,%v) = %d,%d,%v want %d,%d,%v", c.q, c.from, c.backward, line, col, ok, c.line, c.col, c.ok)
		}
	}
}

func TestRenderRow(t *testing.T) {
	term := New(8, 2)
	term.Write([]byte("a\x1b[1;31mb\x1b[0m中\x1b[4:3;58:2::1:2:3mu\x1b[0m"))
	want := "a\x1b[0;1;31mb\x1b[0m中\x1b[0;4:3;58;2;1;2;3mu\x1b[0m   \x1b[m"
	if got := term.RenderRow(0); got != want {
		t.Errorf("RenderRow\n got %q\nwant %q", got, want)
	}
	if got := term.RenderRow(1); got != "        \x1b[m" {
		t.Errorf("blank row %q", got)
	}
	// Cached until the row changes.
	seq := term.Seq()
	r1 := term.RenderRow(0)
	term.Write([]byte("\x1b[2;1Hx"))
	if term.Seq() == seq {
		t.Error("Seq did not advance")
	}
	if r2 := term.RenderRow(0); r2 != r1 {
		t.Errorf("unchanged row re-rendered differently")
	}
	if got := term.RenderRow(1); got != "x       \x1b[m" {
		t.Errorf("changed row %q", got)
	}
	// Hyperlinks are carried.
	term = New(4, 1)
	term.Write([]byte("\x1b]8;;http://a\x1b\\ab\x1b]8;;\x1b\\c"))
	if got, want := term.RenderRow(0), "\x1b]8;;http://a\x1b\\\x1b[0mab\x1b]8;;\x1b\\\x1b[0mc \x1b[m"; got != want {
		t.Errorf("link row\n got %q\nwant %q", got, want)
	}
}

func TestRenderView(t *testing.T) {
	term := New(10, 3, WithScrollback(100))
	term.Write([]byte(numberedLines(6)))
	// history: line 0..3; screen: line 4, line 5, "".
	got := term.RenderView(2, nil)
	want := []string{"line 2    \x1b[m", "line 3    \x1b[m", "line 4    \x1b[m"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("RenderView(2)\n got %q\nwant %q", got, want)
	}
	got = term.RenderView(100, got)
	if got[0] != "line 0    \x1b[m" {
		t.Errorf("RenderView clamps: %q", got)
	}
	got = term.RenderView(0, got)
	if got[0] != "line 4    \x1b[m" || len(got) != 3 {
		t.Errorf("RenderView(0): %q", got)
	}
}

func TestResizeHeightKeepsHistoryOrder(t *testing.T) {
	term := New(10, 5, WithScrollback(8))
	term.Write([]byte(numberedLines(12)))
	before := allLines(term)
	for _, rows := range []int{9, 3, 12, 2, 5} {
		term.Resize(10, rows)
		checkInvariants(t, term)
	}
	term.Write([]byte("x\r\ny\r\n"))
	got := allLines(term)
	if !strings.HasSuffix(got, "line 11|x|y") || strings.Count(got, "|") > 8+5 {
		t.Errorf("after height changes:\n%q\nbefore:\n%q", got, before)
	}
	for i := 1; i < term.ScrollbackLen(); i++ {
		a, b := term.HistoryLine(i-1, false), term.HistoryLine(i, false)
		if strings.HasPrefix(a, "line ") && strings.HasPrefix(b, "line ") && a >= b && len(a) == len(b) {
			t.Errorf("history out of order: %q then %q", a, b)
		}
	}
}

// TestUsedLengthTracking scrolls rows into history after the operations
// that move a row's high-water mark and checks what history keeps: a short
// row after a long one, background-coloured erases (which count as used),
// insert/delete of characters and wide characters.
func TestUsedLengthTracking(t *testing.T) {
	term := New(10, 3, WithScrollback(100))
	steps := []string{
		"0123456789\r\n",                      // full row
		"ab\r\n",                              // short row on a recycled full row
		"abcdef\x1b[3D\x1b[K\r\n",             // EL 0 with default bg shrinks it to "abc"
		"\x1b[44m\x1b[2K\x1b[m\r\n",           // BCE erase: a blue row, used to the end
		"abc\x1b[1G\x1b[44m\x1b[2@\x1b[m\r\n", // ICH with a coloured blank
		"abcdefghij\x1b[1G\x1b[3P\r\n",        // DCH shifts left, default blanks enter
		"x中文\r\n",                             // wide characters
		"\x1b[41m\r\n\r\n\r\n\x1b[m",          // rows scrolled in while the pen is red
	}
	for _, s := range steps {
		term.Write([]byte(s))
		checkInvariants(t, term)
	}
	want := []string{"0123456789", "ab", "abc", "", "  abc", "defghij", "x中文"}
	for i, w := range want {
		if got := term.HistoryLine(i, false); got != w {
			t.Errorf("history line %d = %q, want %q", i, got, w)
		}
	}
	if got := term.HistoryLine(3, true); !strings.Contains(got, "44m") {
		t.Errorf("BCE-erased row lost its background in history: %q", got)
	}
	if got := term.HistoryLine(4, true); !strings.Contains(got, "44m") {
		t.Errorf("ICH blanks lost their background in history: %q", got)
	}
	// The rows that entered with a red pen are red to the end (BCE).
	term.mu.Lock()
	ln := term.scr.row(1)
	used, bg := ln.used, ln.cells[9].bg
	term.mu.Unlock()
	if used != 10 || bg == 0 {
		t.Errorf("row scrolled in with a red pen: used %d, last bg %v; want 10 and red", used, bg)
	}
}

// TestWrapped: Wrapped says which lines, in history and on the screen,
// go on at the next line's start (a soft wrap), numbered as Search numbers
// them; a line ended by a newline, a line out of range and the alternate
// screen's own rows answer for themselves.
func TestWrapped(t *testing.T) {
	term := New(10, 3, WithScrollback(20))
	// 25 characters wrap over three rows; then two short lines push the
	// first two rows into history.
	term.Write([]byte(strings.Repeat("a", 25) + "\r\nshort\r\nend"))
	want := []bool{true, true, false, false, false} // aaaaaaaaaa aaaaaaaaaa aaaaa short end
	if n := term.ScrollbackLen(); n != 2 {
		t.Fatalf("history holds %d lines, want 2", n)
	}
	for l, w := range want {
		if got := term.Wrapped(l); got != w {
			t.Errorf("Wrapped(%d) = %v, want %v", l, got, w)
		}
	}
	if term.Wrapped(-1) || term.Wrapped(99) {
		t.Error("a line out of range is wrapped")
	}
	term.Write([]byte("\x1b[?1049h\x1b[H" + strings.Repeat("b", 12)))
	if !term.Wrapped(0) || term.Wrapped(1) {
		t.Errorf("alternate screen: Wrapped(0) = %v, Wrapped(1) = %v; want true, false", term.Wrapped(0), term.Wrapped(1))
	}
}

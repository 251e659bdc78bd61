package vterm

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// screenCase feeds input to a fresh terminal and checks the screen text
// (rows joined by '|', trailing blanks trimmed, trailing empty rows
// dropped) and the cursor.
type screenCase struct {
	name       string
	cols, rows int
	in         string
	want       string
	x, y       int
}

func newTestTerm(cols, rows int, in string) *Terminal {
	t := New(cols, rows, WithScrollback(100))
	t.Write([]byte(in))
	return t
}

// screenString joins the visible rows with '|' and drops trailing empty
// rows, so expectations stay short.
func screenString(t *Terminal) string {
	lines := strings.Split(strings.TrimSuffix(t.Text(), "\n"), "\n")
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "|")
}

func runScreenCases(t *testing.T, cases []screenCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cols, rows := c.cols, c.rows
			if cols == 0 {
				cols, rows = 10, 5
			}
			term := newTestTerm(cols, rows, c.in)
			if got := screenString(term); got != c.want {
				t.Errorf("screen:\n got %q\nwant %q", got, c.want)
			}
			cur := term.Cursor()
			if cur.X != c.x || cur.Y != c.y {
				t.Errorf("cursor: got %d,%d want %d,%d", cur.X, cur.Y, c.x, c.y)
			}
			checkInvariants(t, term)
		})
	}
}

// checkInvariants verifies the cursor is on screen and every row renders
// exactly cols cells.
func checkInvariants(t *testing.T, term *Terminal) {
	t.Helper()
	cols, rows := term.Size()
	cur := term.Cursor()
	if cur.X < 0 || cur.X >= cols || cur.Y < 0 || cur.Y >= rows {
		t.Fatalf("cursor %d,%d outside %dx%d", cur.X, cur.Y, cols, rows)
	}
	term.mu.Lock()
	defer term.mu.Unlock()
	for y := 0; y < rows; y++ {
		ln := term.scr.row(y)
		if len(ln.cells) != cols {
			t.Fatalf("row %d has %d cells, want %d", y, len(ln.cells), cols)
		}
		w := 0
		for x, c := range ln.cells {
			switch {
			case c.wide():
				if x+1 >= cols || !ln.cells[x+1].cont() {
					t.Fatalf("row %d: wide cell at %d without continuation", y, x)
				}
				w += 2
			case c.cont():
				if x == 0 || !ln.cells[x-1].wide() {
					t.Fatalf("row %d: orphan continuation at %d", y, x)
				}
			default:
				w++
			}
		}
		if w != cols {
			t.Fatalf("row %d is %d cells wide, want %d", y, w, cols)
		}
	}
	checkUsed(t, "main", &term.main)
	checkUsed(t, "alt", &term.alt)
}

// checkUsed verifies each row's high-water mark: every cell from it on is
// the zero cell, so code that trusts it skips nothing that was written.
func checkUsed(t *testing.T, name string, s *screen) {
	t.Helper()
	for y := range s.lines {
		ln := &s.lines[y]
		if ln.used < 0 || ln.used > len(ln.cells) {
			t.Fatalf("%s row %d: used %d outside [0, %d]", name, y, ln.used, len(ln.cells))
		}
		for x := ln.used; x < len(ln.cells); x++ {
			if ln.cells[x] != (cell{}) {
				t.Fatalf("%s row %d: cell %d is %+v past used %d", name, y, x, ln.cells[x], ln.used)
			}
		}
	}
}

func TestPrintAndControls(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "plain", in: "hello", want: "hello", x: 5},
		{name: "crlf", in: "ab\r\ncd", want: "ab|cd", x: 2, y: 1},
		{name: "lf keeps column", in: "ab\ncd", want: "ab|  cd", x: 4, y: 1},
		{name: "autowrap", in: "0123456789ab", want: "0123456789|ab", x: 2, y: 1},
		{name: "pending wrap", in: "0123456789", want: "0123456789", x: 9},
		{name: "pending wrap then CR", in: "0123456789\rX", want: "X123456789", x: 1},
		{name: "pending wrap survives LF", in: "0123456789\nX", want: "0123456789||X", x: 1, y: 2},
		{name: "backspace from pending", in: "0123456789\bX", want: "012345678X", x: 9},
		{name: "backspace reverse wrap", in: "0123456789ab\b\b\bX", want: "012345678X|ab", x: 9},
		{name: "no autowrap", in: "\x1b[?7l0123456789abc", want: "012345678c", x: 9},
		{name: "scroll", cols: 5, rows: 2, in: "a\r\nb\r\nc", want: "b|c", x: 1, y: 1},
		{name: "tab", in: "a\tb", want: "a       b", x: 9},
		{name: "tab at end", in: "\t\t\tx", want: "         x", x: 9},
		{name: "bell ignored", in: "a\ab", want: "ab", x: 2},
		{name: "del ignored", in: "a\x7fb", want: "ab", x: 2},
		{name: "C0 inside CSI", in: "abcd\x1b[2\bC", want: "abcd", x: 5},
		{name: "CAN aborts CSI", in: "ab\x1b[3\x18C", want: "abC", x: 3},
		{name: "unknown CSI ignored", in: "a\x1b[?1;2;3zb", want: "ab", x: 2},
		{name: "CSI with intermediate ignored", in: "a\x1b[2 \bCb", want: "b", x: 1},
		{name: "malformed CSI", in: "a\x1b[1;2;3?4mb", want: "ab", x: 2},
	})
}

func TestCursorMovement(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "CUP", in: "\x1b[3;4HX", want: "||   X", x: 4, y: 2},
		{name: "CUP default", in: "abc\x1b[HX", want: "Xbc", x: 1},
		{name: "HVP", in: "\x1b[2;2fX", want: "| X", x: 2, y: 1},
		{name: "CUP clamps", in: "\x1b[99;99HX", want: "||||         X", x: 9, y: 4},
		{name: "CUU CUD", in: "\x1b[3;3H\x1b[2AX\x1b[3BY", want: "  X|||   Y", x: 4, y: 3},
		{name: "CUF CUB", in: "\x1b[5CX\x1b[3DY", want: "   Y X", x: 4},
		{name: "CNL CPL", in: "ab\x1b[2EX\x1b[FY", want: "ab|Y|X", x: 1, y: 1},
		{name: "CHA", in: "abc\x1b[7GX", want: "abc   X", x: 7},
		{name: "VPA VPR", in: "a\x1b[3dX\x1b[eY", want: "a|| X|  Y", x: 3, y: 3},
		{name: "HPA HPR", in: "\x1b[4`X\x1b[2aY", want: "   X  Y", x: 7},
		{name: "DECSC DECRC", in: "ab\x1b7\x1b[4;4Hx\x1b8Y", want: "abY|||   x", x: 3},
		{name: "SCOSC SCORC", in: "ab\x1b[s\x1b[4;4Hx\x1b[uY", want: "abY|||   x", x: 3},
		{name: "CUF from pending wrap", in: "0123456789\x1b[CQ", want: "012345678Q", x: 9},
		{name: "CUB from pending wrap", in: "0123456789\x1b[2DQ", want: "01234567Q9", x: 9},
	})
}

func TestEditing(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "EL0", in: "abcdef\x1b[3G\x1b[K", want: "ab", x: 2},
		{name: "EL1", in: "abcdef\x1b[3G\x1b[1K", want: "   def", x: 2},
		{name: "EL2", in: "abcdef\x1b[2K", want: "", x: 6},
		{name: "EL0 at pending wrap keeps last", in: "0123456789\x1b[K", want: "0123456789", x: 9},
		{name: "ED0", in: "ab\r\ncd\r\nef\x1b[2;2H\x1b[J", want: "ab|c", x: 1, y: 1},
		{name: "ED1", in: "ab\r\ncd\r\nef\x1b[2;1H\x1b[1J", want: "| d|ef", x: 0, y: 1},
		{name: "ED2", in: "ab\r\ncd\x1b[2J", want: "", x: 2, y: 1},
		{name: "ECH", in: "abcdef\x1b[2G\x1b[3X", want: "a   ef", x: 1},
		{name: "ICH", in: "abcdef\x1b[2G\x1b[2@", want: "a  bcdef", x: 1},
		{name: "DCH", in: "abcdef\x1b[2G\x1b[2P", want: "adef", x: 1},
		{name: "IL", in: "a\r\nb\r\nc\x1b[2;1H\x1b[L", want: "a||b|c", x: 0, y: 1},
		{name: "DL", in: "a\r\nb\r\nc\x1b[1;1H\x1b[M", want: "b|c", x: 0, y: 0},
		{name: "IL keeps column", in: "abc\x1b[Lx", want: "   x|abc", x: 4},
		{name: "IRM", in: "abc\x1b[2G\x1b[4hXY\x1b[4lZ", want: "aXYZc", x: 4},
		{name: "REP", in: "ab\x1b[3b", want: "abbbb", x: 5},
		{name: "DECALN", cols: 3, rows: 2, in: "\x1b#8", want: "EEE|EEE", x: 0, y: 0},
		{name: "SU", in: "a\r\nb\r\nc\x1b[S", want: "b|c", x: 1, y: 2},
		{name: "SD", in: "a\r\nb\x1b[T", want: "|a|b", x: 1, y: 1},
		{name: "IND NEL RI", in: "a\x1bDb\x1bEc\x1bMd", want: "a| d|c", x: 2, y: 1},
		{name: "RI at top scrolls", in: "a\x1bMb", want: " b|a", x: 2},
		{name: "RIS", in: "abc\x1b[31m\x1bcx", want: "x", x: 1},
		{name: "DECSTR keeps text", in: "abc\x1b[?7l\x1b[!pdefghijklmn", want: "abcdefghij|klmn", x: 4, y: 1},
	})
}

func TestScrollRegions(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "region scroll", in: "1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[4;1H\n\nX", want: "1|4||X|5", x: 1, y: 3},
		{name: "region RI", in: "1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[2;1H\x1bMX", want: "1|X|2|3|5", x: 1, y: 1},
		{name: "DECSTBM homes", in: "abc\x1b[2;3rX", want: "Xbc", x: 1},
		{name: "DECOM", in: "\x1b[2;4r\x1b[?6h\x1b[1;1HA\x1b[9;1HB", want: "|A||B", x: 1, y: 3},
		{name: "DECOM off", in: "\x1b[2;4r\x1b[?6h\x1b[?6lA", want: "A", x: 1},
		{name: "IL in region", in: "1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[3;1H\x1b[L", want: "1|2||3|5", x: 0, y: 2},
		{name: "DL in region", in: "1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[2;1H\x1b[2M", want: "1|4|||5", x: 0, y: 1},
		{name: "CUU stops at margin", in: "\x1b[2;4r\x1b[3;1H\x1b[5AX", want: "|X", x: 1, y: 1},
		{name: "bad region ignored", in: "\x1b[4;2rab", want: "ab", x: 2},
		// DECCOLM clears and homes (tmux, xterm); the margins stay, so with
		// DECOM the cursor goes to the region's top and C scrolls it.
		{name: "DECCOLM clears and homes", in: "one\r\ntwo\r\n\x1b[?3lAFTER", want: "AFTER", x: 5},
		{name: "DECCOLM set", in: "one\r\ntwo\x1b[?3hX", want: "X", x: 1},
		{name: "DECCOLM keeps margins", in: "1\r\n2\x1b[2;3r\x1b[?6h\x1b[?3lA\r\nB\r\nC", want: "|B|C", x: 1, y: 2},
	})
}

func TestTabs(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "HTS", cols: 20, rows: 2, in: "\x1b[3g\x1b[4G\x1bH\r\tX", want: "   X", x: 4},
		{name: "TBC 0", cols: 20, rows: 2, in: "\x1b[9G\x1b[g\r\tX", want: "                X", x: 17},
		{name: "CHT", cols: 20, rows: 2, in: "\x1b[2IX", want: "                X", x: 17},
		{name: "CBT", cols: 20, rows: 2, in: "\x1b[12G\x1b[ZX\x1b[2ZY", want: "Y       X", x: 1},
	})
}

func TestCharsets(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "DEC graphics G0", in: "\x1b(0lqk\x1b(Bq", want: "┌─┐q", x: 4},
		{name: "SO SI", in: "\x1b)0\x0eqx\x0fq", want: "─│q", x: 3},
	})
}

func TestUnicode(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "wide", in: "中文", want: "中文", x: 4},
		{name: "wide wraps", in: "123456789中", want: "123456789|中", x: 2, y: 1},
		{name: "combining", in: "e\u0301x", want: "e\u0301x", x: 2},
		{name: "zwj emoji", in: "\U0001F469\u200d\U0001F4bbx", want: "\U0001F469\u200d\U0001F4bbx", x: 3},
		{name: "skin tone", in: "\U0001F44d\U0001F3fdx", want: "\U0001F44d\U0001F3fdx", x: 3},
		{name: "flag", in: "\U0001F1EF\U0001F1F5x", want: "\U0001F1EF\U0001F1F5x", x: 3},
		// VS16 adds no width for a program that measures per character
		// (wcwidth, as tmux does); with mode 2027 it widens the symbol.
		{name: "VS16 keeps one column", in: "\u2764\ufe0fx", want: "\u2764\ufe0fx", x: 2},
		{name: "VS16 widens in mode 2027", in: "\x1b[?2027h\u2764\ufe0fx", want: "\u2764\ufe0fx", x: 3},
		{name: "readline over VS16 emoji", in: "$ echo \u26a0\ufe0f\u26a0\ufe0f\u26a0\ufe0f\r\x1b[9CY", want: "$ echo \u26a0\ufe0f\u26a0\ufe0fY", x: 10, cols: 20, rows: 3},
		{name: "readline over VS16 emoji, 2027", in: "\x1b[?2027h$ echo \u26a0\ufe0f\u26a0\ufe0f\u26a0\ufe0f\r\x1b[9CY", want: "$ echo \u26a0\ufe0fY \u26a0\ufe0f", x: 10, cols: 20, rows: 3},
		{name: "invalid bytes", in: "a\xff\xfeb", want: "a\ufffd\ufffdb", x: 4},
		{name: "truncated sequence", in: "a\xe4\xb8b", want: "a\ufffdb", x: 3},
		{name: "overwrite wide half", in: "中文\x1b[2GX", want: " X文", x: 2},
		{name: "overwrite wide right", in: "中文\x1b[3GX", want: "中X", x: 3},
		{name: "lone combining mark", in: "\u0301x", want: "x", x: 1},
		{name: "wide at last column no wrap", in: "\x1b[?7l123456789中", want: "123456789", x: 9},
		{name: "C1 not printed", in: "a\u0085b", want: "ab", x: 2},
		{name: "ICH splits wide", in: "中文\x1b[2G\x1b[@", want: "   文", x: 1},
	})
}

func TestUTF8SplitAcrossWrites(t *testing.T) {
	s := []byte("a中\U0001F600e\u0301b")
	for cut := 0; cut <= len(s); cut++ {
		term := New(10, 2)
		term.Write(s[:cut])
		term.Write(s[cut:])
		if got := screenString(term); got != "a中\U0001F600e\u0301b" {
			t.Errorf("cut at %d: got %q", cut, got)
		}
	}
	// Byte by byte, including an escape sequence.
	term := New(10, 2)
	for _, b := range []byte("x\x1b[31m中\x1b[0my") {
		term.Write([]byte{b})
	}
	if got := screenString(term); got != "x中y" {
		t.Errorf("byte by byte: got %q", got)
	}
	if c := term.Cell(1, 0); c.Fg != IndexedColor(1) || c.Width != 2 {
		t.Errorf("byte by byte cell: %+v", c)
	}
}

func TestSGR(t *testing.T) {
	cases := []struct {
		in   string
		want Cell
	}{
		{"\x1b[1;2;3;5;7;8;9mX", Cell{Attrs: AttrBold | AttrFaint | AttrItalic | AttrBlink | AttrReverse | AttrInvisible | AttrStrikethrough}},
		{"\x1b[1m\x1b[22mX", Cell{}},
		{"\x1b[4mX", Cell{UlStyle: UnderlineSingle}},
		{"\x1b[4:3mX", Cell{UlStyle: UnderlineCurly}},
		{"\x1b[21mX", Cell{UlStyle: UnderlineDouble}},
		{"\x1b[4:3m\x1b[24mX", Cell{}},
		{"\x1b[31;42mX", Cell{Fg: IndexedColor(1), Bg: IndexedColor(2)}},
		{"\x1b[91;102mX", Cell{Fg: IndexedColor(9), Bg: IndexedColor(10)}},
		{"\x1b[38;5;200;48;5;17mX", Cell{Fg: IndexedColor(200), Bg: IndexedColor(17)}},
		{"\x1b[38;2;1;2;3mX", Cell{Fg: RGBColor(1, 2, 3)}},
		{"\x1b[38:2::1:2:3mX", Cell{Fg: RGBColor(1, 2, 3)}},
		{"\x1b[38:2:1:2:3mX", Cell{Fg: RGBColor(1, 2, 3)}},
		{"\x1b[48:5:100mX", Cell{Bg: IndexedColor(100)}},
		{"\x1b[58:2::9:8:7;4mX", Cell{Ul: RGBColor(9, 8, 7), UlStyle: UnderlineSingle}},
		{"\x1b[58;5;3m\x1b[59mX", Cell{}},
		{"\x1b[31m\x1b[39mX", Cell{}},
		{"\x1b[31;1m\x1b[mX", Cell{}},
		{"\x1b[38;5mX\x1b[1m", Cell{}},
		{"\x1b[53mX", Cell{Attrs: AttrOverline}},
		{"\x1b[38;2;300;2;3mX", Cell{Fg: RGBColor(255, 2, 3)}},
		{"\x1b]8;;https://x.test\x1b\\X\x1b]8;;\x1b\\", Cell{Link: "https://x.test"}},
	}
	for _, c := range cases {
		term := newTestTerm(10, 2, c.in)
		got := term.Cell(0, 0)
		c.want.Content, c.want.Width = "X", 1
		if got != c.want {
			t.Errorf("%q:\n got %+v\nwant %+v", c.in, got, c.want)
		}
	}
}

func TestEraseUsesBackground(t *testing.T) {
	term := newTestTerm(5, 2, "\x1b[44m\x1b[2J\x1b[0mX")
	if c := term.Cell(3, 1); c.Bg != IndexedColor(4) {
		t.Errorf("erased cell background: %+v", c)
	}
	if c := term.Cell(0, 0); c.Bg != 0 || c.Content != "X" {
		t.Errorf("printed cell: %+v", c)
	}
}

func TestAltScreen(t *testing.T) {
	for _, mode := range []string{"47", "1047", "1049"} {
		term := newTestTerm(10, 3, "main\x1b[?"+mode+"halt")
		if got := screenString(term); !strings.Contains(got, "alt") || strings.Contains(got, "main") {
			t.Errorf("mode %s on: %q", mode, got)
		}
		if !term.Modes().AltScreen {
			t.Errorf("mode %s: AltScreen not reported", mode)
		}
		term.Write([]byte("\x1b[?" + mode + "l"))
		if got := screenString(term); !strings.HasPrefix(got, "main") {
			t.Errorf("mode %s off: %q", mode, got)
		}
	}
	// 1049 restores the cursor; the alternate screen keeps no history.
	term := newTestTerm(10, 3, "ab\x1b[?1049h\r\n1\r\n2\r\n3\r\n4\r\n5")
	if n := term.ScrollbackLen(); n != 0 {
		t.Errorf("alt screen produced %d history lines", n)
	}
	term.Write([]byte("\x1b[?1049l"))
	if c := term.Cursor(); c.X != 2 || c.Y != 0 {
		t.Errorf("cursor after 1049l: %+v", c)
	}
	// 1047 clears on entry, 47 does not.
	term = newTestTerm(10, 3, "\x1b[?47hX\x1b[?47l\x1b[?47h")
	if got := screenString(term); got != "X" {
		t.Errorf("47 re-entry: %q", got)
	}
	term = newTestTerm(10, 3, "\x1b[?1047hX\x1b[?1047l\x1b[?1047h")
	if got := screenString(term); got != "" {
		t.Errorf("1047 re-entry: %q", got)
	}
}

func TestModes(t *testing.T) {
	term := newTestTerm(10, 3, "\x1b[?1h\x1b=\x1b[?2004h\x1b[?1004h\x1b[?1002h\x1b[?1006h\x1b[?2026h\x1b[?25l\x1b]2;hi\a")
	want := Modes{AppCursor: true, AppKeypad: true, BracketedPaste: true, FocusEvents: true,
		Mouse: MouseButton, MouseSGR: true, Sync: true, Title: "hi"}
	if got := term.Modes(); got != want {
		t.Errorf("modes:\n got %+v\nwant %+v", got, want)
	}
	term.Write([]byte("\x1b[?1l\x1b>\x1b[?2004l\x1b[?1004l\x1b[?1002l\x1b[?1006l\x1b[?2026l\x1b[?25h"))
	if got := term.Modes(); got != (Modes{CursorVisible: true, Title: "hi"}) {
		t.Errorf("modes after reset: %+v", got)
	}
	for _, c := range []struct {
		in   string
		want MouseMode
	}{{"\x1b[?9h", MouseX10}, {"\x1b[?1000h", MouseNormal}, {"\x1b[?1003h", MouseAny}, {"\x1b[?1003h\x1b[?1000l", MouseNone}} {
		if got := newTestTerm(5, 2, c.in).Modes().Mouse; got != c.want {
			t.Errorf("%q: mouse %v want %v", c.in, got, c.want)
		}
	}
	if s := newTestTerm(5, 2, "\x1b[5 q").Cursor().Style; s != CursorBlinkingBar {
		t.Errorf("DECSCUSR: %v", s)
	}
}

func TestKittyKeyboard(t *testing.T) {
	term := newTestTerm(10, 3, "\x1b[>1u\x1b[>3u")
	if f := term.Modes().KittyFlags; f != 3 {
		t.Errorf("after push: %d", f)
	}
	term.Write([]byte("\x1b[<u"))
	if f := term.Modes().KittyFlags; f != 1 {
		t.Errorf("after pop: %d", f)
	}
	term.Write([]byte("\x1b[=4;2u"))
	if f := term.Modes().KittyFlags; f != 5 {
		t.Errorf("after set-or: %d", f)
	}
	term.Write([]byte("\x1b[=1;3u"))
	if f := term.Modes().KittyFlags; f != 4 {
		t.Errorf("after set-clear: %d", f)
	}
	// The alternate screen has its own stack.
	term.Write([]byte("\x1b[?1049h"))
	if f := term.Modes().KittyFlags; f != 0 {
		t.Errorf("alt screen flags: %d", f)
	}
	term.Write([]byte("\x1b[?1049l\x1b[<10u"))
	if f := term.Modes().KittyFlags; f != 0 {
		t.Errorf("after popping everything: %d", f)
	}
}

func TestHostileInput(t *testing.T) {
	term := New(10, 3)
	big := strings.Repeat("x", 200<<10)
	term.Write([]byte("\x1b]2;" + big + "\a"))
	if term.Title() != "" {
		t.Errorf("oversized OSC title was applied (%d bytes)", len(term.Title()))
	}
	if cap(term.p.str) > 2*maxStringLen {
		t.Errorf("OSC buffer grew to %d", cap(term.p.str))
	}
	term.Write([]byte("\x1bP" + big + "\x1b\\ok"))
	if got := screenString(term); got != "ok" {
		t.Errorf("after huge DCS: %q", got)
	}
	term.Write([]byte("\x1b[99999999999999999999;99999999999999999999H"))
	checkInvariants(t, term)
	term.Write([]byte("\x1b[" + strings.Repeat("1;", 1000) + "m"))
	term.Write([]byte("\x1b[999999b"))
	checkInvariants(t, term)
	term = New(0, -5)
	if c, r := term.Size(); c != 1 || r != 1 {
		t.Errorf("size clamp: %dx%d", c, r)
	}
	term.Write([]byte("中abc\x1b[5;5H\x1b[@\x1b[P"))
	checkInvariants(t, term)
	term.Resize(-1, 0)
	checkInvariants(t, term)
}

func TestTextLikeCapturePane(t *testing.T) {
	term := newTestTerm(6, 3, "ab  \r\n\r\n")
	if got := term.Text(); got != "ab\n\n\n" {
		t.Errorf("Text: %q", got)
	}
}

func TestWritePlainDoesNotAllocate(t *testing.T) {
	input := BenchInput("plain-log", 1<<20)
	term := New(120, 40, WithScrollback(1000))
	feed(term, input) // reach steady state: history full, buffers grown
	chunk := input[:4096]
	allocs := testing.AllocsPerRun(100, func() { term.Write(chunk) })
	if allocs != 0 {
		t.Errorf("%.1f allocations per Write of plain text, want 0", allocs)
	}
}

func TestConcurrentUse(t *testing.T) {
	term := New(40, 10, WithScrollback(100))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			term.Write(BenchInput("color-log", 2048))
			if i%50 == 0 {
				term.Resize(30+i%20, 8+i%5)
			}
		}
	}()
	for {
		select {
		case <-done:
			checkInvariants(t, term)
			return
		default:
			_, rows := term.Size()
			for y := 0; y < rows; y++ {
				_ = term.RenderRow(y)
			}
			_ = term.RenderView(3, nil)
			_ = term.Modes()
			_ = term.Text()
		}
	}
}

func TestSaveRestoreKeepsPenAndCharset(t *testing.T) {
	term := newTestTerm(10, 3, "\x1b[1;31m\x1b(0\x1b7\x1b[0m\x1b(B\x1b[3;3Hq\x1b8q")
	c := term.Cell(0, 0)
	if c.Content != "─" || c.Fg != IndexedColor(1) || c.Attrs != AttrBold {
		t.Errorf("restored pen/charset not applied: %+v", c)
	}
	if c := term.Cell(2, 2); c.Content != "q" || c.Fg != 0 {
		t.Errorf("unsaved state leaked: %+v", c)
	}
}

// TestRenderKeepsWidthWithStrayMarks checks that cells the outer renderer
// would fuse into one grapheme (a spacing mark printed after the cursor
// moved) are shown so the row keeps its width.
func TestRenderKeepsWidthWithStrayMarks(t *testing.T) {
	for _, in := range []string{
		"R\x01\u1c28x",             // spacing mark after an ignored control: attaches
		"R\x1b[1;2H\u1c28x",        // attaches to the cell left of the cursor
		"\U00011D46\x1b[1;3Hx",     // prepend followed by a later cell
		"a\x1b[1;3H\u0903\x1b[Hb",  // mark stored at a cell whose left neighbour changes
		"\U0001F469\u200d\x1b[3Cx", // joiner at the end of a cell
	} {
		term := newTestTerm(8, 1, in)
		if w := renderedWidth(term.RenderRow(0)); w != 8 {
			t.Errorf("%q renders %d cells wide: %q", in, w, term.RenderRow(0))
		}
		checkInvariants(t, term)
	}
}

func TestModifyOtherKeys(t *testing.T) {
	steps := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"\x1b[>4;1m", 1},
		{"\x1b[>4;2m", 2},
		{"\x1b[>4m", 0}, // no value: back to the default
		{"\x1b[>4;2m\x1b[>4n", 0},
		{"\x1b[>1;2m", 0}, // other resources are not keys
		{"\x1b[>4;1m\x1bc", 0},
	}
	term := New(10, 3)
	for _, s := range steps {
		term.Write([]byte(s.in))
		if got := term.Modes().OtherKeys; got != s.want {
			t.Errorf("after %q: modifyOtherKeys %d, want %d", s.in, got, s.want)
		}
	}
}

// TestGraphemeWidthMode: a program measures per character (wcwidth) unless
// it asks for grapheme clusters (mode 2027), so a symbol with VS16 takes one
// column by default and two in mode 2027. Either way the rendered row keeps
// its width: a one-column symbol goes out without VS16, which would make
// the outer terminal draw it two columns wide.
func TestGraphemeWidthMode(t *testing.T) {
	for _, tc := range []struct {
		in    string
		cells int // columns the three symbols take
		shown string
	}{
		{"\u26a0\ufe0f\u26a0\ufe0f\u26a0\ufe0f|", 3, "\u26a0\u26a0\u26a0|"},
		{"\x1b[?2027h\u26a0\ufe0f\u26a0\ufe0f\u26a0\ufe0f|", 6, "\u26a0\ufe0f\u26a0\ufe0f\u26a0\ufe0f|"},
		{"\x1b[?2027h\x1b[?2027l\u26a0\ufe0f\u26a0\ufe0f\u26a0\ufe0f|", 3, "\u26a0\u26a0\u26a0|"},
	} {
		term := newTestTerm(12, 1, tc.in)
		if x := term.Cursor().X; x != tc.cells+1 {
			t.Errorf("%q: cursor at %d, want %d", tc.in, x, tc.cells+1)
		}
		row := term.RenderRow(0)
		if w := renderedWidth(row); w != 12 {
			t.Errorf("%q renders %d cells wide: %q", tc.in, w, row)
		}
		if !strings.HasPrefix(ansi.Strip(row), tc.shown) {
			t.Errorf("%q renders %q, want it to start with %q", tc.in, ansi.Strip(row), tc.shown)
		}
		// The UI's cell canvas gets what the row shows.
		want := Cell{Content: "\u26a0", Width: 1}
		if tc.cells == 6 {
			want = Cell{Content: "\u26a0\ufe0f", Width: 2}
		}
		if c := term.Cell(0, 0); c.Content != want.Content || c.Width != want.Width {
			t.Errorf("%q: cell 0 is %+v, want %+v", tc.in, c, want)
		}
	}
}

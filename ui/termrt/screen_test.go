package termrt

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/panes/vterm"
)

// chanWriter hands each write to the test; with gate set, a write also
// waits for the test to let it finish, like a terminal that reads slowly.
type chanWriter struct {
	writes chan string
	gate   chan struct{}
}

func newChanWriter() *chanWriter { return &chanWriter{writes: make(chan string, 16)} }

func (w *chanWriter) Write(p []byte) (int, error) {
	w.writes <- string(p)
	if w.gate != nil {
		<-w.gate
	}
	return len(p), nil
}

func (w *chanWriter) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-w.writes:
		return s
	case <-time.After(5 * time.Second):
		t.Fatal("no write")
		return ""
	}
}

// noMore checks that nothing more was written once the writer stopped.
func (w *chanWriter) noMore(t *testing.T, s *screen) {
	t.Helper()
	s.close()
	select {
	case b := <-w.writes:
		t.Fatalf("unexpected write %q", b)
	default:
	}
}

// cells is the cells of plain text in style st.
func cells(s string, st Style) []vterm.Cell { return AppendText(nil, s, st) }

// cvOf is a canvas of rows of cells (strings are plain text), as wide as
// the widest.
func cvOf(rows ...any) *Canvas {
	var rs [][]vterm.Cell
	w := 0
	for _, r := range rows {
		var cs []vterm.Cell
		switch r := r.(type) {
		case string:
			cs = cells(r, Style{})
		case []vterm.Cell:
			cs = r
		}
		rs = append(rs, cs)
		w = max(w, len(cs))
	}
	cv := &Canvas{}
	cv.Resize(w, len(rs))
	for y, r := range rs {
		cv.Put(y, 0, w, r)
	}
	return cv
}

// cat joins rows of cells.
func cat(parts ...[]vterm.Cell) []vterm.Cell {
	var out []vterm.Cell
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// syncBuffer is an output the writer goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until cond holds, failing the test after a generous
// deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestScreenWritesOnlyChangedCells(t *testing.T) {
	w := newChanWriter()
	s := newScreen(w, tea.MouseModeNone, writerCaps{})
	s.show(Frame{Canvas: cvOf("aaa", "bbb", "ccc")}, false)
	if first := w.next(t); first != seqSyncBegin+"\x1b[m"+seqClear+"aaa\r\nbbb\r\nccc"+seqSyncEnd {
		t.Errorf("first frame = %q", first)
	}
	// One changed cell: one cursor move and the cell.
	s.show(Frame{Canvas: cvOf("aaa", "bXb", "ccc")}, false)
	if out := w.next(t); out != seqSyncBegin+"\x1b[2;2HX"+seqSyncEnd {
		t.Errorf("one changed cell wrote %q", out)
	}
	// Styles are set only where they change, and reset at the end.
	red := Style{Fg: vterm.IndexedColor(1)}
	s.show(Frame{Canvas: cvOf("aaa", cat(cells("b", Style{}), cells("XY", red)), "ccc")}, false)
	if out := w.next(t); out != seqSyncBegin+"\x1b[2;2H\x1b[31mXY\x1b[m"+seqSyncEnd {
		t.Errorf("styled change wrote %q", out)
	}
	// The same frame again writes nothing at all.
	s.show(Frame{Canvas: cvOf("aaa", cat(cells("b", Style{}), cells("XY", red)), "ccc")}, false)
	w.noMore(t, s)
}

func TestScreenRepaintAndResize(t *testing.T) {
	w := newChanWriter()
	s := newScreen(w, tea.MouseModeNone, writerCaps{})
	s.show(Frame{Canvas: cvOf("aaa", "bbb", "ccc")}, false)
	w.next(t)
	s.show(Frame{Canvas: cvOf("aaa", "bbb", "ccc")}, true)
	re := w.next(t)
	if !strings.Contains(re, seqClear) || !strings.Contains(re, "aaa") || !strings.Contains(re, "ccc") {
		t.Errorf("repaint %q does not clear and redraw every row", re)
	}
	// A one-line notice replaces the frame: the screen is cleared.
	s.show(Frame{Canvas: cvOf("too small")}, false)
	if short := w.next(t); !strings.Contains(short, seqClear+"too small") {
		t.Errorf("a frame of another size %q does not clear the old rows", short)
	}
	// Blanks that end a row are erased, not written.
	s.show(Frame{Canvas: cvOf("to       ")}, false)
	if out := w.next(t); out != seqSyncBegin+"\x1b[1;3H\x1b[K"+seqSyncEnd {
		t.Errorf("trailing blanks wrote %q", out)
	}
	w.noMore(t, s)
}

func TestScreenCursorAndMouse(t *testing.T) {
	w := newChanWriter()
	s := newScreen(w, tea.MouseModeNone, writerCaps{})
	c := tea.NewCursor(4, 1)
	s.show(Frame{Canvas: cvOf("aaaaa", "bbbbb"), Cursor: c, Mouse: tea.MouseModeCellMotion}, false)
	out := w.next(t)
	if !strings.HasSuffix(out, seqMouseCellOn+"\x1b[2;5H"+seqShowCursor+seqSyncEnd) {
		t.Errorf("frame %q does not end turning the mouse on and showing the cursor at 5,2", out)
	}
	// Moving the cursor alone moves it; a bar cursor sets its style.
	c2 := tea.NewCursor(1, 0)
	c2.Shape, c2.Blink = tea.CursorBar, false
	s.show(Frame{Canvas: cvOf("aaaaa", "bbbbb"), Cursor: c2, Mouse: tea.MouseModeCellMotion}, false)
	if out := w.next(t); out != seqSyncBegin+"\x1b[1;2H\x1b[6 q"+seqSyncEnd {
		t.Errorf("cursor move = %q", out)
	}
	// Cells written while the cursor shows hide it first; no cursor hides it.
	s.show(Frame{Canvas: cvOf("xxxxx", "bbbbb"), Mouse: tea.MouseModeAllMotion}, false)
	out = w.next(t)
	if !strings.HasPrefix(out, seqSyncBegin+seqHideCursor) || strings.Contains(out, seqShowCursor) {
		t.Errorf("frame %q does not hide the cursor", out)
	}
	if !strings.Contains(out, seqMouseCellOff+seqMouseAllOn) {
		t.Errorf("frame %q does not switch to all-motion mouse reports", out)
	}
	s.close()
	if s.style != 6 {
		t.Errorf("style = %d, want 6 left for the teardown to reset", s.style)
	}
}

// TestScreenLatestFrameWins checks that frames produced while the terminal
// is slow to take a write do not queue up: only the newest is written next.
func TestScreenLatestFrameWins(t *testing.T) {
	w := newChanWriter()
	w.gate = make(chan struct{})
	s := newScreen(w, tea.MouseModeNone, writerCaps{})
	s.show(Frame{Canvas: cvOf("one  ")}, false)
	if out := w.next(t); !strings.Contains(out, "one") {
		t.Fatalf("first write %q", out)
	}
	// The first write is now blocked in the terminal.
	s.show(Frame{Canvas: cvOf("two  ")}, false)
	s.raw("\a")
	s.show(Frame{Canvas: cvOf("three")}, false)
	w.gate <- struct{}{}
	out := w.next(t)
	if !strings.HasPrefix(out, "\a") || !strings.Contains(out, "three") || strings.Contains(out, "tw") {
		t.Errorf("second write %q, want the bell and only the latest frame", out)
	}
	close(w.gate)
	w.noMore(t, s)
}

// TestScreenWritesFromTheChangedCell: a row whose left part (wide
// characters, a border) is unchanged is written from the changed cell on.
func TestScreenWritesFromTheChangedCell(t *testing.T) {
	w := newChanWriter()
	s := newScreen(w, tea.MouseModeNone, writerCaps{})
	bold := Style{Attrs: vterm.AttrBold}
	s.show(Frame{Canvas: cvOf(cat(cells("日本", bold), cells("│left", Style{})), "same    ")}, false)
	w.next(t)
	s.show(Frame{Canvas: cvOf(cat(cells("日本", bold), cells("│lift", Style{})), "same    ")}, false)
	if out := w.next(t); out != seqSyncBegin+"\x1b[1;7Hi"+seqSyncEnd {
		t.Errorf("frame %q does not write just the changed cell", out)
	}
	// A changed wide character is written whole, in its style.
	s.show(Frame{Canvas: cvOf(cat(cells("日語", bold), cells("│lift", Style{})), "same    ")}, false)
	if out := w.next(t); out != seqSyncBegin+"\x1b[1;3H\x1b[0;1m語\x1b[m"+seqSyncEnd {
		t.Errorf("frame %q does not write the wide character", out)
	}
	w.noMore(t, s)
}

// TestScreenRepeatsRuns: where the terminal has REP, a run of one
// character (a border line) is sent as the character and a repeat count;
// where it repeats only one-byte characters (tmux), only those.
func TestScreenRepeatsRuns(t *testing.T) {
	line := "┌" + strings.Repeat("─", 30) + "┐" + strings.Repeat("=", 10)
	for _, c := range []struct {
		rep  repeats
		want string
	}{
		{repAny, "┌─\x1b[29b┐=\x1b[9b"},
		{repASCII, "┌" + strings.Repeat("─", 30) + "┐=\x1b[9b"},
		{repNone, line},
	} {
		w := newChanWriter()
		s := newScreen(w, tea.MouseModeNone, writerCaps{rep: c.rep})
		s.show(Frame{Canvas: cvOf(line)}, false)
		if out := w.next(t); out != seqSyncBegin+"\x1b[m"+seqClear+c.want+seqSyncEnd {
			t.Errorf("REP %d: the line wrote %q, want %q", c.rep, out, c.want)
		}
		w.noMore(t, s)
	}
}

// randomCanvas fills cv with random cells: text, blanks and long blank
// runs, colours and attributes, wide characters, hyperlinks, runs of one
// character. Rows are consistent (a wide character is whole).
func randomCanvas(rng *rand.Rand, cv *Canvas, keep float64) {
	texts := []string{"a", "b", "é", "─", "│", "┌", " ", " ", " ", "世", "界", "x", "1"}
	styles := []Style{{}, {}, {}, {Fg: vterm.IndexedColor(1)}, {Bg: vterm.IndexedColor(4)},
		{Attrs: vterm.AttrBold, Fg: vterm.RGBColor(10, 200, 30)}, {UlStyle: vterm.UnderlineCurly, Ul: vterm.IndexedColor(200)},
		{Link: "https://example.com/a"}, {Link: "https://example.com/b", Fg: vterm.IndexedColor(9)},
		{Attrs: vterm.AttrReverse | vterm.AttrItalic}}
	for y := 0; y < cv.H; y++ {
		for x := 0; x < cv.W; {
			if rng.Float64() < keep {
				x++
				continue
			}
			st := styles[rng.IntN(len(styles))]
			txt := texts[rng.IntN(len(texts))]
			n := 1
			switch rng.IntN(6) {
			case 0:
				n = 1 + rng.IntN(30) // a run
			case 1:
				txt, st, n = " ", Style{}, 5+rng.IntN(40) // a blank run
			}
			for range n {
				if x >= cv.W {
					break
				}
				x = cv.Text(y, x, cv.W, txt, st)
				if ansi.StringWidth(txt) == 2 && x >= cv.W-1 {
					x = cv.W // did not fit
				}
			}
		}
	}
}

// TestScreenOutputReproducesCanvases feeds the writer's output for a run of
// random canvases (styled text, long blank runs, backgrounds, wide
// characters, hyperlinks, runs, rows that change in part) to agentgrid's
// terminal emulator, and checks after each frame that every cell it shows
// equals the canvas's: no shortcut of the writer may lose text, a style, a
// link or a cell. With each kind of REP.
func TestScreenOutputReproducesCanvases(t *testing.T) {
	for _, rep := range []repeats{repNone, repASCII, repAny} {
		const w, h = 60, 8
		rng := rand.New(rand.NewPCG(1, 2))
		var out syncBuffer
		s := newScreen(&out, tea.MouseModeNone, writerCaps{rep: rep})
		got := vterm.New(w, h)
		// The terminal shows something else at first: the first frame is a
		// full repaint and must cover it.
		_, _ = got.Write([]byte("\x1b[44mold junk everywhere\x1b[3;5Hmore 世界"))
		var cv Canvas
		cv.Resize(w, h)
		for i := range 300 {
			keep := 0.9
			if i == 0 {
				keep = 0
			}
			randomCanvas(rng, &cv, keep)
			before := len(out.String())
			s.show(Frame{Canvas: &cv}, i == 0)
			// Each frame is one write, a synchronized update.
			waitFor(t, "the frame to be written", func() bool {
				o := out.String()
				return len(o) > before && strings.HasSuffix(o, seqSyncEnd)
			})
			_, _ = got.Write([]byte(out.String()[before:]))
			for y := range h {
				for x := range w {
					if g, e := got.Cell(x, y), cv.Row(y)[x]; g != e {
						t.Fatalf("REP %v, frame %d, cell %d,%d: got %+v, want %+v\nrow %q", rep, i, x, y, g, e, cv.String())
					}
				}
			}
		}
		s.close()
	}
}

// TestRepaintWritesWhatADiffFromBlankWrites: a repaint (prefix r, a resize)
// clears the screen and then writes exactly what the writer's diff writes
// for the same canvas on a blank screen: every cell that is not blank, with
// the same runs, gaps, repeats, styles and links, whatever the canvas.
func TestRepaintWritesWhatADiffFromBlankWrites(t *testing.T) {
	for _, rep := range []repeats{repNone, repASCII, repAny} {
		rng := rand.New(rand.NewPCG(3, 4))
		for i := range 200 {
			var cv Canvas
			cv.Resize(50+rng.IntN(30), 1+rng.IntN(8))
			randomCanvas(rng, &cv, rng.Float64())
			if i%7 == 0 {
				// A right half whose left half is gone, as a cut leaves it.
				cv.Row(0)[3] = vterm.Cell{Width: 0}
			}
			caps := writerCaps{rep: rep, profile: colorprofile.ANSI256}
			painter := cellWriter{shownCv: new(Canvas), caps: caps}
			painted, _ := painter.draw(nil, &cv, true)
			prefix := seqReset + seqClear
			if !strings.HasPrefix(string(painted), prefix) {
				t.Fatalf("a repaint starts with %q, want %q", painted[:min(len(painted), 12)], prefix)
			}
			var blank Canvas
			blank.Resize(cv.W, cv.H)
			differ := cellWriter{shownCv: &blank, caps: caps}
			diffed, _ := differ.draw(nil, &cv, false)
			if got := string(painted[len(prefix):]); got != string(diffed) {
				t.Fatalf("REP %v, canvas %d (%dx%d): the repaint writes\n%q\nthe diff from a blank screen\n%q", rep, i, cv.W, cv.H, got, diffed)
			}
			if !slices.Equal(painter.shownCv.Cells, cv.Cells) {
				t.Fatalf("canvas %d: after the repaint the writer believes the screen shows something else than the canvas", i)
			}
		}
	}
}

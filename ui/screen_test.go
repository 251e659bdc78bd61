package ui

import (
	"math/rand/v2"

	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/charmbracelet/x/ansi"

	tea "charm.land/bubbletea/v2"
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

func rows(r ...string) string { return strings.Join(r, "\n") }

func TestScreenWritesOnlyChangedRows(t *testing.T) {
	w := newChanWriter()
	s := newScreen(w, tea.MouseModeNone)
	s.show(frame{content: rows("aaa", "bbb", "ccc")}, false)
	first := w.next(t)
	for _, want := range []string{"\x1b[1H\x1b[maaa", "\x1b[2H\x1b[mbbb", "\x1b[3H\x1b[mccc"} {
		if !strings.Contains(first, want) {
			t.Errorf("first frame %q lacks %q", first, want)
		}
	}
	s.show(frame{content: rows("aaa", "BBB", "ccc")}, false)
	second := w.next(t)
	if !strings.HasPrefix(second, seqSyncBegin) || !strings.HasSuffix(second, seqSyncEnd) {
		t.Errorf("frame %q is not one synchronized update", second)
	}
	if !strings.Contains(second, "\x1b[2H\x1b[mBBB") {
		t.Errorf("frame %q does not rewrite row 2", second)
	}
	if strings.Contains(second, "aaa") || strings.Contains(second, "ccc") {
		t.Errorf("frame %q rewrites unchanged rows", second)
	}
	// The same frame again writes nothing at all.
	s.show(frame{content: rows("aaa", "BBB", "ccc")}, false)
	w.noMore(t, s)
}

func TestScreenRepaintAndShorterFrames(t *testing.T) {
	w := newChanWriter()
	s := newScreen(w, tea.MouseModeNone)
	s.show(frame{content: rows("aaa", "bbb", "ccc")}, false)
	w.next(t)
	s.show(frame{content: rows("aaa", "bbb", "ccc")}, true)
	re := w.next(t)
	if !strings.Contains(re, seqClear) || !strings.Contains(re, "aaa") || !strings.Contains(re, "ccc") {
		t.Errorf("repaint %q does not clear and redraw every row", re)
	}
	// A one-line notice replaces the frame: the rows below are erased.
	s.show(frame{content: "too small"}, false)
	short := w.next(t)
	if !strings.Contains(short, "\x1b[2H\x1b[m"+seqEraseLine) || !strings.Contains(short, "\x1b[3H\x1b[m"+seqEraseLine) {
		t.Errorf("shorter frame %q leaves old rows", short)
	}
	w.noMore(t, s)
}

func TestScreenCursorAndMouse(t *testing.T) {
	w := newChanWriter()
	s := newScreen(w, tea.MouseModeNone)
	c := tea.NewCursor(4, 1)
	s.show(frame{content: rows("aaa", "bbb"), cursor: c, mouse: tea.MouseModeCellMotion}, false)
	out := w.next(t)
	if !strings.HasSuffix(out, seqMouseCellOn+"\x1b[2;5H"+seqShowCursor+seqSyncEnd) {
		t.Errorf("frame %q does not end turning the mouse on and showing the cursor at 5,2", out)
	}
	// Moving the cursor alone moves it; a bar cursor sets its style.
	c2 := tea.NewCursor(1, 0)
	c2.Shape, c2.Blink = tea.CursorBar, false
	s.show(frame{content: rows("aaa", "bbb"), cursor: c2, mouse: tea.MouseModeCellMotion}, false)
	if out := w.next(t); out != seqSyncBegin+"\x1b[1;2H\x1b[6 q"+seqSyncEnd {
		t.Errorf("cursor move = %q", out)
	}
	// Rows written while the cursor shows hide it first; no cursor hides it.
	s.show(frame{content: rows("xxx", "bbb"), mouse: tea.MouseModeAllMotion}, false)
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
	s := newScreen(w, tea.MouseModeNone)
	s.show(frame{content: "one"}, false)
	if out := w.next(t); !strings.Contains(out, "one") {
		t.Fatalf("first write %q", out)
	}
	// The first write is now blocked in the terminal.
	s.show(frame{content: "two"}, false)
	s.raw("\a")
	s.show(frame{content: "three"}, false)
	w.gate <- struct{}{}
	out := w.next(t)
	if !strings.HasPrefix(out, "\a") || !strings.Contains(out, "three") || strings.Contains(out, "two") {
		t.Errorf("second write %q, want the bell and only the latest frame", out)
	}
	close(w.gate)
	w.noMore(t, s)
}

// TestScreenRewritesRowsFromTheChangedSegment: a row whose left pane is
// unchanged is rewritten from the segment after it, at that column.
func TestScreenRewritesRowsFromTheChangedSegment(t *testing.T) {
	w := newChanWriter()
	s := newScreen(w, tea.MouseModeNone)
	s.show(frame{content: rows("\x1b[0;1m日本\x1b[m│\x1b[mleft", "same")}, false)
	w.next(t)
	s.show(frame{content: rows("\x1b[0;1m日本\x1b[m│\x1b[mlift", "same")}, false)
	if out := w.next(t); !strings.Contains(out, "\x1b[1;6H\x1b[mlift") || strings.Contains(out, "日本") {
		t.Errorf("frame %q does not resume after the unchanged segment", out)
	}
	// A change before any reset rewrites the whole row.
	s.show(frame{content: rows("\x1b[0;1m日x\x1b[m│\x1b[mlift", "same")}, false)
	if out := w.next(t); !strings.Contains(out, "\x1b[1H\x1b[m\x1b[0;1m日x") {
		t.Errorf("frame %q does not rewrite the row from its start", out)
	}
	w.noMore(t, s)
}

// TestScreenOutputReproducesFrames feeds the writer's output for a run of
// random frames (styled text, long blank runs, backgrounds, wide
// characters, borders, rows that change in part) to a terminal emulator, and
// checks after each frame that it shows exactly what the frame says: the
// shortcuts of appendRow must never lose text, an attribute or a cell.
func TestScreenOutputReproducesFrames(t *testing.T) {
	const w, h = 60, 8
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{
		"text", "  ", strings.Repeat(" ", 15), strings.Repeat(" ", 30), "\x1b[31mred\x1b[m",
		"\x1b[44m" + strings.Repeat(" ", 14) + "\x1b[m", "\x1b[1mbold " + strings.Repeat(" ", 13) + "x\x1b[m", "世界", "│", "é",
		// Borders, and attributes that a reset ends and the next piece sets
		// again, alone or on top of another.
		"\x1b[38;5;240m│\x1b[m", "\x1b[31mr\x1b[m", "\x1b[1m\x1b[31mbr\x1b[m",
	}
	randomRow := func() string {
		var sb strings.Builder
		for ansi.StringWidth(sb.String()) < w {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return fitLine(sb.String(), w) + sgrReset
	}
	var out syncBuffer
	s := newScreen(&out, tea.MouseModeNone)
	defer s.close()
	got := vterm.New(w, h)
	cur := make([]string, h)
	for y := range cur {
		cur[y] = randomRow()
	}
	for i := range 200 {
		// Change a few rows, sometimes only their right part.
		for range 1 + rng.IntN(3) {
			y := rng.IntN(h)
			if rng.IntN(2) == 0 {
				cur[y] = randomRow()
			} else {
				cut := rng.IntN(w)
				cur[y] = fitLine(ansi.Truncate(cur[y], cut, "")+sgrReset+ansi.Strip(randomRow()), w) + sgrReset
			}
		}
		before := len(out.String())
		s.show(frame{content: strings.Join(cur, "\n")}, i == 0)
		// Each frame is one write, a synchronized update.
		waitFor(t, "the frame to be written", func() bool {
			o := out.String()
			return len(o) > before && strings.HasSuffix(o, seqSyncEnd)
		})
		_, _ = got.Write([]byte(out.String()[before:]))
		want := vterm.New(w, h)
		for y, r := range cur {
			_, _ = want.Write([]byte(appendCUP(nil, 0, y)))
			_, _ = want.Write([]byte(sgrReset + r))
		}
		for y := range h {
			if g, e := got.RenderRow(y), want.RenderRow(y); g != e {
				t.Fatalf("frame %d, row %d:\n got %q\nwant %q", i, y, g, e)
			}
		}
	}
}

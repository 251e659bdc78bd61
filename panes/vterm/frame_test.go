package vterm

import (
	"strings"
	"testing"
	"time"
)

// plainLines is the text of a Frame's rows joined by "|".
func plainLines(f *Frame) string {
	var b strings.Builder
	for i := range f.Cells {
		if i > 0 {
			b.WriteByte('|')
		}
		b.WriteString(f.Line(i))
	}
	return b.String()
}

func TestFrameCopiesRowsCursorAndModes(t *testing.T) {
	term := New(10, 3, WithScrollback(100))
	term.Write([]byte("one\r\ntwo\x1b[?1h\x1b[?1003h\x1b]2;ttl\x07"))
	var f Frame
	term.Frame(&f, 0)
	if got := plainLines(&f); got != "one|two|" {
		t.Errorf("lines = %q", got)
	}
	for y, row := range f.Cells {
		if len(row) != 10 {
			t.Fatalf("row %d has %d cells, want 10", y, len(row))
		}
		for x, c := range row {
			if c != term.Cell(x, y) {
				t.Errorf("cell %d,%d = %+v, Cell gives %+v", x, y, c, term.Cell(x, y))
			}
		}
	}
	if f.Cols != 10 || f.Rows != 3 || f.Seq != term.Seq() || f.Held || f.Offset != 0 {
		t.Errorf("frame = %+v", f)
	}
	if f.Cursor != term.Cursor() || f.Cursor.X != 3 || f.Cursor.Y != 1 {
		t.Errorf("cursor = %+v, want %+v", f.Cursor, term.Cursor())
	}
	if !f.Modes.AppCursor || f.Modes.Mouse != MouseAny || f.Modes.Title != "ttl" {
		t.Errorf("modes = %+v", f.Modes)
	}

	// IDs: an unchanged row keeps its ID, a changed one gets a new one,
	// and a scrolled row carries its ID along.
	ids := append([]uint64(nil), f.IDs...)
	term.Write([]byte("\x1b[3;1Hthree"))
	term.Frame(&f, 0)
	if f.IDs[0] != ids[0] || f.IDs[1] != ids[1] || f.IDs[2] == ids[2] {
		t.Errorf("IDs after writing row 2: %v, before %v", f.IDs, ids)
	}
	ids = append(ids[:0], f.IDs...)
	term.Write([]byte("\r\nfour"))
	term.Frame(&f, 0)
	if f.IDs[0] != ids[1] || f.IDs[1] != ids[2] || f.IDs[2] == ids[2] || f.HistLen != 1 {
		t.Errorf("IDs after a scroll: %v, before %v (history %d)", f.IDs, ids, f.HistLen)
	}

	// A window into history.
	term.Frame(&f, 5)
	if got := plainLines(&f); got != "one|two|three" || f.Offset != 1 || f.IDs[0] != 0 {
		t.Errorf("history view = %q offset %d ids %v", got, f.Offset, f.IDs)
	}
}

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestFrameHoldsSynchronizedUpdate(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	term := New(12, 3, WithScrollback(100), WithClock(clk.now))
	term.Write([]byte("old 1\r\nold 2\r\nold 3"))
	var f Frame
	term.Frame(&f, 0)
	before := plainLines(&f)

	// An update written in small pieces: no Frame taken before its end
	// shows any of it, cursor included, and once held its Seq stays put.
	update := "\x1b[?2026h\x1b[H\x1b[2Knew 1\r\n\x1b[2Knew 2\r\n\x1b[2Knew 3\x1b[1;1H"
	var heldSeq uint64
	for i := 0; i < len(update); i += 3 {
		term.Write([]byte(update[i:min(i+3, len(update))]))
		term.Frame(&f, 0)
		if got := plainLines(&f); got != before || f.Cursor.X != 5 || f.Cursor.Y != 2 {
			t.Fatalf("after %q the frame shows %q (cursor %+v), want %q",
				update[:min(i+3, len(update))], got, f.Cursor, before)
		}
		if i+3 < len("\x1b[?2026h") {
			continue // the update has not begun
		}
		if heldSeq == 0 {
			heldSeq = f.Seq
		}
		if !f.Held || f.Seq != heldSeq || !f.HeldUntil.Equal(clk.t.Add(SyncTimeout)) {
			t.Fatalf("after %q: held %v until %v, seq %d (held at %d)", update[:min(i+3, len(update))], f.Held, f.HeldUntil, f.Seq, heldSeq)
		}
	}
	// The live screen was written all along.
	if got := term.Text(); !strings.HasPrefix(got, "new 1\nnew 2\nnew 3") {
		t.Fatalf("live screen = %q", got)
	}
	term.Write([]byte("\x1b[?2026l"))
	term.Frame(&f, 0)
	if got := plainLines(&f); got != "new 1|new 2|new 3" || f.Held || f.Seq != term.Seq() || f.Cursor.X != 0 || f.Cursor.Y != 0 {
		t.Errorf("after the update ends: %q held %v cursor %+v", got, f.Held, f.Cursor)
	}

	// A window into history is not held back.
	term.Write([]byte("\x1b[?2026h\x1b[3;1H\r\nmore"))
	term.Frame(&f, 1)
	if f.Held || f.Offset != 1 {
		t.Errorf("history view held: %+v", f)
	}
	term.Frame(&f, 0)
	if !f.Held || plainLines(&f) != "new 1|new 2|new 3" {
		t.Errorf("live view during the second update: %q held %v", plainLines(&f), f.Held)
	}
	// A resize ends the hold: the child redraws for the new size.
	term.Resize(10, 3)
	term.Frame(&f, 0)
	if f.Held || f.Cols != 10 {
		t.Errorf("held across a resize: %+v", f)
	}
}

func TestFrameSyncTimeout(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	term := New(10, 2, WithClock(clk.now))
	term.Write([]byte("old"))
	var f Frame
	term.Frame(&f, 0)
	start := clk.t
	term.Write([]byte("\x1b[?2026h\x1b[Hnew"))
	clk.t = start.Add(SyncTimeout - time.Millisecond)
	term.Frame(&f, 0)
	if !f.Held || plainLines(&f) != "old|" || !f.HeldUntil.Equal(start.Add(SyncTimeout)) {
		t.Fatalf("before the timeout: %q held %v until %v", plainLines(&f), f.Held, f.HeldUntil)
	}
	// A nested start does not extend the hold.
	term.Write([]byte("\x1b[?2026h"))
	clk.t = start.Add(SyncTimeout)
	term.Frame(&f, 0)
	if f.Held || plainLines(&f) != "new|" || !term.Modes().Sync {
		t.Errorf("at the timeout: %q held %v (sync mode %v)", plainLines(&f), f.Held, term.Modes().Sync)
	}
	// The next update after the end is held again.
	term.Write([]byte("\x1b[?2026l"))
	term.Frame(&f, 0)
	term.Write([]byte("\x1b[?2026h\x1b[Hxyz"))
	term.Frame(&f, 0)
	if !f.Held || plainLines(&f) != "new|" {
		t.Errorf("next update: %q held %v", plainLines(&f), f.Held)
	}
}

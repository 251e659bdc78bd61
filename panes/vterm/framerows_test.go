package vterm

import (
	"testing"
	"time"
)

// mixedContent exercises every branch of the cell conversion: ASCII in
// colours and attributes, blanks, wide characters, runes that share a slot
// of the rune text cache (U+2500 and U+2600 are 256 apart), combining
// marks, a stray mark left by cursor movement, a joiner, an underline
// colour and a hyperlink, VS16, a prepended letter (U+0D4E) that a
// following blank would join as the last written cell of a row.
const mixedContent = "\x1b[1;31mred\x1b[0m plain \x1b[38;5;244mgrey\x1b[0m\r\n" +
	"日本語 ─☀─☀ e\u0301 x\r\n" +
	"\x1b[4:3m\x1b[58;2;1;2;3mcurly\x1b[0m \x1b]8;;https://example.com\x07link\x1b]8;;\x07 ✔\ufe0f\r\n" +
	"ab\x1b[1D\u200d\x1b[5C\u0301z \u0d4e"

// checkPutRow compares every row PutRow gives for rows with the cells
// Frame gives for the same content.
func checkPutRow(t *testing.T, what string, rows, cells *Frame) {
	t.Helper()
	if rows.Rows != cells.Rows || len(rows.Cells) != 0 {
		t.Fatalf("%s: FrameRows gave %d rows and %d rows of cells, want %d and none", what, rows.Rows, len(rows.Cells), cells.Rows)
	}
	for y := range cells.Rows {
		got := make([]Cell, rows.Cols+3)
		n := rows.PutRow(y, got)
		if n != len(cells.Cells[y]) {
			t.Fatalf("%s: PutRow(%d) wrote %d cells, want %d", what, y, n, len(cells.Cells[y]))
		}
		for x, c := range cells.Cells[y] {
			if got[x] != c {
				t.Errorf("%s: row %d cell %d = %+v, Frame has %+v", what, y, x, got[x], c)
			}
		}
		// A shorter span gets the row's first cells.
		short := make([]Cell, 4)
		if n := rows.PutRow(y, short); n != 4 || short[3] != cells.Cells[y][3] {
			t.Errorf("%s: PutRow(%d) into 4 cells wrote %d: %+v", what, y, n, short)
		}
	}
	if rows.PutRow(-1, make([]Cell, 4)) != 0 || rows.PutRow(rows.Rows, make([]Cell, 4)) != 0 {
		t.Errorf("%s: PutRow outside the rows wrote cells", what)
	}
}

func TestFrameRowsPutRowGivesFrameCells(t *testing.T) {
	term := New(24, 4, WithScrollback(50))
	term.Write([]byte(mixedContent))
	var rows, cells Frame
	term.FrameRows(&rows, 0)
	term.Frame(&cells, 0)
	if rows.IDs[1] != cells.IDs[1] || rows.Line(1) != cells.Line(1) || cells.Line(1) == "" {
		t.Fatalf("FrameRows IDs %v line %q, Frame IDs %v line %q", rows.IDs, rows.Line(1), cells.IDs, cells.Line(1))
	}
	if got, want := rows.Line(1), "日本語 ─☀─☀ e\u0301 x"; got != want {
		t.Errorf("row 1 = %q, want %q", got, want)
	}
	checkPutRow(t, "live", &rows, &cells)

	// Rows from history.
	term.Write([]byte("\r\n" + mixedContent + "\r\nmore"))
	term.FrameRows(&rows, 3)
	term.Frame(&cells, 3)
	if rows.Offset != 3 {
		t.Fatalf("offset %d", rows.Offset)
	}
	checkPutRow(t, "history", &rows, &cells)
}

// A copy taken with FrameRows is the copy's own: the terminal writing the
// rows afterwards does not change what PutRow gives.
func TestFrameRowsCopyStaysAsTaken(t *testing.T) {
	term := New(10, 2, WithScrollback(0))
	term.Write([]byte("before"))
	var f Frame
	term.FrameRows(&f, 0)
	term.Write([]byte("\x1b[Hafter!"))
	if got := f.Line(0); got != "before" {
		t.Errorf("row 0 of the copy = %q after the terminal wrote it, want %q", got, "before")
	}
	var g Frame
	term.FrameRows(&g, 0)
	if got := g.Line(0); got != "after!" {
		t.Errorf("row 0 of a new copy = %q", got)
	}
}

// The copy a synchronized update holds back may have been taken by
// FrameRows; Frame still hands it out with cells.
func TestFrameGivesCellsOfAHoldTakenByFrameRows(t *testing.T) {
	now := time.Unix(100, 0)
	term := New(10, 2, WithScrollback(0), WithClock(func() time.Time { return now }))
	term.Write([]byte("old"))
	var rows Frame
	term.FrameRows(&rows, 0)
	term.Write([]byte("\x1b[?2026h\x1b[Hnew"))
	var f Frame
	term.Frame(&f, 0)
	if !f.Held || len(f.Cells) != 2 || f.Line(0) != "old" || f.Cells[0][0].Content != "o" {
		t.Fatalf("held frame: held %v, %d rows of cells, line %q", f.Held, len(f.Cells), f.Line(0))
	}
	term.FrameRows(&rows, 0)
	if !rows.Held || len(rows.Cells) != 0 || rows.Line(0) != "old" {
		t.Fatalf("held FrameRows: held %v, %d rows of cells, line %q", rows.Held, len(rows.Cells), rows.Line(0))
	}
}

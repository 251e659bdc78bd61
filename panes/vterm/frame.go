package vterm

import "time"

// SyncTimeout is how long a synchronized update (mode 2026) may hold back
// what Frame shows. Agent CLIs finish an update within milliseconds, so a
// second is far more than any real update needs even on a loaded machine,
// yet short enough that a program killed or stuck between the start and
// the end of an update does not freeze its pane for long: after the
// timeout Frame shows what is there, as other terminals do.
const SyncTimeout = time.Second

// Frame is a consistent copy of what a front end draws of a terminal: its
// rows, cursor and modes, all taken under one acquisition of the
// terminal's lock, so a frame composed from it never shows part of a
// write.
//
// Rows of cells are shared with the terminal's per-row cache: copying an
// unchanged row costs a slice header, and only rows written since the last
// copy are converted again.
type Frame struct {
	// Seq is the terminal's Seq for the content copied. While an update is
	// held back it stays the Seq of the held copy, so a caller that skips
	// panes whose Seq did not change skips the writes of the update too.
	Seq uint64
	// Cols is the width of every row; Rows is len(Cells).
	Cols, Rows int
	// Cells are the rows shown, each exactly Cols cells (the right half of
	// a wide character is a cell of width 0). A row slice is shared and
	// must not be written to.
	Cells [][]Cell
	// IDs name the content of each row: a row whose ID equals one seen in
	// an earlier Frame of the same terminal has the same cells (the very
	// same slice). Rows taken from history have ID 0 (they are converted
	// afresh each time).
	IDs []uint64
	// Offset is how many lines back into history the copy starts, after
	// clamping (0 = the live screen).
	Offset int
	// HistLen is the number of history lines (ScrollbackLen).
	HistLen int
	// Pushed counts the lines pushed into history so far, those the
	// scrollback cap dropped included: the anchor of FrameRowsFrom.
	Pushed uint64
	Cursor Cursor
	Modes  Modes
	// Held reports that the child is inside a synchronized update, so the
	// copy is the one taken before the update began; HeldUntil is when the
	// hold times out at the latest, so a caller that draws a held frame
	// knows when to look again even if the child never ends the update.
	Held      bool
	HeldUntil time.Time

	// raw are the rows in the terminal's compact form, shared like Cells;
	// graphemes and extras are the side tables they refer to (append-only,
	// so the slice headers taken under the lock stay valid); conv is this
	// copy's converter, never shared with another Frame.
	raw       [][]cell
	graphemes []string
	extras    []extra
	conv      *rowConv
}

// WithClock sets the clock that times synchronized updates (the default is
// time.Now); tests substitute a fake one.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

func (t *Terminal) now() time.Time {
	if t.cfg.now != nil {
		return t.cfg.now()
	}
	return time.Now()
}

// setSync records the child's DECSET/DECRST 2026. Only the start of an
// update is timed; nested starts keep the first.
func (t *Terminal) setSync(on bool) {
	if on && !t.sync {
		t.syncStart = t.now()
	}
	t.sync = on
}

// Frame copies into dst what a front end draws of the window scrolled
// offset lines back into history (0 = the live screen), reusing dst's
// slices.
//
// Inside a synchronized update (mode 2026) the live screen is held back:
// Frame hands out the last copy of the live screen it made before the
// update began (its rows are immutable and shared), until the child ends
// the update or SyncTimeout passes. A window into history is never held:
// the user scrolled back to read what is there.
func (t *Terminal) Frame(dst *Frame, offset int) { t.frame(dst, offset, 0, false, true) }

// FrameRows is Frame without Cells: the rows are left in the terminal's
// compact form, for PutRow to convert where the caller wants them. A
// front end that draws only the rows whose IDs changed converts only
// those, without the allocation of a row of cells each.
func (t *Terminal) FrameRows(dst *Frame, offset int) { t.frame(dst, offset, 0, false, false) }

// FrameRowsFrom is FrameRows for a window anchored to its lines: offset is
// how far back the window was when history had taken pushed lines (the
// Pushed of the frame that showed it). Lines pushed since move the window
// back with them, under the same lock as the copy, so output arriving
// between two frames never shifts what a scrolled-back view shows, even
// once the scrollback cap drops a line for each new one. Offset 0 follows
// the live screen. dst's Offset and Pushed anchor the next call.
func (t *Terminal) FrameRowsFrom(dst *Frame, offset int, pushed uint64) {
	t.frame(dst, offset, pushed, true, false)
}

func (t *Terminal) frame(dst *Frame, offset int, pushed uint64, anchored, cells bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if anchored && offset > 0 {
		// Two's complement: lines taken back from history give a negative
		// difference.
		offset += int(int64(t.hist.pushed - pushed))
	}
	if t.altActive {
		offset = 0
	}
	offset = min(max(offset, 0), t.hist.n)
	if offset == 0 && t.holding() {
		t.copyFrame(dst, &t.held)
		if !cells {
			dst.Cells = dst.Cells[:0]
		} else if len(dst.Cells) != len(dst.raw) {
			// The held copy was taken without cells: convert its rows.
			dst.Cells = dst.Cells[:0]
			for _, r := range dst.raw {
				dst.Cells = append(dst.Cells, t.appendCells(make([]Cell, 0, len(r)), r))
			}
		}
		dst.Held = true
		dst.HeldUntil = t.syncStart.Add(SyncTimeout)
		return
	}
	dst.Seq = t.seq
	dst.Cols, dst.Rows = t.cols, t.rows
	dst.Cells, dst.raw, dst.IDs = t.cellsView(offset, cells, dst.Cells[:0], dst.raw[:0], dst.IDs[:0])
	dst.graphemes, dst.extras = t.tables.graphemes, t.tables.extras
	dst.Offset = offset
	dst.HistLen = t.histLen()
	dst.Pushed = t.hist.pushed
	dst.Cursor = Cursor{X: t.cur.x, Y: t.cur.y, Visible: t.cursorVisible, Style: t.cursorStyle}
	dst.Modes = t.modes()
	dst.Held, dst.HeldUntil = false, time.Time{}
	if offset == 0 && !t.sync {
		// Keep this copy: it is what the next update holds back to.
		t.copyFrame(&t.held, dst)
		t.heldOK = true
	}
}

// holding reports whether Frame shows the held copy: inside an update,
// within the timeout, with a copy taken at the current size (a resize ends
// the hold, since the child redraws for the new size anyway).
func (t *Terminal) holding() bool {
	return t.sync && t.heldOK && t.held.Cols == t.cols && t.held.Rows == t.rows &&
		t.now().Before(t.syncStart.Add(SyncTimeout))
}

// copyFrame copies src into dst, reusing dst's slices.
func (t *Terminal) copyFrame(dst, src *Frame) {
	rows, ids := append(dst.Cells[:0], src.Cells...), append(dst.IDs[:0], src.IDs...)
	raw, conv := append(dst.raw[:0], src.raw...), dst.conv
	*dst = *src
	dst.Cells, dst.IDs, dst.raw, dst.conv = rows, ids, raw, conv
}

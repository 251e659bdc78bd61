package termrt

import (
	"io"
	"strconv"
	"sync"

	tea "charm.land/bubbletea/v2"
)

// Sequences the screen writer uses. Synchronized output (mode 2026) makes
// a terminal that knows it show each frame whole; others ignore it.
const (
	seqSyncBegin  = "\x1b[?2026h"
	seqSyncEnd    = "\x1b[?2026l"
	seqShowCursor = "\x1b[?25h"
	seqHideCursor = "\x1b[?25l"
	seqClear      = "\x1b[H\x1b[2J"
	seqReset      = "\x1b[m"
	// The mouse modes: button-event (1002) or any-event (1003) tracking,
	// always with SGR coordinates (1006) so wide terminals work.
	seqMouseCellOn  = "\x1b[?1002h\x1b[?1006h"
	seqMouseAllOn   = "\x1b[?1003h\x1b[?1006h"
	seqMouseCellOff = "\x1b[?1002l"
	seqMouseAllOff  = "\x1b[?1003l"
	seqMouseOff     = "\x1b[?1002l\x1b[?1003l\x1b[?1006l"
)

// screen writes frames to the outer terminal from its own goroutine. The
// event loop hands it the latest frame and never waits for the terminal: a
// frame handed over while the previous one is still being written replaces
// any frame that was waiting, so a slow terminal gets fewer, newer frames
// instead of a growing queue. Each write sends only the cells that differ
// from what the terminal already shows, in one synchronized update.
type screen struct {
	out  io.Writer
	wake chan struct{} // cap 1: there is something in pending
	done chan struct{} // closed when the writer goroutine has ended
	// wrote is closed once the writer has woken up for the first time and
	// written what there was (the first frame), or when it ends: what can
	// wait until the first frame is out waits for it.
	wrote chan struct{}

	mu      sync.Mutex
	pending struct {
		raw     []byte // written before the frame, in arrival order
		cv      *Canvas
		cursor  *tea.Cursor
		mouse   tea.MouseMode
		have    bool // a frame is set
		repaint bool // redraw every cell, not just the changed ones
		stop    bool
	}

	// The writer goroutine's own state: what the terminal shows now.
	cellWriter
	next   *Canvas // the frame being drawn: pending's written rows copied in
	src    *Canvas // the program's canvas pending was last copied from
	mouse  tea.MouseMode
	shown  bool // the cursor is visible
	style  int  // the DECSCUSR cursor style set; 0 is the terminal's default
	buf    []byte
	failed bool // a write failed: the terminal is gone, stop writing
}

// newScreen starts the writer for out. mouse is the mouse mode the
// terminal setup already turned on; caps what the terminal can show.
func newScreen(out io.Writer, mouse tea.MouseMode, caps writerCaps) *screen {
	s := &screen{out: out, wake: make(chan struct{}, 1), done: make(chan struct{}), wrote: make(chan struct{}), mouse: mouse, next: new(Canvas)}
	s.pending.cv = new(Canvas)
	s.shownCv = new(Canvas)
	s.caps = caps
	s.beforeChange = s.hideCursor
	go s.run()
	return s
}

// show makes f the next frame to draw: its cells are copied, only the
// rows written since the last show when f has the same canvas (the caller
// then clears the canvas's marks, see Program.draw). repaint
// redraws every cell rather than the changed ones: after a resize or a
// ClearScreen the terminal no longer shows what the writer believes it
// does.
func (s *screen) show(f Frame, repaint bool) {
	s.mu.Lock()
	switch {
	case f.Canvas == nil:
		s.pending.cv.Resize(0, 0)
	case f.Canvas != s.src:
		s.pending.cv.CopyFrom(f.Canvas)
	default:
		// The same canvas as last time: only the rows written since.
		s.pending.cv.CopyDirty(f.Canvas)
	}
	s.src = f.Canvas
	s.pending.cursor, s.pending.mouse, s.pending.have = f.Cursor, f.Mouse, true
	s.pending.repaint = s.pending.repaint || repaint
	s.mu.Unlock()
	s.poke()
}

// raw queues bytes for the terminal as they are (a bell, a notification).
func (s *screen) raw(b string) {
	s.mu.Lock()
	s.pending.raw = append(s.pending.raw, b...)
	s.mu.Unlock()
	s.poke()
}

// close writes what is pending and stops the writer; the terminal can be
// restored once it returns.
func (s *screen) close() {
	s.mu.Lock()
	s.pending.stop = true
	s.mu.Unlock()
	s.poke()
	<-s.done
}

func (s *screen) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// run is the writer goroutine.
func (s *screen) run() {
	defer close(s.done)
	firstOut := sync.OnceFunc(func() { close(s.wrote) })
	defer firstOut()
	var raw []byte
	for range s.wake {
		s.mu.Lock()
		raw = append(raw[:0], s.pending.raw...)
		s.pending.raw = s.pending.raw[:0]
		have, repaint, stop := s.pending.have, s.pending.repaint, s.pending.stop
		cursor, mouse := s.pending.cursor, s.pending.mouse
		if have {
			s.next.CopyDirty(s.pending.cv)
			s.pending.cv.ClearDirty()
		}
		s.pending.have, s.pending.repaint = false, false
		s.mu.Unlock()

		b := append(s.buf[:0], raw...)
		if have {
			b = s.draw(b, s.next, cursor, mouse, repaint)
			s.next.ClearDirty()
		}
		if len(b) > 0 && !s.failed {
			if _, err := s.out.Write(b); err != nil {
				s.failed = true
			}
		}
		firstOut()
		s.buf = b
		if stop {
			s.mu.Lock()
			s.pending.cv.Release()
			s.mu.Unlock()
			s.next.Release()
			s.shownCv.Release()
			return
		}
	}
}

// draw appends to b what brings the terminal from its current content to
// cv: the cells that changed (all of them with repaint), the mouse mode,
// the cursor, in one synchronized update.
func (s *screen) draw(b []byte, cv *Canvas, cursor *tea.Cursor, mouse tea.MouseMode, repaint bool) []byte {
	start := len(b)
	b = append(b, seqSyncBegin...)
	open := len(b)

	b, changed := s.cellWriter.draw(b, cv, repaint)
	b = s.setMouse(b, mouse)
	b = s.placeCursor(b, cursor, changed)

	if len(b) == open {
		return b[:start] // nothing to do: no empty synchronized update
	}
	return append(b, seqSyncEnd...)
}

func (s *screen) hideCursor(b []byte) []byte {
	if s.shown {
		s.shown = false
		b = append(b, seqHideCursor...)
	}
	return b
}

// placeCursor shows the cursor at c, in its shape, or keeps it hidden. moved
// says the rows written since moved the terminal's cursor.
func (s *screen) placeCursor(b []byte, c *tea.Cursor, moved bool) []byte {
	if c == nil {
		return s.hideCursor(b)
	}
	if moved || !s.shown || c.X != s.cx || c.Y != s.cy {
		b = s.moveTo(b, c.X, c.Y)
	}
	if st := cursorStyle(c); st != s.style {
		b = append(b, "\x1b["...)
		b = strconv.AppendInt(b, int64(st), 10)
		b = append(b, " q"...)
		s.style = st
	}
	if !s.shown {
		b = append(b, seqShowCursor...)
		s.shown = true
	}
	return b
}

// cursorStyle is c's DECSCUSR number. A blinking block, what a cursor is
// unless the pane asked otherwise, is left to the terminal's default (0)
// so that the user's own cursor setting shows.
func cursorStyle(c *tea.Cursor) int {
	st := int(c.Shape)*2 + 1
	if !c.Blink {
		st++
	}
	if st == 1 {
		return 0
	}
	return st
}

// setMouse switches the terminal's mouse reporting to m.
func (s *screen) setMouse(b []byte, m tea.MouseMode) []byte {
	if m == s.mouse {
		return b
	}
	switch m {
	case tea.MouseModeCellMotion:
		if s.mouse == tea.MouseModeAllMotion {
			b = append(b, seqMouseAllOff...)
		}
		b = append(b, seqMouseCellOn...)
	case tea.MouseModeAllMotion:
		if s.mouse == tea.MouseModeCellMotion {
			b = append(b, seqMouseCellOff...)
		}
		b = append(b, seqMouseAllOn...)
	default:
		b = append(b, seqMouseOff...)
	}
	s.mouse = m
	return b
}

// appendCUP moves the cursor to column x, row y (both from 0).
func appendCUP(b []byte, x, y int) []byte {
	b = append(b, "\x1b["...)
	b = strconv.AppendInt(b, int64(y+1), 10)
	if x > 0 {
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(x+1), 10)
	}
	return append(b, 'H')
}

// sameFrame reports whether showing b after a changes nothing.
func sameFrame(a, b Frame) bool {
	if a.Canvas != b.Canvas || a.Gen != b.Gen || a.Mouse != b.Mouse || (a.Cursor == nil) != (b.Cursor == nil) {
		return false
	}
	if a.Cursor == nil {
		return true
	}
	ac, bc := a.Cursor, b.Cursor
	return ac.Position == bc.Position && ac.Shape == bc.Shape && ac.Blink == bc.Blink && ac.Color == bc.Color
}

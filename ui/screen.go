package ui

import (
	"io"
	"strconv"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Sequences the screen writer uses. Synchronized output (mode 2026) makes
// a terminal that knows it show each frame whole; others ignore it.
const (
	seqSyncBegin  = "\x1b[?2026h"
	seqSyncEnd    = "\x1b[?2026l"
	seqShowCursor = "\x1b[?25h"
	seqHideCursor = "\x1b[?25l"
	seqClear      = "\x1b[H\x1b[2J"
	seqEraseLine  = "\x1b[2K"
	// The mouse modes: button-event (1002) or any-event (1003) tracking,
	// always with SGR coordinates (1006) so wide terminals work.
	seqMouseCellOn  = "\x1b[?1002h\x1b[?1006h"
	seqMouseAllOn   = "\x1b[?1003h\x1b[?1006h"
	seqMouseCellOff = "\x1b[?1002l"
	seqMouseAllOff  = "\x1b[?1003l"
	seqMouseOff     = "\x1b[?1002l\x1b[?1003l\x1b[?1006l"
)

// frame is what the screen shows: the view's rows, where the cursor is
// (nil hides it) and which mouse events the terminal reports.
type frame struct {
	content string
	cursor  *tea.Cursor
	mouse   tea.MouseMode
}

// screen writes frames to the outer terminal from its own goroutine. The
// event loop hands it the latest frame and never waits for the terminal: a
// frame handed over while the previous one is still being written replaces
// any frame that was waiting, so a slow terminal gets fewer, newer frames
// instead of a growing queue. Each write sends only the rows that differ
// from what the terminal already shows, each from the first pane segment
// that changed, in one synchronized update.
type screen struct {
	out  io.Writer
	wake chan struct{} // cap 1: there is something in pending
	done chan struct{} // closed when the writer goroutine has ended

	mu      sync.Mutex
	pending struct {
		raw     []byte // written before the frame, in arrival order
		frame   frame
		have    bool // frame is set
		repaint bool // redraw every row, not just the changed ones
		stop    bool
	}

	// The writer goroutine's own state: what the terminal shows now.
	rows   []string
	mouse  tea.MouseMode
	shown  bool // the cursor is visible
	cx, cy int  // where the cursor was put
	style  int  // the DECSCUSR cursor style set; 0 is the terminal's default
	buf    []byte
	failed bool // a write failed: the terminal is gone, stop writing
}

// newScreen starts the writer for out. mouse is the mouse mode the
// terminal setup already turned on.
func newScreen(out io.Writer, mouse tea.MouseMode) *screen {
	s := &screen{out: out, wake: make(chan struct{}, 1), done: make(chan struct{}), mouse: mouse}
	go s.run()
	return s
}

// show makes f the next frame to draw. repaint redraws every row rather
// than the changed ones: after a resize or a ClearScreen the terminal no
// longer shows what the writer believes it does.
func (s *screen) show(f frame, repaint bool) {
	s.mu.Lock()
	s.pending.frame, s.pending.have = f, true
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
	var raw []byte
	for range s.wake {
		s.mu.Lock()
		raw = append(raw[:0], s.pending.raw...)
		s.pending.raw = s.pending.raw[:0]
		f, have, repaint, stop := s.pending.frame, s.pending.have, s.pending.repaint, s.pending.stop
		s.pending.have, s.pending.repaint = false, false
		s.mu.Unlock()

		b := append(s.buf[:0], raw...)
		if have {
			b = s.draw(b, f, repaint)
		}
		if len(b) > 0 && !s.failed {
			if _, err := s.out.Write(b); err != nil {
				s.failed = true
			}
		}
		s.buf = b
		if stop {
			return
		}
	}
}

// draw appends to b what brings the terminal from its current content to
// f: the rows that changed (all of them with repaint), the mouse mode, the
// cursor, in one synchronized update.
func (s *screen) draw(b []byte, f frame, repaint bool) []byte {
	rows := strings.Split(f.content, "\n")
	start := len(b)
	b = append(b, seqSyncBegin...)
	open := len(b)

	var changed bool
	if repaint {
		b = s.hideCursor(b)
		b = append(b, sgrReset+seqClear...)
		changed = true
	}
	for y, r := range rows {
		if repaint {
			if r == "" {
				continue
			}
		} else if y < len(s.rows) && s.rows[y] == r {
			continue
		}
		if !changed {
			b = s.hideCursor(b)
			changed = true
		}
		from, col := 0, 0
		if !repaint && y < len(s.rows) {
			from, col = resumeAt(s.rows[y], r)
		}
		b = appendCUP(b, col, y)
		b = append(b, sgrReset...)
		b = appendRow(b, r[from:])
	}
	// A shorter frame (the "terminal too small" notice) leaves rows below
	// it that must not keep the old content.
	if !repaint {
		for y := len(rows); y < len(s.rows); y++ {
			if s.rows[y] == "" {
				continue
			}
			if !changed {
				b = s.hideCursor(b)
				changed = true
			}
			b = appendCUP(b, 0, y)
			b = append(b, sgrReset+seqEraseLine...)
		}
	}
	if changed {
		b = append(b, sgrReset...)
	}
	s.rows = rows

	b = s.setMouse(b, f.mouse)
	b = s.placeCursor(b, f.cursor, changed)

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
		b = appendCUP(b, c.X, c.Y)
		s.cx, s.cy = c.X, c.Y
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

// resumeAt finds where redrawing row r over old may start: the last SGR
// reset inside their common prefix, with the cell column it falls on. A row
// is its panes' segments side by side, each ending with a reset, so when
// one pane changes the panes left of it are not sent again; after a reset
// nothing is pending that the skipped part would have set up.
func resumeAt(old, r string) (from, col int) {
	n := 0
	for n < len(old) && n < len(r) && old[n] == r[n] {
		n++
	}
	i := strings.LastIndex(r[:n], sgrReset)
	if i < 0 {
		return 0, 0
	}
	from = i + len(sgrReset)
	return from, ansi.StringWidth(r[:from])
}

// minBlankRun is the shortest run of blanks worth sending as an erase and a
// cursor move (ECH n, CUF n: about ten bytes) rather than as spaces.
const minBlankRun = 12

// appendRow appends seg, the rest of a row that starts with no attributes
// set, in fewer bytes than it takes as composed:
//   - long runs of unstyled blanks go out as "erase n cells, move right n",
//     and blanks that end the row as "erase to the end of the line": pane
//     content is mostly blank. Blanks after any attribute or a hyperlink go
//     out as they are, since an erase would lose their background or link;
//   - a reset followed by the very attribute it ended is left out, as
//     between two neighbouring borders of the same colour ("│" reset, then
//     the same colour and "│" again).
func appendRow(b []byte, seg string) []byte {
	plain := true    // no attribute set since the last reset
	last := ""       // the one SGR set since the last reset ("" if none or several)
	pending := false // a reset is due but not yet written
	before := ""     // last, as it was when the pending reset came
	flush := func() {
		if pending {
			b = append(b, sgrReset...)
			pending = false
		}
	}
	for i := 0; i < len(seg); {
		c := seg[i]
		switch {
		case c == 0x1b:
			n := escapeLen(seg[i:])
			esc := seg[i : i+n]
			i += n
			switch {
			case esc == sgrReset || esc == "\x1b[0m":
				if !pending {
					before = last
				}
				plain, last, pending = true, "", true
				continue
			case strings.HasPrefix(esc, "\x1b[") && esc[len(esc)-1] == 'm':
				if pending && before != "" && esc == before {
					// The reset and this SGR cancel out.
					pending, plain, last = false, false, before
					continue
				}
				last = ""
				if plain {
					last = esc // the first since the reset; a second leaves ""
				}
				plain = false
			case !strings.HasPrefix(esc, "\x1b["):
				plain, last = false, "" // an OSC (hyperlink) or anything else
			}
			flush()
			b = append(b, esc...)
		case c == ' ' && plain:
			flush()
			j := i
			for j < len(seg) && seg[j] == ' ' {
				j++
			}
			run := j - i
			switch {
			case onlyEscapes(seg[j:]) && run >= 4:
				b = append(b, "\x1b[K"...)
			case run >= minBlankRun:
				b = append(b, "\x1b["...)
				b = strconv.AppendInt(b, int64(run), 10)
				b = append(b, "X\x1b["...)
				b = strconv.AppendInt(b, int64(run), 10)
				b = append(b, 'C')
			default:
				b = append(b, seg[i:j]...)
			}
			i = j
		default:
			flush()
			b = append(b, c)
			i++
		}
	}
	flush()
	return b
}

// escapeLen is the length of the escape sequence s starts with: a CSI up to
// its final byte, an OSC, DCS or APC up to its terminator, else two bytes.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case ']', 'P', '_':
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	return 2
}

// onlyEscapes reports whether s holds nothing but escape sequences, so that
// erasing to the end of the line from here loses no text.
func onlyEscapes(s string) bool {
	for i := 0; i < len(s); {
		if s[i] != 0x1b {
			return false
		}
		i += escapeLen(s[i:])
	}
	return true
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
func sameFrame(a, b frame) bool {
	if a.content != b.content || a.mouse != b.mouse || (a.cursor == nil) != (b.cursor == nil) {
		return false
	}
	if a.cursor == nil {
		return true
	}
	ac, bc := a.cursor, b.cursor
	return ac.Position == bc.Position && ac.Shape == bc.Shape && ac.Blink == bc.Blink && ac.Color == bc.Color
}

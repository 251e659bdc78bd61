package vterm

import (
	"sync"
	"time"
)

// Size limits: a zero or negative size becomes 1; a huge one is capped so a
// hostile resize cannot allocate gigabytes.
const (
	maxCols = 4096
	maxRows = 2048
)

// cursor is the cursor position plus everything DECSC saves with it.
type cursor struct {
	x, y     int
	pen      cell // style of the next printed cell (ch unused)
	wrapNext bool // pending wrap: the last column was just written
	origin   bool // DECOM
	charsets [2]byte
	gl       int // 0: G0 active (SI), 1: G1 active (SO)
	ul       Color
	link     string
}

// Terminal is a terminal emulator: a screen, scrollback, and modes, fed by
// Write. All methods are safe for concurrent use.
type Terminal struct {
	mu  sync.Mutex
	cfg config

	cols, rows int
	main, alt  screen
	scr        *screen
	hist       history
	altActive  bool

	cur                 cursor
	savedMain, savedAlt cursor
	top, bot            int // scroll region, inclusive

	autowrap      bool
	insert        bool
	cursorVisible bool
	cursorStyle   CursorStyle
	appCursor     bool
	appKeypad     bool
	bracketed     bool
	focusEvents   bool
	mouse         MouseMode
	mouseSGR      bool
	sync          bool
	otherKeys     int  // modifyOtherKeys level (CSI > 4 ; N m)
	graphemes     bool // mode 2027: widths of whole grapheme clusters
	kittyMain     []int
	kittyAlt      []int

	tabs []bool

	tables sideTables

	lastRune rune // last printed character, for REP

	title, iconTitle string

	p parser

	seq    uint64
	events []event
	// spareEvents is the list a dispatched Write gave back, so a pane
	// printing titles or bells in a loop does not allocate one per Write.
	spareEvents []event
	// pendingAt holds, per coalesced kind (title, cwd, bell), 1 + its
	// index in events, or 0.
	pendingAt [3]int
	reply     *replyQueue

	scratch  []byte
	mergeBuf []byte

	lastID    uint64    // the last row content ID handed out
	syncStart time.Time // when the current synchronized update began
	held      Frame     // the last live copy taken outside an update
	heldOK    bool
}

// New returns a terminal of the given size (clamped to at least 1x1).
func New(cols, rows int, opts ...Option) *Terminal {
	t := &Terminal{}
	for _, o := range opts {
		o(&t.cfg)
	}
	if t.cfg.reply != nil {
		t.reply = newReplyQueue(t.cfg.reply)
	}
	cols, rows = clampSize(cols, rows)
	t.cols, t.rows = cols, rows
	t.hist.max = t.cfg.scrollback
	t.main = newScreen(cols, rows)
	t.alt = newScreen(cols, rows)
	t.scr = &t.main
	t.reset()
	return t
}

func clampSize(cols, rows int) (int, int) {
	return min(max(cols, 1), maxCols), min(max(rows, 1), maxRows)
}

// reset puts everything except size, history and the main screen contents
// into the power-on state (used by New and RIS, which also clears).
func (t *Terminal) reset() {
	t.cur = cursor{charsets: [2]byte{'B', 'B'}}
	t.savedMain, t.savedAlt = t.cur, t.cur
	t.top, t.bot = 0, t.rows-1
	t.autowrap = true
	t.insert = false
	t.cursorVisible = true
	t.cursorStyle = CursorDefault
	t.appCursor, t.appKeypad, t.bracketed, t.focusEvents = false, false, false, false
	t.mouse, t.mouseSGR, t.sync = MouseNone, false, false
	t.otherKeys = 0
	t.graphemes = false
	t.kittyMain, t.kittyAlt = t.kittyMain[:0], t.kittyAlt[:0]
	t.altActive = false
	t.scr = &t.main
	t.resetTabs()
	t.p.reset()
}

func (t *Terminal) resetTabs() {
	if cap(t.tabs) >= t.cols {
		t.tabs = t.tabs[:t.cols]
	} else {
		t.tabs = make([]bool, t.cols)
	}
	for i := range t.tabs {
		t.tabs[i] = i%8 == 0 && i > 0
	}
}

// Write feeds child output to the terminal. It never fails and never blocks
// on the reply writer.
func (t *Terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.parse(p)
	t.seq++
	var evs []event
	if len(t.events) > 0 {
		evs = t.events
		t.events, t.spareEvents = t.spareEvents, nil
		t.pendingAt = [3]int{}
	}
	t.mu.Unlock()
	if evs != nil {
		t.dispatch(evs)
		clear(evs) // drop the strings
		t.mu.Lock()
		if t.spareEvents == nil {
			t.spareEvents = evs[:0]
		}
		t.mu.Unlock()
	}
	return len(p), nil
}

// Size returns the screen size in cells.
func (t *Terminal) Size() (cols, rows int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cols, t.rows
}

// Cursor returns the cursor position and look.
func (t *Terminal) Cursor() Cursor {
	t.mu.Lock()
	defer t.mu.Unlock()
	return Cursor{X: t.cur.x, Y: t.cur.y, Visible: t.cursorVisible, Style: t.cursorStyle}
}

// Cell returns the cell at (x, y) of the visible screen; out of range gives
// a blank cell.
func (t *Terminal) Cell(x, y int) Cell {
	t.mu.Lock()
	defer t.mu.Unlock()
	if x < 0 || y < 0 || x >= t.cols || y >= t.rows {
		return Cell{Content: " ", Width: 1}
	}
	return t.tables.publicCell(t.scr.row(y).cells[x])
}

// ScrollbackLen returns the number of history lines. While the alternate
// screen is shown there is no history (as in tmux), so it returns 0.
func (t *Terminal) ScrollbackLen() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.histLen()
}

func (t *Terminal) histLen() int {
	if t.altActive {
		return 0
	}
	return t.hist.n
}

// Seq increases on every Write and resize; compare it to skip redraws.
func (t *Terminal) Seq() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seq
}

// Title returns the window title set by OSC 0/2.
func (t *Terminal) Title() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.title
}

// Modes returns the modes the child set.
func (t *Terminal) Modes() Modes {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.modes()
}

func (t *Terminal) modes() Modes {
	return Modes{
		AltScreen:      t.altActive,
		AppCursor:      t.appCursor,
		AppKeypad:      t.appKeypad,
		BracketedPaste: t.bracketed,
		FocusEvents:    t.focusEvents,
		Mouse:          t.mouse,
		MouseSGR:       t.mouseSGR,
		Sync:           t.sync,
		KittyFlags:     t.kittyFlags(),
		OtherKeys:      t.otherKeys,
		Graphemes:      t.graphemes,
		CursorVisible:  t.cursorVisible,
		Title:          t.title,
	}
}

func (t *Terminal) kittyStack() *[]int {
	if t.altActive {
		return &t.kittyAlt
	}
	return &t.kittyMain
}

func (t *Terminal) kittyFlags() int {
	s := *t.kittyStack()
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1]
}

// Text returns the visible screen as plain text like `tmux capture-pane -p`:
// one line per row, trailing blanks trimmed.
func (t *Terminal) Text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b []byte
	for y := 0; y < t.rows; y++ {
		b = t.appendPlain(b, t.scr.row(y).cells)
		b = append(b, '\n')
	}
	return string(b)
}

// appendPlain appends the text of a row, trailing blanks trimmed.
func (t *Terminal) appendPlain(b []byte, cs []cell) []byte {
	n := len(cs)
	for n > 0 && (cs[n-1].ch == 0 || cs[n-1].ch == ' ') && !cs[n-1].cont() {
		n--
	}
	for _, c := range cs[:n] {
		b = t.tables.appendContent(b, c)
	}
	return b
}

// Package vterm is agentgrid's terminal emulator: it turns a child's output
// bytes into a grid of styled cells (screen plus scrollback) that the UI
// draws, answers the child's queries, and records the modes the child asked
// for so keys and mouse events can be encoded the way it expects.
//
// tmux is the reference for behaviour, including its less obvious
// policies: a pending wrap survives LF, a scroll region's top line goes to
// history on the main screen, ED 2 (and ED 0 from the home position) and
// RIS scroll the used rows into history, shrinking the height drops rows
// below the cursor first. Deliberate differences: invalid UTF-8 shows as
// U+FFFD; grapheme clusters follow the outer renderer (x/ansi), not tmux's
// per-codepoint rules, though VS16 widens a symbol only for a program
// that asked for grapheme widths (mode 2027; docs/WIDTHS.md); the cursor X
// reported during a pending wrap is the last column (tmux reports one past
// it); a cell that the renderer would fuse into its neighbour is drawn as
// U+FFFD.
package vterm

import (
	"image/color"
	"io"
	"sync/atomic"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
)

// Version is reported to the child in the XTVERSION reply.
const Version = "0.1.0"

// Option configures a Terminal created by New.
type Option func(*config)

type config struct {
	scrollback int
	reply      io.Writer
	callbacks  Callbacks
	clipboard  bool
	fg, bg, cc color.Color
	dc         *DefaultColors
	now        func() time.Time
}

// WithScrollback sets how many lines of history the main screen keeps.
func WithScrollback(lines int) Option {
	return func(c *config) {
		if lines < 0 {
			lines = 0
		}
		c.scrollback = lines
	}
}

// WithReplyWriter sets where replies to the child's queries (DA, CPR,
// DECRQM ...) are written. Write never blocks on it: replies are queued in a
// bounded buffer and written by a helper goroutine.
func WithReplyWriter(w io.Writer) Option {
	return func(c *config) { c.reply = w }
}

// WithCallbacks sets the functions called on titles, bells, notifications ...
func WithCallbacks(cb Callbacks) Option {
	return func(c *config) { c.callbacks = cb }
}

// WithClipboard enables OSC 52 clipboard writes (reported via
// Callbacks.Clipboard). They are ignored otherwise because a child could
// otherwise silently overwrite the user's clipboard.
func WithClipboard(enabled bool) Option {
	return func(c *config) { c.clipboard = enabled }
}

// WithColors sets the colours reported for OSC 10/11/12 queries.
func WithColors(fg, bg, cursor color.Color) Option {
	return func(c *config) { c.fg, c.bg, c.cc = fg, bg, cursor }
}

// WithDefaultColors makes OSC 10/11 queries report the foreground and
// background that dc holds at the time of the query; a nil colour there
// falls back to WithColors'.
func WithDefaultColors(dc *DefaultColors) Option {
	return func(c *config) { c.dc = dc }
}

// DefaultColors is a default foreground and background that many terminals
// share and that may change while they run: a session starts with its
// theme's and learns the outer terminal's once that answers.
type DefaultColors struct {
	fg, bg atomic.Pointer[colorBox]
}

// colorBox lets an interface value live behind an atomic pointer.
type colorBox struct{ c color.Color }

// NewDefaultColors returns colours to share, starting at fg and bg.
func NewDefaultColors(fg, bg color.Color) *DefaultColors {
	dc := &DefaultColors{}
	dc.Set(fg, bg)
	return dc
}

// Set changes the colours; a nil one is left as it was.
func (dc *DefaultColors) Set(fg, bg color.Color) {
	if fg != nil {
		dc.fg.Store(&colorBox{fg})
	}
	if bg != nil {
		dc.bg.Store(&colorBox{bg})
	}
}

// Get returns the colours; nil for one never set.
func (dc *DefaultColors) Get() (fg, bg color.Color) {
	if b := dc.fg.Load(); b != nil {
		fg = b.c
	}
	if b := dc.bg.Load(); b != nil {
		bg = b.c
	}
	return fg, bg
}

// Callbacks are called after the terminal's lock is released, from the
// goroutine that called Write. Nil functions are skipped. One Write reports
// its last title and working directory and at most one bell (a program
// printing them in a loop costs a callback per Write, not per sequence);
// notifications, prompt marks and clipboard writes each once, up to 256
// callbacks a Write.
type Callbacks struct {
	Title      func(title string)       // OSC 0 / 2
	Cwd        func(uri string)         // OSC 7
	Bell       func()                   // BEL
	Notify     func(title, body string) // OSC 9 / 777 / 99
	PromptMark func(kind byte)          // OSC 133 A/B/C/D
	// Clipboard receives OSC 52 writes: the selection ("c", "p" ...) and
	// the data still base64-encoded, ready to forward.
	Clipboard func(selection, data string)
}

// Color is a packed cell colour: the default colour, a palette index, or
// 24-bit RGB. The zero value is the default colour.
type Color uint32

const (
	colorKindShift       = 24
	colorIndexed   Color = 1 << colorKindShift
	colorRGB       Color = 2 << colorKindShift
)

// DefaultColor is the terminal's default foreground or background.
const DefaultColor Color = 0

// IndexedColor returns palette colour i (0-15 ANSI, 16-255 extended).
func IndexedColor(i uint8) Color { return colorIndexed | Color(i) }

// RGBColor returns a 24-bit colour.
func RGBColor(r, g, b uint8) Color {
	return colorRGB | Color(r)<<16 | Color(g)<<8 | Color(b)
}

// IsDefault reports whether c is the default colour.
func (c Color) IsDefault() bool { return c == 0 }

// Indexed returns the palette index when c is a palette colour.
func (c Color) Indexed() (uint8, bool) {
	if c&0xff000000 == colorIndexed {
		return uint8(c), true
	}
	return 0, false
}

// RGB returns the components when c is a 24-bit colour.
func (c Color) RGB() (r, g, b uint8, ok bool) {
	if c&0xff000000 == colorRGB {
		return uint8(c >> 16), uint8(c >> 8), uint8(c), true
	}
	return 0, 0, 0, false
}

// Attr is a set of text attributes. Underline is carried by UnderlineStyle.
type Attr uint16

// Text attributes.
const (
	AttrBold Attr = 1 << iota
	AttrFaint
	AttrItalic
	AttrBlink
	AttrReverse
	AttrInvisible
	AttrStrikethrough
	AttrOverline
	attrCount = iota
)

// UnderlineStyle is the kind of underline of a cell.
type UnderlineStyle uint8

// Underline styles (SGR 4:n).
const (
	UnderlineNone UnderlineStyle = iota
	UnderlineSingle
	UnderlineDouble
	UnderlineCurly
	UnderlineDotted
	UnderlineDashed
)

// Cell is one screen cell as seen by the UI.
type Cell struct {
	Content string // grapheme cluster; "" for the right half of a wide char; " " for blanks
	Width   int    // 1, 2, or 0 for the right half of a wide char
	Fg, Bg  Color
	Ul      Color // underline colour (default = same as text)
	Attrs   Attr
	UlStyle UnderlineStyle
	Link    string // OSC 8 hyperlink URI
}

// CursorStyle is the DECSCUSR parameter: 0/1 blinking block, 2 steady block,
// 3 blinking underline, 4 steady underline, 5 blinking bar, 6 steady bar.
type CursorStyle int

// Cursor shapes.
const (
	CursorDefault CursorStyle = iota
	CursorBlinkingBlock
	CursorSteadyBlock
	CursorBlinkingUnderline
	CursorSteadyUnderline
	CursorBlinkingBar
	CursorSteadyBar
)

// Cursor is the cursor position (0-based, on the visible screen) and look.
type Cursor struct {
	X, Y    int
	Visible bool
	Style   CursorStyle
}

// MouseMode is the mouse reporting the child asked for.
type MouseMode uint8

// Mouse reporting modes.
const (
	MouseNone   MouseMode = iota
	MouseX10              // mode 9: presses only
	MouseNormal           // mode 1000: presses and releases
	MouseButton           // mode 1002: plus motion while a button is held
	MouseAny              // mode 1003: all motion
)

// Modes is a snapshot of the modes the child set.
type Modes struct {
	AltScreen      bool
	AppCursor      bool // DECCKM
	AppKeypad      bool // DECKPAM
	BracketedPaste bool // 2004
	FocusEvents    bool // 1004
	Mouse          MouseMode
	MouseSGR       bool // 1006
	Sync           bool // 2026
	KittyFlags     int  // kitty keyboard protocol flags of the active screen
	OtherKeys      int  // xterm modifyOtherKeys level the child set (CSI > 4 ; N m), 0 = off
	Graphemes      bool // 2027: the child measures grapheme clusters (see docs/WIDTHS.md)
	CursorVisible  bool // DECTCEM
	Title          string
}

// MouseKind is the kind of a mouse event.
type MouseKind uint8

// Mouse event kinds.
const (
	MousePress MouseKind = iota
	MouseRelease
	MouseMotion
	MouseWheel
)

// MouseEvent is a mouse event in pane-relative, 0-based cell coordinates.
type MouseEvent struct {
	Kind   MouseKind
	Button uv.MouseButton
	X, Y   int
	Mod    uv.KeyMod
}

package ui

import (
	"slices"
	"strings"

	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/charmbracelet/x/ansi"
)

// paneFrame is everything composition needs to draw one pane.
type paneFrame struct {
	id     string
	box    layout.Rect     // outer box, border included
	term   *vterm.Terminal // the pane's terminal, nil for none
	view   *vterm.Frame    // its copy for this frame; nil draws an empty pane
	offset int             // scrollback offset; 0 follows the live screen
	seq    uint64          // view.Seq: the content the copy shows
	label  paneLabel
	// mark highlights a search match: content row, cell column, width.
	mark *matchMark
	// focused and waiting select the border colour.
	focused, waiting bool
}

// paneLabel is the text drawn into a pane's top border.
type paneLabel struct {
	number   string // "0" for the main view, "1".. for agents
	title    string
	badge    string // state and elapsed time, e.g. "● running 12s"
	badgeSGR string // SGR prefix colouring the badge by state
	entries  []string
	right    string // right-aligned extra, e.g. the scrollback position
}

// matchMark is a search match to highlight in a pane's content.
type matchMark struct{ row, col, width int }

// frameInput is a complete description of one frame: composition is a pure
// function of it, which keeps View cheap to test and to benchmark.
type frameInput struct {
	width, height int
	panes         []paneFrame
	status        string // the rendered status line for the bottom row
	notice        string // when set, the whole frame is this one line
}

// frameStyles are the raw SGR prefixes composition writes; they come from
// the theme once, so the hot path never runs a style renderer.
type frameStyles struct {
	border, borderFocus, borderWaiting string
	title, titleFocus                  string
	number, numberFocus                string
	entry, muted                       string
	match                              string // a search match
}

const sgrReset = "\x1b[m"

// drawnPane is a pane's border and content rows, ready to be concatenated.
type drawnPane struct {
	box         layout.Rect
	top, bottom string
	side        string
	content     []string
}

// composer builds frames. It keeps its buffers between frames so that
// steady-state composition allocates little beyond the frame string.
type composer struct {
	styles  frameStyles
	drawn   []drawnPane
	rowBufs [][]string
	// bords caches each pane's border strings, by index in the input:
	// most frames change a pane's content, not its label.
	bords   []borderCache
	order   []int
	blank   string
	lastLen int
}

// compose renders in into one string of in.height rows separated by "\n",
// each exactly in.width cells wide; the last row is the status line.
func (c *composer) compose(in *frameInput) string {
	if in.notice != "" || in.width <= 0 || in.height <= 0 {
		return fitLine(in.notice, in.width)
	}
	w, h := in.width, in.height
	paneH := h - 1 // the bottom row is the status line
	if len(c.blank) < w {
		c.blank = strings.Repeat(" ", w)
	}

	// Render each pane's border and content rows once.
	for len(c.rowBufs) < len(in.panes) {
		c.rowBufs = append(c.rowBufs, nil)
	}
	c.drawn = c.drawn[:0]
	for i := range in.panes {
		p := &in.panes[i]
		b := p.box
		if b.W < 2 || b.H < 2 || b.X < 0 || b.Y < 0 || b.X >= w || b.Y >= paneH {
			continue
		}
		sgr := c.styles.border
		switch {
		case p.waiting:
			sgr = c.styles.borderWaiting
		case p.focused:
			sgr = c.styles.borderFocus
		}
		top, bottom, side := c.borders(i, b.W, p, sgr)
		c.drawn = append(c.drawn, drawnPane{
			box:     b,
			top:     top,
			bottom:  bottom,
			side:    side,
			content: contentRows(p, b.W-2, b.H-2, &c.rowBufs[i]),
		})
		if mk := p.mark; mk != nil && mk.row >= 0 && mk.row < b.H-2 {
			d := &c.drawn[len(c.drawn)-1]
			d.content[mk.row] = highlight(d.content[mk.row], mk.col, mk.width, b.W-2, c.styles.match)
		}
	}

	var sb strings.Builder
	sb.Grow(c.lastLen + c.lastLen/8 + 64)
	var row strings.Builder
	for y := 0; y < paneH; y++ {
		c.rowOrder(y)
		overflow := false
		for _, i := range c.order {
			if b := c.drawn[i].box; b.X+b.W > w {
				overflow = true
			}
		}
		if !overflow {
			c.writeRow(&sb, y, w)
		} else {
			// A box reaching past the right edge (a resize in flight): build
			// the row apart and cut it to the screen.
			row.Reset()
			c.writeRow(&row, y, w)
			sb.WriteString(fitLine(row.String(), w))
		}
		sb.WriteByte('\n')
	}
	sb.WriteString(fitLine(in.status, w))
	out := sb.String()
	c.lastLen = len(out)
	return out
}

// reset forgets the cached borders, so the next frame draws them anew.
func (c *composer) reset() { c.bords = c.bords[:0] }

// rowOrder fills c.order with the drawn boxes crossing screen row y, sorted
// by X (insertion sort: there are few boxes per row).
func (c *composer) rowOrder(y int) {
	c.order = c.order[:0]
	for i := range c.drawn {
		b := c.drawn[i].box
		if y < b.Y || y >= b.Y+b.H {
			continue
		}
		c.order = append(c.order, i)
		for j := len(c.order) - 1; j > 0 && c.drawn[c.order[j-1]].box.X > b.X; j-- {
			c.order[j-1], c.order[j] = c.order[j], c.order[j-1]
		}
	}
}

// writeRow writes screen row y: boxes in X order, gaps as blanks.
func (c *composer) writeRow(sb *strings.Builder, y, w int) {
	x := 0
	for _, i := range c.order {
		d := &c.drawn[i]
		if d.box.X < x { // overlapping boxes: the first one wins
			continue
		}
		sb.WriteString(c.blank[:d.box.X-x])
		switch y - d.box.Y {
		case 0:
			sb.WriteString(d.top)
		case d.box.H - 1:
			sb.WriteString(d.bottom)
		default:
			sb.WriteString(d.side)
			sb.WriteString(d.content[y-d.box.Y-1])
			sb.WriteString(d.side)
		}
		x = d.box.X + d.box.W
	}
	if x < w {
		sb.WriteString(c.blank[:w-x])
	}
}

// contentRows returns the h rows of a pane's content, each exactly w cells
// wide, from the pane's copy of its terminal (taken under one lock, so the
// rows are consistent). Terminals are normally sized to their content
// rect, so rows are used as rendered; during a resize in flight they are
// cut or padded.
func contentRows(p *paneFrame, w, h int, buf *[]string) []string {
	rows := (*buf)[:0]
	if h <= 0 {
		*buf = rows
		return rows
	}
	if p.view == nil {
		blank := strings.Repeat(" ", w)
		for range h {
			rows = append(rows, blank)
		}
		*buf = rows
		return rows
	}
	cols := p.view.Cols
	rows = append(rows, p.view.Lines[:min(len(p.view.Lines), h)]...)
	if cols != w {
		for i, r := range rows {
			rows[i] = fitCells(r, cols, w)
		}
	}
	if len(rows) < h {
		blank := strings.Repeat(" ", w)
		for len(rows) < h {
			rows = append(rows, blank)
		}
	}
	*buf = rows
	return rows
}

// fitCells cuts or pads a row that is have cells wide to exactly want cells.
func fitCells(s string, have, want int) string {
	switch {
	case have == want:
		return s
	case have < want:
		return s + strings.Repeat(" ", want-have)
	}
	return fitLine(s, want)
}

// fitLine cuts a styled line to at most w cells and pads it to exactly w.
// A wide character that would straddle the edge is replaced by a blank.
func fitLine(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw == w {
		return s
	}
	if sw < w {
		return s + sgrReset + strings.Repeat(" ", w-sw)
	}
	cut := ansi.Truncate(s, w, "")
	return cut + sgrReset + strings.Repeat(" ", w-ansi.StringWidth(cut))
}

// highlight redraws cells [col, col+width) of a styled row of w cells in
// the match style.
func highlight(row string, col, width, w int, sgr string) string {
	if col < 0 || width <= 0 || col >= w {
		return row
	}
	end := min(col+width, w)
	mid := ansi.Strip(ansi.Cut(row, col, end))
	if sgr == "" {
		sgr = "\x1b[7m"
	}
	return fitLine(ansi.Truncate(row, col, "")+sgrReset+sgr+mid+sgrReset+ansi.TruncateLeft(row, end, ""), w)
}

// borderCache is one pane's drawn borders and what they were drawn from.
type borderCache struct {
	w                 int
	sgr               string
	focused, waiting  bool
	label             paneLabel
	top, bottom, side string
	valid             bool
}

// borders returns the top, bottom and side border strings of pane p (at
// index i of the input) w cells wide, drawing them again only when what
// they show changed.
func (c *composer) borders(i, w int, p *paneFrame, sgr string) (top, bottom, side string) {
	for len(c.bords) <= i {
		c.bords = append(c.bords, borderCache{})
	}
	bc := &c.bords[i]
	l, k := &p.label, &bc.label
	if !bc.valid || bc.w != w || bc.sgr != sgr || bc.focused != p.focused || bc.waiting != p.waiting ||
		l.number != k.number || l.title != k.title || l.badge != k.badge || l.badgeSGR != k.badgeSGR ||
		l.right != k.right || !slices.Equal(l.entries, k.entries) {
		bc.top = c.borderTop(w, p, sgr)
		if !bc.valid || bc.w != w || bc.sgr != sgr {
			bc.bottom = sgr + "└" + strings.Repeat("─", w-2) + "┘" + sgrReset
			bc.side = sgr + "│" + sgrReset
		}
		bc.w, bc.sgr, bc.focused, bc.waiting, bc.valid = w, sgr, p.focused, p.waiting, true
		bc.label = *l
		// The entries slice may be reused by the caller: keep a copy.
		bc.label.entries = slices.Clone(l.entries)
	}
	return bc.top, bc.bottom, bc.side
}

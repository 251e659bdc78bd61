package ui

import (
	"slices"
	"strings"

	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/ui/termrt"
	"github.com/charmbracelet/x/ansi"
)

// paneFrame is everything composition needs to draw one pane.
type paneFrame struct {
	id     string
	box    layout.Rect             // outer box, border included
	term   orchestrator.PaneReader // the pane's terminal, nil for none
	view   *vterm.Frame            // its copy for this frame; nil draws an empty pane
	offset int                     // scrollback offset; 0 follows the live screen
	skip   int                     // rows of the screen above the box (anchorSkip)
	seq    uint64                  // view.Seq: the content the copy shows
	busy   bool                    // the content changed since the frame before
	label  paneLabel
	// mark highlights a search match: content row, cell column, width.
	mark *matchMark
	// sel highlights the text marked for copying.
	sel *selMark
	// focused and waiting select the border colour; else accent (the
	// colour the pane's program chose through tmux styles), if set.
	focused, waiting bool
	accent           vterm.Color
}

// paneLabel is the text drawn into a pane's top border.
type paneLabel struct {
	number  string // "0" for the main view, "1".. for agents
	title   string
	badge   string       // state and elapsed time, e.g. "● running 12s"
	badgeSt termrt.Style // the badge's look, by state
	entries []string
	right   string // right-aligned extra, e.g. the scrollback position
	// branch is the agent's worktree branch ("⎇ agentgrid/NAME"), shown
	// right-aligned when there is no right part and room is left after
	// the title and the badge.
	branch string
	// category and model are what the agent was started with, shown after
	// the title ("[review · opus]") and cut with it when narrow.
	category, model string
}

// same reports whether two labels draw the same border top. Every field
// is compared here, so a field added to paneLabel is added here once, for
// the border cache and the frame comparison alike.
func (l *paneLabel) same(k *paneLabel) bool {
	return l.number == k.number && l.title == k.title && l.badge == k.badge && l.badgeSt == k.badgeSt &&
		l.right == k.right && l.branch == k.branch && l.category == k.category && l.model == k.model &&
		slices.Equal(l.entries, k.entries)
}

// matchMark is a search match to highlight in a pane's content.
type matchMark struct{ row, col, width int }

// frameInput is a complete description of one frame: composition is a pure
// function of it, which keeps View cheap to test and to benchmark.
type frameInput struct {
	width, height int
	panes         []paneFrame
	status        line   // the status line for the bottom row
	notice        string // when set, the whole frame is this one line
}

// frameLooks are the cell styles composition draws borders and labels
// with, from the theme.
type frameLooks struct {
	border, borderFocus, borderWaiting termrt.Style
	title, titleFocus                  termrt.Style
	number, numberFocus                termrt.Style
	entry, muted                       termrt.Style
	match                              termrt.Style // a search match; the zero look reverses
}

// composer builds frames onto one canvas, which it keeps: a frame redraws
// only what changed since the last one (the rows of a pane whose content
// IDs changed, a border whose label changed, the status line), unless the
// size or the boxes changed. It keeps its buffers between frames, so
// composing allocates nothing in the steady state.
type composer struct {
	looks frameLooks
	cv    termrt.Canvas
	// bords caches each pane's border cells, by index in the input: most
	// frames change a pane's content, not its label.
	bords []borderCache
	// pieces is borderTop's scratch list of label parts.
	pieces []labelPiece
	// borderGen numbers border redraws across panes.
	borderGen uint64
	// drawn is what each pane of the last frame put on the canvas; valid
	// says the canvas holds that frame.
	drawn   []paneDrawn
	valid   bool
	overlap bool // boxes of the last frame overlap: always draw all
	// The status line as cells, and the spans they were drawn from.
	status      line
	statusW     int
	statusCells []vterm.Cell
	// putFn puts row putY of putRow: a method value made once, so putting
	// a row allocates no closure.
	putFn  func([]vterm.Cell) int
	putRow *vterm.Frame
	putY   int
}

// paneDrawn is what a pane put on the canvas.
type paneDrawn struct {
	id      string
	box     layout.Rect
	border  uint64   // the border cache's generation drawn
	edges   uint64   // the generation of the bottom and sides drawn
	hasView bool     // content came from a copy
	cols    int      // its width
	ids     []uint64 // the content IDs of its rows
	mark    *matchMark
	sel     *selMark
}

// compose draws in onto the composer's canvas (in.height rows of in.width
// cells; the last row is the status line) and returns it. The canvas stays
// the composer's: it is valid until the next compose.
func (c *composer) compose(in *frameInput) *termrt.Canvas {
	if c.putFn == nil {
		c.putFn = func(dst []vterm.Cell) int { return c.putRow.PutRow(c.putY, dst) }
	}
	cv := &c.cv
	if in.notice != "" || in.width <= 0 || in.height <= 0 {
		lines := noticeLines(in.notice, in.width, in.height)
		cv.Resize(in.width, min(in.height, max(len(lines), 1)))
		for y, l := range lines {
			cv.Text(y, 0, cv.W, l, termrt.Style{})
		}
		c.valid = false
		return cv
	}
	w, h := in.width, in.height
	paneH := h - 1 // the bottom row is the status line
	full := !c.valid || c.overlap || cv.W != w || cv.H != h || len(c.drawn) != len(in.panes)
	for i := 0; !full && i < len(in.panes); i++ {
		full = c.drawn[i].id != in.panes[i].id || c.drawn[i].box != in.panes[i].box
	}
	if full {
		cv.Resize(w, h)
		c.overlap = overlapping(in.panes)
		for len(c.drawn) < len(in.panes) {
			c.drawn = append(c.drawn, paneDrawn{})
		}
		c.drawn = c.drawn[:len(in.panes)]
	}

	// Earlier panes win where boxes overlap: draw them last.
	for i := len(in.panes) - 1; i >= 0; i-- {
		p := &in.panes[i]
		b := p.box
		c.drawn[i].id, c.drawn[i].box = p.id, b
		if b.W < 2 || b.H < 2 || b.X < 0 || b.Y < 0 || b.X >= w || b.Y >= paneH {
			continue
		}
		c.drawPane(cv, i, p, paneH, full)
	}

	if full || c.statusCells == nil || !slices.Equal(in.status, c.status) || w != c.statusW {
		// The status line's spans are never changed once built (the model
		// caches them until it builds new ones), so keeping them is safe.
		c.status, c.statusW = in.status, w
		c.statusCells = in.status.appendCells(c.statusCells[:0], w, termrt.Style{})
		cv.Put(h-1, 0, w, c.statusCells)
	}
	c.valid = true
	return cv
}

// overlapping reports whether any two boxes overlap (a resize in flight).
func overlapping(ps []paneFrame) bool {
	for i := range ps {
		a := ps[i].box
		for j := i + 1; j < len(ps); j++ {
			b := ps[j].box
			if a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H {
				return true
			}
		}
	}
	return false
}

// drawPane draws pane p (at index i of the input) with its borders, its
// content rows above row limit: all of it with full, else what changed
// since the last frame.
func (c *composer) drawPane(cv *termrt.Canvas, i int, p *paneFrame, limit int, full bool) {
	d := &c.drawn[i]
	b := p.box
	st := c.looks.border
	switch {
	case p.waiting:
		st = c.looks.borderWaiting
	case p.focused:
		st = c.looks.borderFocus
	case p.accent != vterm.DefaultColor:
		st = termrt.Style{Fg: p.accent}
	}
	bc := c.borders(i, b.W, p, st)
	right := b.X + b.W
	w, h := b.W-2, b.H-2
	if full || bc.gen != d.border {
		cv.Put(b.Y, b.X, right, bc.top)
		// The bottom and sides only when they look different (a new
		// width, focus, a wait): a label's change would otherwise mark
		// every row of the pane for the writer to compare and copy (the
		// idle badges turning "1m" in 16 panes marked the whole screen).
		if full || bc.edges != d.edges {
			if y := b.Y + b.H - 1; y < limit {
				cv.Put(y, b.X, right, bc.bottom)
			}
			for y := b.Y + 1; y < min(b.Y+1+h, limit); y++ {
				r := cv.Row(y)
				r[b.X] = bc.side
				if right-1 < cv.W {
					r[right-1] = bc.side
				}
			}
			d.edges = bc.edges
		}
		d.border = bc.gen
	}

	var ids []uint64
	cols, nrows := 0, 0
	if p.view != nil {
		nrows = min(p.view.Rows-p.skip, h)
		ids, cols = p.view.IDs, p.view.Cols
		if p.skip > 0 {
			ids = ids[min(p.skip, len(ids)):]
		}
	}
	markMoved := (p.mark == nil) != (d.mark == nil) || (p.mark != nil && *p.mark != *d.mark)
	selMoved := (p.sel == nil) != (d.sel == nil) || (p.sel != nil && *p.sel != *d.sel)
	all := full || markMoved || selMoved || (p.view != nil) != d.hasView || cols != d.cols
	markRow := -1 // the row under the mark, when drawn again
	for j := 0; j < h; j++ {
		y := b.Y + 1 + j
		if y >= limit {
			break
		}
		if j >= nrows {
			if all {
				cv.Fill(y, b.X+1, b.X+1+w, termrt.Blank)
			}
			continue
		}
		if !all && j < len(ids) && j < len(d.ids) && ids[j] != 0 && ids[j] == d.ids[j] {
			continue // the same cells as on the canvas
		}
		if p.mark != nil && p.mark.row == j {
			markRow = j
		}
		c.putRow, c.putY = p.view, j+p.skip
		if n := cv.PutWith(y, b.X+1, b.X+1+w, c.putFn); n < w {
			cv.Fill(y, b.X+1+n, b.X+1+w, termrt.Blank)
		}
	}
	d.hasView, d.cols = p.view != nil, cols
	d.ids = append(d.ids[:0], ids...)
	d.sel = nil
	if sm := p.sel; sm != nil {
		v := *sm
		d.sel = &v
		// Redrawn whole above when it moved; rows drawn again since
		// lost it, so it is laid over every frame.
		for j := max(sm.r0, 0); j <= min(sm.r1, h-1); j++ {
			if b.Y+1+j >= limit {
				break
			}
			from, to := 0, w
			if j == sm.r0 {
				from = min(sm.c0, w)
			}
			if j == sm.r1 {
				to = min(sm.c1+1, w)
			}
			highlight(cv, b.Y+1+j, b.X+1+from, to-from, termrt.Style{Attrs: vterm.AttrReverse})
		}
	}
	d.mark = nil
	if mk := p.mark; mk != nil {
		m := *mk
		d.mark = &m
		if (all || markRow == mk.row) && mk.row >= 0 && mk.row < h && b.Y+1+mk.row < limit {
			match := c.looks.match
			if match == (termrt.Style{}) {
				match = termrt.Style{Attrs: vterm.AttrReverse}
			}
			highlight(cv, b.Y+1+mk.row, b.X+1+mk.col, min(mk.width, w-mk.col), match)
		}
	}
}

// reset forgets what the canvas holds, so the next frame draws everything
// anew. The cached borders stay: they are made from what they are keyed
// by, so they are the cells a fresh start would make.
func (c *composer) reset() {
	c.valid = false
}

// highlight redraws n cells of row y from column x in the match style,
// keeping their text.
func highlight(cv *termrt.Canvas, y, x, n int, st termrt.Style) {
	if n <= 0 || x < 0 {
		return
	}
	end := min(x+n, cv.W)
	cv.Clip(y, x, end)
	r := cv.Row(y)
	for i := x; i < end; i++ {
		r[i] = st.Cell(r[i].Content, r[i].Width)
	}
}

// borderCache is one pane's drawn borders and what they were drawn from.
type borderCache struct {
	w                int
	st               termrt.Style
	focused, waiting bool
	label            paneLabel
	top, bottom      []vterm.Cell
	side             vterm.Cell
	valid            bool
	gen              uint64 // counts redraws, so a frame knows to put it again
	edges            uint64 // the gen at which bottom and side last changed
}

// borders returns pane p's borders (p is at index i of the input) w cells
// wide in style st, drawing them again only when what they show changed.
func (c *composer) borders(i, w int, p *paneFrame, st termrt.Style) *borderCache {
	for len(c.bords) <= i {
		c.bords = append(c.bords, borderCache{})
	}
	bc := &c.bords[i]
	l, k := &p.label, &bc.label
	if !bc.valid || bc.w != w || bc.st != st || bc.focused != p.focused || bc.waiting != p.waiting || !l.same(k) {
		bc.top = c.borderTop(bc.top[:0], w, p, st)
		if !bc.valid || bc.w != w || bc.st != st {
			bc.bottom = append(bc.bottom[:0], st.Cell("└", 1))
			for range w - 2 {
				bc.bottom = append(bc.bottom, st.Cell("─", 1))
			}
			bc.bottom = append(bc.bottom, st.Cell("┘", 1))
			bc.side = st.Cell("│", 1)
		}
		c.borderGen++
		if !bc.valid || bc.w != w || bc.st != st {
			bc.edges = c.borderGen
		}
		bc.w, bc.st, bc.focused, bc.waiting, bc.valid = w, st, p.focused, p.waiting, true
		bc.gen = c.borderGen
		bc.label = *l
		// The entries slice may be reused by the caller: keep a copy.
		bc.label.entries = slices.Clone(l.entries)
	}
	return bc
}

// noticeLines lays a whole-frame notice out in a terminal of width x height:
// one line when it fits, else its head (before ": ") and its details each
// wrapped at words over the rows there are, so that a terminal narrower than
// the notice still reads "terminal too small".
func noticeLines(notice string, width, height int) []string {
	if notice == "" || width <= 0 || height <= 0 {
		return nil
	}
	if ansi.StringWidth(notice) <= width {
		return []string{notice}
	}
	var lines []string
	for _, part := range strings.SplitN(notice, ": ", 2) {
		lines = append(lines, strings.Split(ansi.Wrap(part, width, ""), "\n")...)
	}
	return lines[:min(len(lines), height)]
}

// Package layout computes where the main view and the agent panes go.
//
// It is pure geometry: a Plan is a function of the area, the number of agents
// that want a slot and an Options struct. Applying a plan (resizing PTYs,
// drawing borders) is the caller's business, as in tmux, where sizes are
// computed first and pushed to panes in a separate step.
//
// Every box has its own one-cell border, so a box's content is box.Inset(1)
// and the minimum agent size in Options is a content size.
package layout

import "math"

// Rect is a rectangle of terminal cells; X and Y are the top-left corner.
type Rect struct{ X, Y, W, H int }

// Empty reports whether the rectangle covers no cell.
func (r Rect) Empty() bool { return r.W <= 0 || r.H <= 0 }

// Inset shrinks the rectangle by n cells on every side; the result never has
// a negative size.
func (r Rect) Inset(n int) Rect {
	out := Rect{X: r.X + n, Y: r.Y + n, W: r.W - 2*n, H: r.H - 2*n}
	if out.W < 0 {
		out.W = 0
	}
	if out.H < 0 {
		out.H = 0
	}
	return out
}

// Contains reports whether the cell (x, y) lies inside the rectangle.
func (r Rect) Contains(x, y int) bool {
	return x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

// Layout names, in the order Next cycles through them.
const (
	MainVertical   = "main-vertical"
	MainHorizontal = "main-horizontal"
	Tiled          = "tiled"
	EvenHorizontal = "even-horizontal"
	EvenVertical   = "even-vertical"
)

var names = []string{MainVertical, MainHorizontal, Tiled, EvenHorizontal, EvenVertical}

// Names returns the layout names in cycle order.
func Names() []string { return append([]string(nil), names...) }

// Valid reports whether name is a known layout.
func Valid(name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// Next returns the layout after name in cycle order; an unknown name yields
// the first layout.
func Next(name string) string {
	for i, n := range names {
		if n == name {
			return names[(i+1)%len(names)]
		}
	}
	return names[0]
}

// Minimum outer size of the main view's box (content 18x3 plus the border).
const (
	MinMainWidth  = 20
	MinMainHeight = 5
)

// Defaults used when Options leaves a field at zero.
const (
	DefaultMainSize       = 50
	DefaultMinAgentWidth  = 40
	DefaultMinAgentHeight = 8
)

// Options is everything about a plan that is not the area or the agent count.
type Options struct {
	// Name is one of the layout names; unknown or empty means MainVertical.
	Name string
	// MainSize is the main view's share in percent of the width
	// (main-vertical) or height (main-horizontal); 0 means 50, and values
	// are clamped to 20..80.
	MainSize int
	// MinAgentWidth and MinAgentHeight are the smallest content size of an
	// agent pane; 0 means the defaults (40x8), values below 1 count as 1.
	MinAgentWidth, MinAgentHeight int
	// HasMain says whether there is a main view at all.
	HasMain bool
	// Zoom selects one pane to fill the area: -1 none, 0 the main view,
	// k >= 1 the agent in slot k (1-based). A zoom target that does not
	// exist is ignored.
	Zoom int
}

// Plan is the result of Compute.
type Plan struct {
	// Area is the rectangle the plan fills.
	Area Rect
	// Main is the outer box of the main view (including its border); empty
	// when there is no main view or another pane is zoomed.
	Main Rect
	// Slots are the outer boxes of agent panes in row-major order;
	// len(Slots) == min(n, Capacity). While an agent is zoomed the other
	// slots are empty rectangles: those agents stay assigned but hidden.
	Slots []Rect
	// Capacity is how many agent panes fit in the area with these minimums.
	Capacity int
	// TooSmall is set when the area cannot hold even the main view's
	// minimum box; the plan is then empty and the UI shows a notice.
	TooSmall bool
	// Zoomed is the zoom target that was applied (-1 when none).
	Zoomed int
}

// Rects returns the main box followed by the slots, so index 0 is the main
// view and index k is agent slot k — the same numbering as Options.Zoom.
// Neighbour and HitTest take this slice.
func (p Plan) Rects() []Rect {
	out := make([]Rect, 0, len(p.Slots)+1)
	out = append(out, p.Main)
	return append(out, p.Slots...)
}

// normalized fills in defaults and clamps Options to values the geometry
// can work with.
func (o Options) normalized() Options {
	if !Valid(o.Name) {
		o.Name = MainVertical
	}
	if o.MainSize == 0 {
		o.MainSize = DefaultMainSize
	}
	o.MainSize = clamp(o.MainSize, 20, 80)
	if o.MinAgentWidth == 0 {
		o.MinAgentWidth = DefaultMinAgentWidth
	}
	if o.MinAgentHeight == 0 {
		o.MinAgentHeight = DefaultMinAgentHeight
	}
	o.MinAgentWidth = max(o.MinAgentWidth, 1)
	o.MinAgentHeight = max(o.MinAgentHeight, 1)
	return o
}

// agentBox is the smallest outer box of an agent pane.
func (o Options) agentBox() (w, h int) { return o.MinAgentWidth + 2, o.MinAgentHeight + 2 }

// Compute returns the plan for n agents wanting a slot in area.
func Compute(area Rect, n int, o Options) Plan {
	o = o.normalized()
	n = max(n, 0)
	p := Plan{Area: area, Zoomed: -1}
	if area.W < MinMainWidth || area.H < MinMainHeight {
		p.TooSmall = true
		return p
	}
	s := split(area, o)
	p.Capacity = s.capacity
	k := min(n, s.capacity)
	if k == 0 {
		// Nothing to show beside the main view: it takes the whole area.
		if o.HasMain {
			p.Main = area
		}
	} else {
		p.Main, p.Slots = s.place(k)
	}
	return p.WithZoom(o.Zoom, o.HasMain)
}

// WithZoom returns the plan with pane zoom (numbered as Options.Zoom)
// filling the area and every other pane hidden; a zoom target that does
// not exist leaves the plan as it is. It lets a caller that learns the
// zoom target's slot only from the plan compute the layout once.
func (p Plan) WithZoom(zoom int, hasMain bool) Plan {
	if p.TooSmall {
		return p
	}
	switch {
	case zoom == 0 && hasMain:
		p.Main, p.Zoomed = p.Area, 0
		p.Slots = make([]Rect, len(p.Slots))
	case zoom >= 1 && zoom <= len(p.Slots):
		p.Main, p.Zoomed = Rect{}, zoom
		p.Slots = make([]Rect, len(p.Slots))
		p.Slots[zoom-1] = p.Area
	}
	return p
}

// Capacity is how many agent panes fit in area with the given options.
func Capacity(area Rect, o Options) int { return Compute(area, 0, o).Capacity }

// splitter knows how a layout divides an area and how many agents fit.
type splitter struct {
	area     Rect
	o        Options
	capacity int
	// For main-* layouts: the main box and the agents area (when agents
	// are shown). For one-grid layouts (tiled, even-*): cell minimums and
	// grid bounds.
	main, agents   Rect
	maxCols, maxRs int
	oneGrid        bool
}

func split(area Rect, o Options) splitter {
	s := splitter{area: area, o: o}
	bw, bh := o.agentBox()
	switch o.Name {
	case MainVertical, MainHorizontal:
		if !o.HasMain {
			s.agents = area
		} else if o.Name == MainVertical {
			mw := max(area.W*o.MainSize/100, MinMainWidth)
			if area.W-mw < bw && area.W-bw >= MinMainWidth {
				// Too narrow for an agent column at main_size: the main view
				// gives up what one column needs rather than hide every agent.
				mw = area.W - bw
			}
			s.main = Rect{area.X, area.Y, mw, area.H}
			s.agents = Rect{area.X + mw, area.Y, area.W - mw, area.H}
		} else {
			mh := max(area.H*o.MainSize/100, MinMainHeight)
			if area.H-mh < bh && area.H-bh >= MinMainHeight {
				mh = area.H - bh // likewise for one row of agents
			}
			s.main = Rect{area.X, area.Y, area.W, mh}
			s.agents = Rect{area.X, area.Y + mh, area.W, area.H - mh}
		}
		s.maxCols, s.maxRs = max(s.agents.W/bw, 0), max(s.agents.H/bh, 0)
		s.capacity = s.maxCols * s.maxRs
	default:
		// One grid holds main and agents, so every cell must fit either.
		s.oneGrid = true
		cw, ch := bw, bh
		if o.HasMain {
			cw, ch = max(cw, MinMainWidth), max(ch, MinMainHeight)
		}
		cols, rows := area.W/cw, area.H/ch
		switch o.Name {
		case EvenHorizontal:
			rows = min(rows, 1)
		case EvenVertical:
			cols = min(cols, 1)
		}
		s.maxCols, s.maxRs = cols, rows
		s.capacity = cols * rows
		if o.HasMain && s.capacity > 0 {
			s.capacity--
		}
	}
	return s
}

// place lays out k (1..capacity) agents and returns the main box and slots.
func (s splitter) place(k int) (Rect, []Rect) {
	if !s.oneGrid {
		return s.main, grid(s.agents, k, s.maxCols, s.maxRs)
	}
	cells := k
	if s.o.HasMain {
		cells++
	}
	var boxes []Rect
	switch s.o.Name {
	case EvenHorizontal:
		boxes = grid(s.area, cells, cells, 1)
	case EvenVertical:
		boxes = grid(s.area, cells, 1, cells)
	default:
		boxes = grid(s.area, cells, s.maxCols, s.maxRs)
	}
	if s.o.HasMain {
		return boxes[0], boxes[1:]
	}
	return Rect{}, boxes
}

// targetAspect is the physical width/height ratio panes aim for: that of an
// 80x24 terminal, taking a cell to be about twice as tall as it is wide.
const targetAspect = 80.0 / (24 * 2)

// grid splits area into k boxes, row-major, using at most maxCols columns
// and maxRows rows. The last row may hold fewer boxes; they are widened so
// the boxes tile the area exactly. Among the column counts that fit, it
// picks the one whose full-row boxes come closest to targetAspect, with a
// small penalty for a ragged last row.
func grid(area Rect, k, maxCols, maxRows int) []Rect {
	bestCols, bestScore := 0, math.Inf(1)
	for c := 1; c <= min(k, maxCols); c++ {
		r := (k + c - 1) / c
		if r > maxRows {
			continue
		}
		w := float64(area.W) / float64(c)
		h := float64(area.H) / float64(r)
		score := math.Abs(math.Log(w / (2 * h) / targetAspect))
		if k%c != 0 {
			score += 0.1
		}
		if score < bestScore-1e-9 {
			bestCols, bestScore = c, score
		}
	}
	if bestCols == 0 {
		return nil
	}
	cols := bestCols
	rows := (k + cols - 1) / cols
	out := make([]Rect, 0, k)
	for r := range rows {
		y0, y1 := spread(area.Y, area.H, rows, r)
		inRow := cols
		if r == rows-1 {
			inRow = k - cols*(rows-1)
		}
		for c := range inRow {
			x0, x1 := spread(area.X, area.W, inRow, c)
			out = append(out, Rect{x0, y0, x1 - x0, y1 - y0})
		}
	}
	return out
}

// spread returns the start and end of part i when length cells starting at
// origin are cut into parts pieces; the remainder is spread evenly so that
// pieces differ by at most one cell and cover the length exactly.
func spread(origin, length, parts, i int) (int, int) {
	return origin + i*length/parts, origin + (i+1)*length/parts
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }

package layout

// Direction is a focus move.
type Direction int

// Focus move directions.
const (
	Left Direction = iota
	Right
	Up
	Down
)

// String returns the direction's lower-case name.
func (d Direction) String() string {
	switch d {
	case Left:
		return "left"
	case Right:
		return "right"
	case Up:
		return "up"
	case Down:
		return "down"
	}
	return "unknown"
}

// Neighbour returns the index of the box a focus move from rects[from] in
// direction dir lands on, or -1 when there is none. Candidates lie entirely
// beyond the edge being crossed and overlap the starting box along the
// other axis; the nearest wins, then the one overlapping most, then the
// lowest index. Empty rectangles (hidden panes) are never chosen.
func Neighbour(rects []Rect, from int, dir Direction) int {
	if from < 0 || from >= len(rects) || rects[from].Empty() {
		return -1
	}
	f := rects[from]
	best, bestDist, bestOverlap := -1, 0, 0
	for i, r := range rects {
		if i == from || r.Empty() {
			continue
		}
		var dist, overlap int
		switch dir {
		case Left:
			dist = f.X - (r.X + r.W)
			overlap = span(f.Y, f.H, r.Y, r.H)
		case Right:
			dist = r.X - (f.X + f.W)
			overlap = span(f.Y, f.H, r.Y, r.H)
		case Up:
			dist = f.Y - (r.Y + r.H)
			overlap = span(f.X, f.W, r.X, r.W)
		case Down:
			dist = r.Y - (f.Y + f.H)
			overlap = span(f.X, f.W, r.X, r.W)
		default:
			return -1
		}
		if dist < 0 || overlap <= 0 {
			continue
		}
		if best < 0 || dist < bestDist || (dist == bestDist && overlap > bestOverlap) {
			best, bestDist, bestOverlap = i, dist, overlap
		}
	}
	return best
}

// span is the length of the overlap of [a, a+al) and [b, b+bl).
func span(a, al, b, bl int) int {
	return min(a+al, b+bl) - max(a, b)
}

// HitTest returns the index of the first rectangle containing the cell
// (x, y), or -1.
func HitTest(rects []Rect, x, y int) int {
	for i, r := range rects {
		if r.Contains(x, y) {
			return i
		}
	}
	return -1
}

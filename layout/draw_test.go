package layout

import (
	"fmt"
	"strings"
)

// draw renders a plan as an ASCII drawing: every box with its border and its
// name (main, a1, a2 …) in the top border; cells no box covers are dots.
// A row followed by " ×N" stands for N identical rows.
func draw(p Plan) string {
	if p.TooSmall {
		return fmt.Sprintf("(too small: %dx%d)\n", p.Area.W, p.Area.H)
	}
	if p.Area.Empty() {
		return "(empty area)\n"
	}
	grid := make([][]rune, p.Area.H)
	for y := range grid {
		grid[y] = []rune(strings.Repeat(".", p.Area.W))
	}
	put := func(x, y int, r rune) {
		x, y = x-p.Area.X, y-p.Area.Y
		if y >= 0 && y < len(grid) && x >= 0 && x < len(grid[y]) {
			grid[y][x] = r
		}
	}
	box := func(b Rect, name string) {
		if b.Empty() {
			return
		}
		for y := b.Y; y < b.Y+b.H; y++ {
			for x := b.X; x < b.X+b.W; x++ {
				top, bottom := y == b.Y, y == b.Y+b.H-1
				left, right := x == b.X, x == b.X+b.W-1
				switch {
				case top && left:
					put(x, y, '┌')
				case top && right:
					put(x, y, '┐')
				case bottom && left:
					put(x, y, '└')
				case bottom && right:
					put(x, y, '┘')
				case top || bottom:
					put(x, y, '─')
				case left || right:
					put(x, y, '│')
				default:
					put(x, y, ' ')
				}
			}
		}
		for i, r := range []rune(name) {
			if i >= b.W-2 {
				break
			}
			put(b.X+1+i, b.Y, r)
		}
	}
	box(p.Main, "main")
	for i, s := range p.Slots {
		box(s, fmt.Sprintf("a%d", i+1))
	}
	// Runs of identical rows (the inside of tall boxes) are written once with
	// a repeat count, which keeps large drawings reviewable.
	var sb strings.Builder
	for y := 0; y < len(grid); {
		line := string(grid[y])
		run := 1
		for y+run < len(grid) && string(grid[y+run]) == line {
			run++
		}
		sb.WriteString(line)
		if run > 2 {
			fmt.Fprintf(&sb, " ×%d\n", run)
		} else {
			sb.WriteByte('\n')
			if run == 2 {
				sb.WriteString(line)
				sb.WriteByte('\n')
			}
		}
		y += run
	}
	return sb.String()
}

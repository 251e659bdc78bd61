package layout

import (
	"reflect"
	"strings"
	"testing"
)

func TestRect(t *testing.T) {
	r := Rect{2, 3, 10, 4}
	if r.Empty() || (Rect{0, 0, 0, 5}).Empty() == false || (Rect{0, 0, 5, -1}).Empty() == false {
		t.Errorf("Empty is wrong")
	}
	if got, want := r.Inset(1), (Rect{3, 4, 8, 2}); got != want {
		t.Errorf("Inset(1) = %v, want %v", got, want)
	}
	if got := r.Inset(3); got.W != 4 || got.H != 0 {
		t.Errorf("Inset(3) = %v, want a zero height", got)
	}
	for _, c := range []struct {
		x, y int
		in   bool
	}{{2, 3, true}, {11, 6, true}, {12, 6, false}, {11, 7, false}, {1, 3, false}} {
		if got := r.Contains(c.x, c.y); got != c.in {
			t.Errorf("Contains(%d,%d) = %v, want %v", c.x, c.y, got, c.in)
		}
	}
}

func TestNamesNext(t *testing.T) {
	want := []string{MainVertical, MainHorizontal, Tiled, EvenHorizontal, EvenVertical}
	if got := Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Names() = %v", got)
	}
	Names()[0] = "mutated"
	if Names()[0] != MainVertical {
		t.Fatal("Names returns a shared slice")
	}
	name := MainVertical
	for i := range want {
		if name != want[i] {
			t.Fatalf("cycle step %d = %q, want %q", i, name, want[i])
		}
		name = Next(name)
	}
	if name != MainVertical {
		t.Errorf("cycle does not wrap: %q", name)
	}
	if Next("bogus") != MainVertical {
		t.Errorf("Next(unknown) = %q", Next("bogus"))
	}
	if !Valid(Tiled) || Valid("bogus") {
		t.Error("Valid is wrong")
	}
}

// TestDrawing shows the expected shape of the default layout in the style
// of the house examples; the exhaustive table lives in testdata.
func TestDrawing(t *testing.T) {
	o := Options{Name: MainVertical, MinAgentWidth: 12, MinAgentHeight: 1, HasMain: true, Zoom: -1}
	got := draw(Compute(Rect{0, 0, 40, 7}, 2, o))
	want := strings.TrimPrefix(`
┌main──────────────┐┌a1────────────────┐
│                  ││                  │
│                  │└──────────────────┘
│                  │┌a2────────────────┐
│                  ││                  │
│                  ││                  │
└──────────────────┘└──────────────────┘
`, "\n")
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestTooSmallAndDegrade(t *testing.T) {
	o := Options{HasMain: true, Zoom: -1}
	for _, a := range []Rect{{0, 0, 0, 0}, {0, 0, 19, 5}, {0, 0, 20, 4}, {0, 0, -3, 10}} {
		p := Compute(a, 3, o)
		if !p.TooSmall || !p.Main.Empty() || len(p.Slots) != 0 || p.Capacity != 0 {
			t.Errorf("area %v: want TooSmall empty plan, got %+v", a, p)
		}
	}
	// Exactly the main minimum: main only, not too small.
	p := Compute(Rect{0, 0, 20, 5}, 3, o)
	if p.TooSmall || p.Main != (Rect{0, 0, 20, 5}) || len(p.Slots) != 0 {
		t.Errorf("20x5: got %+v", p)
	}
	// Room for the main view but not for a 40x8 agent beside it: main only.
	p = Compute(Rect{0, 0, 61, 24}, 5, o)
	if p.Capacity != 0 || p.Main != (Rect{0, 0, 61, 24}) {
		t.Errorf("61x24 default mins: got %+v", p)
	}
}

func TestCapacity(t *testing.T) {
	cases := []struct {
		name string
		area Rect
		o    Options
		want int
	}{
		// 200 wide: main 100, agents 100/42 = 2 columns, 50/10 = 5 rows.
		{"main-vertical", Rect{0, 0, 200, 50}, Options{Name: MainVertical, HasMain: true}, 10},
		// 50 high: main 25, agents 25/10 = 2 rows, 200/42 = 4 columns.
		{"main-horizontal", Rect{0, 0, 200, 50}, Options{Name: MainHorizontal, HasMain: true}, 8},
		// 4 x 5 cells, one taken by main.
		{"tiled", Rect{0, 0, 200, 50}, Options{Name: Tiled, HasMain: true}, 19},
		{"tiled no main", Rect{0, 0, 200, 50}, Options{Name: Tiled}, 20},
		{"even-horizontal", Rect{0, 0, 200, 50}, Options{Name: EvenHorizontal, HasMain: true}, 3},
		{"even-vertical", Rect{0, 0, 200, 50}, Options{Name: EvenVertical, HasMain: true}, 4},
		// main_size 80 leaves 40 columns, too few for one agent (42): the
		// main view gives up 2, and one column of 5 fits.
		{"main_size 80 gives up one column", Rect{0, 0, 200, 50}, Options{Name: MainVertical, MainSize: 80, HasMain: true}, 5},
		// 80x24 at the default 50 %: main 38, one column of 2.
		{"main-vertical 80x24", Rect{0, 0, 80, 23}, Options{Name: MainVertical, HasMain: true}, 2},
		// 60 wide: the main view cannot go below 20, so no agent fits.
		{"too narrow even then", Rect{0, 0, 60, 50}, Options{Name: MainVertical, HasMain: true}, 0},
		// 24 high, main-horizontal at 80 %: main 19 of 24 leaves 5 rows; it
		// gives up what one row of agents needs (10).
		{"main-horizontal gives up one row", Rect{0, 0, 200, 24}, Options{Name: MainHorizontal, MainSize: 80, HasMain: true}, 4},
		{"unknown name is main-vertical", Rect{0, 0, 200, 50}, Options{Name: "x", HasMain: true}, 10},
	}
	for _, c := range cases {
		if got := Capacity(c.area, c.o); got != c.want {
			t.Errorf("%s: Capacity = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestZoom(t *testing.T) {
	area := Rect{0, 0, 200, 50}
	o := Options{HasMain: true, Zoom: 2}
	p := Compute(area, 3, o)
	if p.Zoomed != 2 || !p.Main.Empty() || len(p.Slots) != 3 || p.Slots[1] != area || !p.Slots[0].Empty() || !p.Slots[2].Empty() {
		t.Errorf("zoom a2: %+v", p)
	}
	o.Zoom = 0
	p = Compute(area, 3, o)
	if p.Zoomed != 0 || p.Main != area || len(p.Slots) != 3 || !p.Slots[0].Empty() {
		t.Errorf("zoom main: %+v", p)
	}
	o.Zoom = 4 // only 3 slots: ignored
	p = Compute(area, 3, o)
	if p.Zoomed != -1 || p.Main.Empty() {
		t.Errorf("zoom absent slot: %+v", p)
	}
}

func TestNeighbour(t *testing.T) {
	// main-vertical with main, a1..a4 in a 2x2 grid on the right.
	p := Compute(Rect{0, 0, 200, 50}, 4, Options{HasMain: true, Zoom: -1})
	rs := p.Rects()
	cases := []struct {
		from int
		dir  Direction
		want int
	}{
		{0, Right, 1}, // equal overlap with a1 and a3: lowest index
		{0, Left, -1},
		{0, Up, -1},
		{1, Left, 0},
		{1, Right, 2},
		{1, Down, 3},
		{4, Up, 2},
		{4, Left, 3},
		{3, Left, 0},
		{2, Down, 4},
		{2, Right, -1},
		{9, Right, -1},
		{-1, Right, -1},
		{1, Direction(7), -1},
	}
	for _, c := range cases {
		if got := Neighbour(rs, c.from, c.dir); got != c.want {
			t.Errorf("Neighbour(%d, %v) = %d, want %d", c.from, c.dir, got, c.want)
		}
	}
	// The box overlapping most wins: main spans rows 0..49; a tall right
	// box overlaps it more than a short one.
	rects := []Rect{{0, 0, 10, 50}, {10, 0, 10, 10}, {10, 10, 10, 40}}
	if got := Neighbour(rects, 0, Right); got != 2 {
		t.Errorf("most overlap: got %d, want 2", got)
	}
	// Nearest first, even when a farther box overlaps more.
	rects = []Rect{{0, 0, 10, 10}, {30, 0, 10, 10}, {15, 5, 5, 2}}
	if got := Neighbour(rects, 0, Right); got != 2 {
		t.Errorf("nearest: got %d, want 2", got)
	}
	// Hidden (empty) boxes are skipped.
	zoomed := Compute(Rect{0, 0, 200, 50}, 4, Options{HasMain: true, Zoom: 1}).Rects()
	if got := Neighbour(zoomed, 1, Left); got != -1 {
		t.Errorf("zoomed: got %d, want -1", got)
	}
	if Left.String() != "left" || Down.String() != "down" || Direction(9).String() != "unknown" {
		t.Error("Direction.String is wrong")
	}
}

func TestHitTest(t *testing.T) {
	rs := Compute(Rect{0, 0, 200, 50}, 4, Options{HasMain: true, Zoom: -1}).Rects()
	cases := []struct{ x, y, want int }{
		{0, 0, 0}, {99, 49, 0}, {100, 0, 1}, {150, 0, 2}, {100, 25, 3}, {199, 49, 4}, {200, 0, -1}, {-1, 0, -1},
	}
	for _, c := range cases {
		if got := HitTest(rs, c.x, c.y); got != c.want {
			t.Errorf("HitTest(%d,%d) = %d, want %d", c.x, c.y, got, c.want)
		}
	}
}

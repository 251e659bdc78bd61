package layout

import "testing"

// FuzzCompute checks the invariants every plan must keep: boxes lie inside
// the area, never overlap, tile the area exactly when anything is shown,
// respect the minimum sizes, and there are min(n, Capacity) slots.
func FuzzCompute(f *testing.F) {
	f.Add(0, 0, 200, 50, 5, uint8(0), 50, 40, 8, true, -1)
	f.Add(0, 0, 20, 5, 3, uint8(1), 50, 40, 8, true, -1)
	f.Add(3, 7, 400, 100, 20, uint8(2), 30, 10, 3, true, -1)
	f.Add(0, 0, 80, 24, 7, uint8(3), 50, 10, 3, false, -1)
	f.Add(0, 0, 120, 40, 9, uint8(4), 80, 12, 4, true, 2)
	f.Add(0, 0, 0, 0, 1, uint8(0), 0, 0, 0, true, 0)
	f.Fuzz(func(t *testing.T, x, y, w, h, n int, layoutIdx uint8, mainSize, minW, minH int, hasMain bool, zoom int) {
		// Keep sizes realistic so the fuzzer explores geometry, not
		// allocation limits.
		if w > 1000 || h > 1000 || n > 500 || w < -10 || h < -10 {
			return
		}
		if minW > 1000 || minH > 1000 || minW < -5 || minH < -5 {
			return
		}
		area := Rect{x % 10000, y % 10000, w, h}
		o := Options{
			Name: Names()[int(layoutIdx)%len(Names())], MainSize: mainSize,
			MinAgentWidth: minW, MinAgentHeight: minH, HasMain: hasMain, Zoom: zoom,
		}
		p := Compute(area, n, o)
		checkPlan(t, area, max(n, 0), o, p)
	})
}

func checkPlan(t *testing.T, area Rect, n int, o Options, p Plan) {
	t.Helper()
	if p.Area != area {
		t.Fatalf("Area = %v, want %v", p.Area, area)
	}
	if want := min(n, p.Capacity); len(p.Slots) != want {
		t.Fatalf("len(Slots) = %d, want min(%d, %d)", len(p.Slots), n, p.Capacity)
	}
	if p.Capacity != Capacity(area, o) {
		t.Fatalf("Plan.Capacity %d != Capacity() %d", p.Capacity, Capacity(area, o))
	}
	if p.TooSmall {
		if !p.Main.Empty() || len(p.Slots) != 0 || p.Capacity != 0 {
			t.Fatalf("TooSmall plan is not empty: %+v", p)
		}
		return
	}
	if area.W < MinMainWidth || area.H < MinMainHeight {
		t.Fatalf("area %v below the main minimum is not TooSmall", area)
	}
	norm := o.normalized()
	var boxes []Rect
	if !p.Main.Empty() {
		if !o.HasMain {
			t.Fatalf("main box %v without a main view", p.Main)
		}
		if p.Main.W < MinMainWidth || p.Main.H < MinMainHeight {
			t.Fatalf("main box %v below %dx%d", p.Main, MinMainWidth, MinMainHeight)
		}
		boxes = append(boxes, p.Main)
	}
	for i, s := range p.Slots {
		if s.Empty() {
			continue
		}
		c := s.Inset(1)
		if c.W < norm.MinAgentWidth || c.H < norm.MinAgentHeight {
			t.Fatalf("slot %d content %dx%d below minimum %dx%d", i, c.W, c.H, norm.MinAgentWidth, norm.MinAgentHeight)
		}
		boxes = append(boxes, s)
	}
	cells := 0
	for i, b := range boxes {
		if b.X < area.X || b.Y < area.Y || b.X+b.W > area.X+area.W || b.Y+b.H > area.Y+area.H {
			t.Fatalf("box %v outside area %v", b, area)
		}
		for _, c := range boxes[i+1:] {
			if span(b.X, b.W, c.X, c.W) > 0 && span(b.Y, b.H, c.Y, c.H) > 0 {
				t.Fatalf("boxes %v and %v overlap", b, c)
			}
		}
		cells += b.W * b.H
	}
	// Inside the area and disjoint, so covering area.W*area.H cells means
	// they tile it exactly.
	shown := o.HasMain || len(p.Slots) > 0
	if shown && cells != area.W*area.H {
		t.Fatalf("boxes cover %d cells, area has %d: %+v", cells, area.W*area.H, p)
	}
	if o.HasMain && p.Zoomed == -1 && p.Main.Empty() {
		t.Fatalf("main view missing without zoom: %+v", p)
	}
}

// TestInvariantsExhaustive runs the fuzz checks over a dense grid of sizes so
// a plain `go test` covers what the seed corpus alone would not.
func TestInvariantsExhaustive(t *testing.T) {
	for _, name := range Names() {
		for _, hasMain := range []bool{true, false} {
			for w := 0; w <= 260; w += 7 {
				for h := 0; h <= 80; h += 3 {
					for _, n := range []int{0, 1, 2, 3, 5, 8, 13, 21, 40} {
						area := Rect{1, 2, w, h}
						o := Options{Name: name, MinAgentWidth: 12, MinAgentHeight: 3, HasMain: hasMain, Zoom: -1}
						checkPlan(t, area, n, o, Compute(area, n, o))
					}
				}
			}
		}
	}
}

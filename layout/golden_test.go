package layout

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// goldenSizes are the terminal sizes every layout is drawn at.
var goldenSizes = []Rect{{0, 0, 20, 5}, {0, 0, 80, 24}, {0, 0, 200, 50}, {0, 0, 400, 100}}

// goldenMins are the agent minimums drawn: the default, and a small one so
// that the grid arithmetic is exercised at every size.
var goldenMins = []struct {
	name string
	w, h int
}{{"min40x8", 40, 8}, {"min10x3", 10, 3}}

// renderGolden draws the plans for 0..20 agents. Consecutive identical
// drawings are written once, to keep the files reviewable.
func renderGolden(area Rect, o Options) string {
	var sb strings.Builder
	prev, prevN := "", -1
	for n := 0; n <= 20; n++ {
		p := Compute(area, n, o)
		d := draw(p)
		if d == prev {
			fmt.Fprintf(&sb, "== n=%d: same as n=%d\n", n, prevN)
			continue
		}
		fmt.Fprintf(&sb, "== n=%d capacity=%d slots=%d\n%s", n, p.Capacity, len(p.Slots), d)
		prev, prevN = d, n
	}
	return sb.String()
}

// TestGolden compares ASCII drawings of every layout at every golden size
// and 0..20 agents with testdata/*.golden. Run `go test ./layout -update`
// to regenerate, then review the diff.
func TestGolden(t *testing.T) {
	for _, name := range Names() {
		for _, m := range goldenMins {
			for _, area := range goldenSizes {
				if m.name != "min40x8" && area.W > 200 {
					continue // the small minimum at 400x100 adds megabytes and no new arithmetic
				}
				file := fmt.Sprintf("%s_%s_%dx%d.golden", name, m.name, area.W, area.H)
				t.Run(file, func(t *testing.T) {
					o := Options{Name: name, MainSize: 50, MinAgentWidth: m.w, MinAgentHeight: m.h, HasMain: true, Zoom: -1}
					checkGolden(t, file, renderGolden(area, o))
				})
			}
		}
	}
}

// TestGoldenVariants covers no main view, zoom and other main sizes.
func TestGoldenVariants(t *testing.T) {
	area := Rect{0, 0, 120, 30}
	var sb strings.Builder
	cases := []struct {
		title string
		n     int
		o     Options
	}{
		{"main-vertical no main", 5, Options{Name: MainVertical, MinAgentWidth: 20, MinAgentHeight: 4, Zoom: -1}},
		{"tiled no main", 5, Options{Name: Tiled, MinAgentWidth: 20, MinAgentHeight: 4, Zoom: -1}},
		{"even-horizontal no main", 3, Options{Name: EvenHorizontal, MinAgentWidth: 20, MinAgentHeight: 4, Zoom: -1}},
		{"main-vertical main_size 70", 4, Options{Name: MainVertical, MainSize: 70, MinAgentWidth: 10, MinAgentHeight: 3, HasMain: true, Zoom: -1}},
		{"main-horizontal main_size 30", 4, Options{Name: MainHorizontal, MainSize: 30, MinAgentWidth: 10, MinAgentHeight: 3, HasMain: true, Zoom: -1}},
		{"zoom main", 3, Options{Name: MainVertical, MinAgentWidth: 20, MinAgentHeight: 4, HasMain: true, Zoom: 0}},
		{"zoom a2", 3, Options{Name: MainVertical, MinAgentWidth: 20, MinAgentHeight: 4, HasMain: true, Zoom: 2}},
		{"zoom a9 (absent, ignored)", 3, Options{Name: MainVertical, MinAgentWidth: 20, MinAgentHeight: 4, HasMain: true, Zoom: 9}},
		{"offset area", 2, Options{Name: Tiled, MinAgentWidth: 20, MinAgentHeight: 4, HasMain: true, Zoom: -1}},
	}
	for _, c := range cases {
		a := area
		if c.title == "offset area" {
			a = Rect{3, 2, 100, 20}
		}
		p := Compute(a, c.n, c.o)
		fmt.Fprintf(&sb, "== %s: n=%d capacity=%d slots=%d zoomed=%d\n%s", c.title, c.n, p.Capacity, len(p.Slots), p.Zoomed, draw(p))
	}
	checkGolden(t, "variants.golden", sb.String())
}

func checkGolden(t *testing.T, file, got string) {
	t.Helper()
	path := filepath.Join("testdata", file)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("write golden file: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the computed plans; run `go test ./layout -update` and review the diff\n%s", path, firstDiff(string(want), got))
	}
}

// firstDiff shows the first differing line, which is enough to locate a
// regression in a large drawing.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, w, g)
		}
	}
	return ""
}

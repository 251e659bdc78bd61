package termrt

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/panes/vterm"
)

// noSpares empties the spare cells for one test and puts them back after.
func noSpares(t *testing.T) {
	spare.Lock()
	saved, total := spare.cells, spare.total
	spare.cells, spare.total = nil, 0
	spare.Unlock()
	t.Cleanup(func() {
		spare.Lock()
		spare.cells, spare.total = saved, total
		spare.Unlock()
	})
}

// spares is how many spare slices there are, and their cells in all.
func spares() (n, total int) {
	spare.Lock()
	defer spare.Unlock()
	return len(spare.cells), spare.total
}

func first(cs []vterm.Cell) *vterm.Cell {
	if cap(cs) == 0 {
		return nil
	}
	return &cs[:1][0]
}

// TestReleasedCellsGoToTheNextCanvas: a canvas released is empty and its
// cells go to the next canvas that needs as many, blanked by Resize and
// overwritten by CopyFrom; a canvas that needs more gets new ones.
func TestReleasedCellsGoToTheNextCanvas(t *testing.T) {
	noSpares(t)
	src := cvOf("copied") // made first: it would take a spare too
	var a Canvas
	a.Resize(20, 10)
	a.Text(3, 0, 20, "left behind", Style{})
	cells := first(a.Cells)
	a.Release()
	if a.W != 0 || a.H != 0 || len(a.Cells) != 0 || a.Dirty(0) {
		t.Fatalf("a released canvas is %dx%d with %d cells; want it empty", a.W, a.H, len(a.Cells))
	}
	var b Canvas
	b.Resize(10, 5)
	if first(b.Cells) != cells {
		t.Fatal("a smaller canvas did not take the released cells")
	}
	for i, c := range b.Cells {
		if c != Blank {
			t.Fatalf("cell %d of the reused canvas is %+v, want blank", i, c)
		}
	}
	b.Release()
	var c Canvas
	c.CopyFrom(src)
	if first(c.Cells) != cells || !slices.Equal(c.Cells, src.Cells) || c.W != src.W || c.H != src.H {
		t.Fatalf("CopyFrom into released cells: %dx%d, same cells %v", c.W, c.H, slices.Equal(c.Cells, src.Cells))
	}
	c.Release()
	var big Canvas
	big.Resize(30, 10)
	if first(big.Cells) == cells {
		t.Fatal("a canvas larger than every spare took a spare")
	}
	if n, _ := spares(); n != 1 {
		t.Fatalf("%d spares after a larger canvas was made; want the 1 it could not use", n)
	}
}

// TestAScreenTakesOverTheCellsOfOneThatEnded: a screen started after
// another was closed (an attach after a detach) draws with the first
// one's cells, and still paints its first frame whole: nothing the old
// screen showed is taken for what the new terminal shows.
func TestAScreenTakesOverTheCellsOfOneThatEnded(t *testing.T) {
	noSpares(t)
	frameA := cvOf(strings.Repeat("a", 30), strings.Repeat("a", 30))
	frameB := cvOf(strings.Repeat("a", 29)+"b", strings.Repeat("a", 30))

	wa := newChanWriter()
	a := newScreen(wa, tea.MouseModeNone, writerCaps{})
	a.show(Frame{Canvas: frameA}, false)
	wa.next(t)
	a.mu.Lock()
	used := []*vterm.Cell{first(a.pending.cv.Cells), first(a.next.Cells), first(a.shownCv.Cells)}
	a.mu.Unlock()
	wa.noMore(t, a)

	wb := newChanWriter()
	b := newScreen(wb, tea.MouseModeNone, writerCaps{})
	b.show(Frame{Canvas: frameB}, false)
	if out, want := wb.next(t), seqSyncBegin+"\x1b[m"+seqClear+strings.Repeat("a", 29)+"b\r\n"+strings.Repeat("a", 30)+seqSyncEnd; out != want {
		t.Fatalf("the new screen's first frame wrote %q, want it painted whole %q", out, want)
	}
	b.mu.Lock()
	got := []*vterm.Cell{first(b.pending.cv.Cells), first(b.next.Cells), first(b.shownCv.Cells)}
	b.mu.Unlock()
	for i, p := range got {
		if !slices.Contains(used, p) {
			t.Errorf("canvas %d of the new screen has new cells; want the closed screen's", i)
		}
	}
	wb.noMore(t, b)
}

// TestSparesAreBounded: the spares keep at most maxSpare slices and
// maxSpareCells cells; a canvas beyond either is left to the collector.
func TestSparesAreBounded(t *testing.T) {
	noSpares(t)
	huge := Canvas{}
	huge.Resize(maxSpareCells/100+1, 100)
	cells := len(huge.Cells)
	huge.Release()
	n, total := spares()
	if n != 0 || total != 0 {
		t.Fatalf("a canvas of %d cells was kept (%d spares, %d cells); the limit is %d", cells, n, total, maxSpareCells)
	}
	var cs []Canvas
	for range maxSpare + 2 {
		var c Canvas
		c.Resize(10, 10)
		cs = append(cs, c)
	}
	for i := range cs {
		cs[i].Release()
	}
	n, total = spares()
	if n != maxSpare || total != maxSpare*100 {
		t.Fatalf("%d spares of %d cells after %d releases; want %d of %d", n, total, maxSpare+2, maxSpare, maxSpare*100)
	}
	taken := cellsFor(100)
	n, total = spares()
	if len(taken) != 100 || n != maxSpare-1 || total != (maxSpare-1)*100 {
		t.Fatalf("after taking one: %d spares of %d cells", n, total)
	}
}

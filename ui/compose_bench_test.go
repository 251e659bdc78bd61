package ui

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// agentLine is one deterministic line of agent-like output: coloured tool
// calls, test results, diff lines.
func agentLine(r *rand.Rand, i int) string {
	switch r.IntN(5) {
	case 0:
		return fmt.Sprintf("\x1b[1;36m⏺ Bash\x1b[0m(go test ./pkg/%d/...) \x1b[2m%dms\x1b[0m", r.IntN(40), r.IntN(900))
	case 1:
		return fmt.Sprintf("\x1b[32m✓\x1b[0m TestCase%d_%d passed \x1b[38;5;244m(%d.%02ds)\x1b[0m", i, r.IntN(99), r.IntN(3), r.IntN(100))
	case 2:
		return fmt.Sprintf("\x1b[31m-\t\treturn fmt.Errorf(\"line %d: %%w\", err)\x1b[0m", i)
	case 3:
		return fmt.Sprintf("\x1b[32m+\t\treturn fmt.Errorf(\"parse line %d: %%w\", err)\x1b[0m", i)
	}
	return fmt.Sprintf("\x1b[38;2;200;120;50mReading\x1b[0m internal/module_%d/file_%d.go — 日本語 %d lines", r.IntN(30), i, r.IntN(2000))
}

// bench16 is a 240x70 frame of 16 panes (main + 15 agents) backed by real
// terminals filled with agent-like output.
type bench16 struct {
	in    frameInput
	terms []*vterm.Terminal
	rng   *rand.Rand
	line  int
}

func newBench16(tb testing.TB) *bench16 {
	tb.Helper()
	const w, h = 240, 70
	plan := layout.Compute(layout.Rect{W: w, H: h - 1}, 15, layout.Options{Name: layout.Tiled, HasMain: true, MinAgentWidth: 20, MinAgentHeight: 5, Zoom: -1})
	if len(plan.Slots) != 15 || plan.Main.Empty() {
		tb.Fatalf("layout gave %d slots (capacity %d), main %v", len(plan.Slots), plan.Capacity, plan.Main)
	}
	b := &bench16{rng: rand.New(rand.NewPCG(1, 2))}
	boxes := append([]layout.Rect{plan.Main}, plan.Slots...)
	for i, box := range boxes {
		c := box.Inset(1)
		t := vterm.New(c.W, c.H, vterm.WithScrollback(1000))
		for range c.H * 3 {
			b.feed(t)
		}
		b.terms = append(b.terms, t)
		b.in.panes = append(b.in.panes, paneFrame{
			id: "a" + strconv.Itoa(i), box: box, term: t, view: new(vterm.Frame), focused: i == 0, waiting: i == 5,
			label: paneLabel{number: strconv.Itoa(i), title: "agent " + strconv.Itoa(i) + " refactoring the parser",
				badge: "● running 12s", badgeSt: termrt.Style{Fg: vterm.IndexedColor(2)}, entries: []string{"Bash: go test ./..."}},
		})
	}
	b.in.width, b.in.height = w, h
	// Plain text, as the status line was drawn here before it had styles.
	b.in.status = plain(hooks.RenderStatusLine(hooks.StatusLineInput{
		Counts: agentstate.Counts{Running: 12, Waiting: 1, Done: 2, Queued: 4}, Focus: "main",
		Entries: []hooks.StatusEntry{{Key: "build", Text: "✓ green"}, {Key: "ci", Text: "3/4 jobs"}},
	}, w).String())
	return b
}

// benchLooks are the border looks the benchmarks draw with.
var benchLooks = frameLooks{
	border:        termrt.Style{Fg: vterm.IndexedColor(240)},
	borderFocus:   termrt.Style{Fg: vterm.IndexedColor(39)},
	borderWaiting: termrt.Style{Fg: vterm.IndexedColor(214)},
}

// copyViews takes every pane's copy of its terminal, as each refresh does.
func (b *bench16) copyViews() {
	for i := range b.in.panes {
		p := &b.in.panes[i]
		p.term.FrameRows(p.view, 0)
	}
}

func (b *bench16) feed(t *vterm.Terminal) {
	b.line++
	_, _ = t.Write([]byte("\r\n" + agentLine(b.rng, b.line)))
}

// redraw rewrites every row of t, as a full-screen program does.
func (b *bench16) redraw(t *vterm.Terminal) {
	_, rows := t.Size()
	var sb []byte
	sb = append(sb, "\x1b[H"...)
	for y := range rows {
		b.line++
		if y > 0 {
			sb = append(sb, "\r\n"...)
		}
		sb = append(sb, "\x1b[2K"...)
		sb = append(sb, agentLine(b.rng, b.line)...)
	}
	_, _ = t.Write(sb)
}

// BenchmarkCompose16 composes a 240x70 frame of 16 panes (main + 15
// agents). redraw-all: every pane rewrote every row since the last frame
// (all 16 terminals re-render every row: the worst case); scroll-all: every
// pane printed a line (one new row each, the others' renders are reused);
// scroll-one: one busy pane; clean: no terminal changed (borders, status
// line and concatenation only). Each iteration takes every pane's copy
// (one lock per pane) and composes; feeding the terminals is not timed.
func BenchmarkCompose16(b *testing.B) {
	cases := []struct {
		name  string
		panes int
		full  bool
	}{{"redraw-all", 16, true}, {"scroll-all", 16, false}, {"scroll-one", 1, false}, {"clean", 0, false}}
	for _, cs := range cases {
		b.Run(cs.name, func(b *testing.B) {
			bf := newBench16(b)
			c := composer{looks: benchLooks}
			bf.copyViews()
			frame := c.compose(&bf.in)
			b.SetBytes(int64(len(frame.Cells)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if cs.panes > 0 {
					b.StopTimer()
					for i := range cs.panes {
						if cs.full {
							bf.redraw(bf.terms[i])
						} else {
							bf.feed(bf.terms[i])
						}
					}
					b.StartTimer()
				}
				bf.copyViews()
				frame = c.compose(&bf.in)
			}
			if len(frame.Cells) == 0 {
				b.Fatal("empty frame")
			}
		})
	}
}

func TestBench16FrameIsWellFormed(t *testing.T) {
	bf := newBench16(t)
	var c composer
	bf.copyViews()
	checkWidths(t, c.compose(&bf.in), 240, 70)
}

// BenchmarkEchoFrame16 is the whole frame path of one echoed key in a
// 240x70 session of 16 panes: the pane copies, composition, the copy the
// screen takes, and the writer's diff.
func BenchmarkEchoFrame16(b *testing.B) {
	bf := newBench16(b)
	c := composer{looks: benchLooks}
	bf.copyViews()
	d := termrt.NewDiff(colorprofile.TrueColor, "xterm-256color", false)
	var scr termrt.Canvas
	out := d.Append(nil, c.compose(&bf.in), true)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		_, _ = bf.terms[0].Write([]byte("x"))
		b.StartTimer()
		bf.copyViews()
		cv := c.compose(&bf.in)
		// What the runtime does: the screen copies the rows written, the
		// writer diffs those.
		scr.CopyDirty(cv)
		cv.ClearDirty()
		out = d.Append(out[:0], &scr, false)
		scr.ClearDirty()
	}
	if len(out) == 0 || len(out) > 64 {
		b.Fatalf("an echo wrote %q", out)
	}
}

// BenchmarkFullRedraw16 is prefix r in a 240x70 session of 16 panes: the
// frame composed from scratch, copied by the screen, and
// every cell sent again after a clear.
func BenchmarkFullRedraw16(b *testing.B) {
	bf := newBench16(b)
	c := composer{looks: benchLooks}
	bf.copyViews()
	d := termrt.NewDiff(colorprofile.TrueColor, "xterm-256color", false)
	var scr termrt.Canvas
	out := d.Append(nil, c.compose(&bf.in), true)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c.reset()
		bf.copyViews()
		cv := c.compose(&bf.in)
		scr.CopyDirty(cv)
		cv.ClearDirty()
		out = d.Append(out[:0], &scr, true)
		scr.ClearDirty()
	}
	b.ReportMetric(float64(len(out)), "bytes/frame")
}

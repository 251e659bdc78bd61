package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/panes/vterm"
)

// movingClock is a clock the test moves by hand, shared by the model and
// the pane's terminal.
type movingClock struct{ t time.Time }

func (c *movingClock) now() time.Time { return c.t }

// tickRec is a timer the model asked for.
type tickRec struct {
	d  time.Duration
	fn func(time.Time) tea.Msg
}

// newSyncModel is a test model whose main pane is a real terminal on clk,
// showing "old 1".."old 5"; armed timers are recorded in ticks.
func newSyncModel(t *testing.T, clk *movingClock, ticks *[]tickRec) (*Model, *vterm.Terminal) {
	t.Helper()
	snap := testSnapshot()
	c := snap.Main.Box.Inset(1)
	term := vterm.New(c.W, c.H, vterm.WithClock(clk.now))
	_, _ = term.Write([]byte("old 1\r\nold 2\r\nold 3\r\nold 4\r\nold 5"))
	snap.Main.Term = term
	eng := newFakeEngine(snap, clk.now)
	m := newModel(eng, testConfig(), testStyles(), clk.now)
	m.tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		*ticks = append(*ticks, tickRec{d, fn})
		return nil
	}
	m.Update(teaWindowSize(80, 24))
	return m, term
}

// countRows counts the main pane's rows reading "old k" and "new k" in a
// composed frame.
func countRows(frame string) (old, new int) {
	for _, r := range strings.Split(ansi.Strip(frame), "\n") {
		for k := 1; k <= 5; k++ {
			if strings.HasPrefix(r, fmt.Sprintf("│old %d ", k)) {
				old++
			}
			if strings.HasPrefix(r, fmt.Sprintf("│new %d ", k)) {
				new++
			}
		}
	}
	return old, new
}

// An agent CLI redraws inside a synchronized update (DECSET 2026). Fed in
// small writes with a frame composed after each, no frame shows part of
// the update; the write that ends it shows all of it.
func TestSyncUpdateIsNeverDrawnHalfDone(t *testing.T) {
	clk := &movingClock{t: testNow}
	var ticks []tickRec
	m, term := newSyncModel(t, clk, &ticks)
	if old, new := countRows(viewText(m)); old != 5 || new != 0 {
		t.Fatalf("before the update: %d old rows, %d new", old, new)
	}
	update := "\x1b[?2026h\x1b[H"
	for k := 1; k <= 5; k++ {
		update += fmt.Sprintf("\x1b[2Knew %d\r\n", k)
	}
	update += "\x1b[?2026l"
	for i := 0; i < len(update); i += 3 {
		end := min(i+3, len(update))
		_, _ = term.Write([]byte(update[i:end]))
		clk.t = clk.t.Add(time.Millisecond)
		m.Update(frameMsg{})
		old, new := countRows(viewText(m))
		switch {
		case end == len(update):
			if old != 0 || new != 5 {
				t.Fatalf("after the update ended: %d old rows, %d new", old, new)
			}
		case old != 5 || new != 0:
			t.Fatalf("after %q: a frame shows %d old rows and %d new", update[:end], old, new)
		}
	}
}

// A program that never ends its update shows what it wrote once the
// update timed out: the model arms a timer for that moment, and the frame
// it triggers draws the live screen.
func TestSyncUpdateTimesOut(t *testing.T) {
	clk := &movingClock{t: testNow}
	var ticks []tickRec
	m, term := newSyncModel(t, clk, &ticks)
	m.View()
	holdTicks := func() []tickRec {
		var out []tickRec
		for _, tk := range ticks {
			if _, ok := tk.fn(clk.t).(holdTickMsg); ok {
				out = append(out, tk)
			}
		}
		return out
	}
	if n := len(holdTicks()); n != 0 {
		t.Fatalf("%d hold timers armed with nothing held", n)
	}
	_, _ = term.Write([]byte("\x1b[?2026h\x1b[H\x1b[2Knew 1\r\n\x1b[2Knew 2"))
	clk.t = clk.t.Add(300 * time.Millisecond)
	m.Update(frameMsg{})
	if old, new := countRows(viewText(m)); old != 5 || new != 0 {
		t.Fatalf("during the update: %d old rows, %d new", old, new)
	}
	hs := holdTicks()
	if len(hs) != 1 || hs[0].d != vterm.SyncTimeout-300*time.Millisecond {
		t.Fatalf("hold timers %+v, want one of %v", hs, vterm.SyncTimeout-300*time.Millisecond)
	}
	// Another frame before the timeout arms nothing new.
	m.Update(frameMsg{})
	if n := len(holdTicks()); n != 1 {
		t.Fatalf("%d hold timers after a second frame", n)
	}
	clk.t = clk.t.Add(hs[0].d)
	m.Update(hs[0].fn(clk.t))
	if old, new := countRows(viewText(m)); old != 3 || new != 2 {
		t.Errorf("after the timeout: %d old rows, %d new; want the live screen (3 old, 2 new)", old, new)
	}
}

// A program redraws its whole screen in single writes while frames are
// composed concurrently: every frame shows each pane as it was between two
// writes, never rows from two different writes.
func TestFrameNeverMixesTwoWrites(t *testing.T) {
	m, _ := newTestModel(t, testSnapshot())
	term := m.snap.Main.Term.(*vterm.Terminal) // the fake engine's pane
	_, rows := term.Size()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var b strings.Builder
		for gen := 0; ; gen++ {
			select {
			case <-stop:
				return
			default:
			}
			b.Reset()
			b.WriteString("\x1b[H")
			for y := range rows {
				if y > 0 {
					b.WriteString("\r\n")
				}
				fmt.Fprintf(&b, "\x1b[2Kgen %07d", gen)
			}
			_, _ = term.Write([]byte(b.String()))
		}
	}()
	defer func() { close(stop); <-done }()
	torn := 0
	for i := 0; i < 300 && torn == 0; i++ {
		m.Update(frameMsg{})
		gens := map[string]int{}
		for _, r := range strings.Split(ansi.Strip(viewText(m)), "\n") {
			if strings.HasPrefix(r, "│gen ") && len(r) > 16 {
				gens[r[len("│gen "):len("│gen ")+7]]++
			}
		}
		if len(gens) > 1 {
			torn++
			t.Errorf("frame %d shows rows of %d writes: %v", i, len(gens), gens)
		}
	}
}

package ui

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/panes/vterm"
)

// TestEchoFrameLeavesFloodsForTheNextFrame: a frame drawn for a keystroke's
// echo copies the focused pane and the panes that were quiet, and leaves
// out a pane that printed in the frame before too (a flood); the next
// ordinary frame draws what it printed. Without that, every echo under a
// flood copied, composed and sent the flooding panes too.
func TestEchoFrameLeavesFloodsForTheNextFrame(t *testing.T) {
	snap := testSnapshot()
	m, _ := newTestModel(t, snap)
	main := snap.Main.Term.(*vterm.Terminal)
	flood := snap.Panes[0].Term.(*vterm.Terminal)
	quiet := snap.Panes[1].Term.(*vterm.Terminal)
	frame := func(echo bool) string {
		m.Update(frameMsg{echo: echo})
		return ansi.Strip(viewText(m))
	}

	// a1 prints in two frames in a row: it floods.
	_, _ = flood.Write([]byte("flood 1\r\n"))
	frame(false)
	_, _ = flood.Write([]byte("flood 2\r\n"))
	if s := frame(false); !strings.Contains(s, "flood 2") {
		t.Fatalf("an ordinary frame does not show the flood:\n%s", s)
	}

	// The key's echo, more of the flood, and a2's first output in a while.
	_, _ = main.Write([]byte("x"))
	_, _ = flood.Write([]byte("flood 3\r\n"))
	_, _ = quiet.Write([]byte("woke up\r\n"))
	s := frame(true)
	if !strings.Contains(s, "$ x") {
		t.Fatalf("the echo frame does not show the echo:\n%s", s)
	}
	if !strings.Contains(s, "woke up") {
		t.Fatalf("the echo frame left out a pane that had been quiet:\n%s", s)
	}
	if strings.Contains(s, "flood 3") || !strings.Contains(s, "flood 2") {
		t.Fatalf("the echo frame drew the flooding pane's new output, or lost its old:\n%s", s)
	}
	if s := frame(false); !strings.Contains(s, "flood 3") {
		t.Fatalf("the frame after the echo does not show the flood's output:\n%s", s)
	}

	// Frames keep copying correctly after the views were shared: the
	// buffers an echo frame kept are not written over by the next copy.
	for i := 4; i < 8; i++ {
		_, _ = flood.Write([]byte("flood " + string(rune('0'+i)) + "\r\n"))
		_, _ = main.Write([]byte("y"))
		echo := frame(true)
		if strings.Contains(echo, "flood "+string(rune('0'+i))) {
			t.Fatalf("echo frame %d drew the flood", i)
		}
		if s := frame(false); !strings.Contains(s, "flood "+string(rune('0'+i))) || !strings.Contains(s, "flood "+string(rune('0'+i-1))) {
			t.Fatalf("ordinary frame %d lost the flood's lines:\n%s", i, s)
		}
	}
}

// TestFramePumpKeepsChangesAfterAnEchoFrame: an echo frame does not take
// the pending change pokes, so the panes it left out get an ordinary frame
// after it (at once, or when the frame budget allows: a timer).
func TestFramePumpKeepsChangesAfterAnEchoFrame(t *testing.T) {
	changed := make(chan struct{}, 1)
	fresh := make(chan struct{}, 1)
	var pokeOnClock atomic.Bool
	pr := &pumpProbe{}
	p := &framePump{changed: []<-chan struct{}{changed}, fresh: fresh, interval: time.Second / 60,
		now: func() time.Time {
			// The pump reads the clock when an echo arrives: a flooding pane's
			// change comes in just then, before the frame is sent.
			if pokeOnClock.CompareAndSwap(true, false) {
				select {
				case changed <- struct{}{}:
				default:
				}
			}
			return time.Unix(0, 0)
		}}
	stop := pr.run(p)
	defer stop()
	waitFor(t, "the pump to wait", func() bool { return pr.idles.Load() == 1 })
	changed <- struct{}{}
	waitFor(t, "the first frame", func() bool { return pr.sends.Load() == 1 && pr.idles.Load() == 2 })
	pokeOnClock.Store(true)
	fresh <- struct{}{}
	waitFor(t, "the echo frame", func() bool { return pr.sends.Load() >= 2 })
	waitFor(t, "an ordinary frame, or its timer, after the echo frame", func() bool {
		return pr.sends.Load() == 3 || pr.timers.Load() > 0
	})
}

// countingReader is a pane's terminal that counts the copies taken of it.
type countingReader struct {
	*vterm.Terminal
	copies atomic.Int64
}

func (c *countingReader) FrameRows(dst *vterm.Frame, offset int) {
	c.copies.Add(1)
	c.Terminal.FrameRows(dst, offset)
}

// TestFrameKeepsTheCopyOfAnUnchangedPane: a frame copies only the panes
// written to since their last copy; a quiet pane keeps the copy it has,
// frame after frame, and still shows what it shows. Without that, a frame
// that changes one badge copied every pane of the screen again.
func TestFrameKeepsTheCopyOfAnUnchangedPane(t *testing.T) {
	snap := testSnapshot()
	busy := &countingReader{Terminal: snap.Panes[0].Term.(*vterm.Terminal)}
	quiet := &countingReader{Terminal: snap.Panes[1].Term.(*vterm.Terminal)}
	snap.Panes[0].Term, snap.Panes[1].Term = busy, quiet
	m, _ := newTestModel(t, snap)
	frame := func() string {
		m.Update(frameMsg{})
		return ansi.Strip(viewText(m))
	}
	frame()
	base := quiet.copies.Load()
	for i := range 6 {
		line := "busy " + string(rune('a'+i))
		_, _ = busy.Write([]byte(line + "\r\n"))
		s := frame()
		if !strings.Contains(s, line) || !strings.Contains(s, "done?") {
			t.Fatalf("frame %d lost a pane's text:\n%s", i, s)
		}
	}
	if n := quiet.copies.Load() - base; n != 0 {
		t.Errorf("the quiet pane was copied %d times in 6 frames, want 0", n)
	}
	if n := busy.copies.Load(); n < 6 {
		t.Errorf("the busy pane was copied %d times, want one per frame at least (6)", n)
	}

	// Once written to, the quiet pane is copied again, and what both
	// show stays right while their copies take turns.
	for i := range 4 {
		line := "quiet " + string(rune('a'+i))
		_, _ = quiet.Write([]byte(line + "\r\n"))
		s := frame()
		if !strings.Contains(s, line) || !strings.Contains(s, "busy f") {
			t.Fatalf("after the quiet pane printed %q:\n%s", line, s)
		}
		s = frame()
		if !strings.Contains(s, line) || !strings.Contains(s, "busy f") {
			t.Fatalf("the frame after, with nothing new:\n%s", s)
		}
	}
	if n := quiet.copies.Load() - base; n != 4 {
		t.Errorf("the quiet pane was copied %d times for 4 writes, want 4", n)
	}

	// A pane copied every other frame takes turns with a few buffers; it
	// does not get a new one for each copy.
	bufs := map[*vterm.Frame]bool{}
	for i := range 20 {
		_, _ = quiet.Write([]byte("again " + string(rune('a'+i)) + "\r\n"))
		frame()
		bufs[m.in.prevPane(2, "a2").view] = true
		frame()
	}
	if len(bufs) > 3 {
		t.Errorf("20 copies of a pane used %d buffers, want 3 at most", len(bufs))
	}
}

package panes_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/panes"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// frameText is the plain text of a terminal copy, rows joined by "|".
func frameText(f *vterm.Frame) string {
	var b strings.Builder
	for i := range f.Cells {
		if i > 0 {
			b.WriteByte('|')
		}
		b.WriteString(f.Line(i))
	}
	return b.String()
}

// TestSynchronizedUpdateThroughAPane sends a synchronized update to a real
// process (cat on a raw PTY, which writes back exactly what it reads) in
// small pieces, and checks after each piece has reached the terminal that
// the pane's copy still shows the screen from before the update; and that
// the piece ending the update pokes the engine (OnOutput) with the new
// screen already visible.
func TestSynchronizedUpdateThroughAPane(t *testing.T) {
	var term atomic.Pointer[vterm.Terminal]
	shown := make(chan string, 64)
	s := spec("sh", "-c", "stty raw -echo && printf 'ready' && exec cat")
	s.Cols, s.Rows = 20, 3
	p, err := panes.Start(panes.PTYSpawner{}, s, panes.Options{
		OnOutput: func() {
			if tm := term.Load(); tm != nil {
				var f vterm.Frame
				tm.Frame(&f, 0)
				if !f.Held {
					select {
					case shown <- frameText(&f):
					default:
					}
				}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill(100 * time.Millisecond)
	waitFor(t, 10*time.Second, "cat to start", func() bool { return strings.Contains(p.Term().Text(), "ready") })

	send := func(b string) {
		t.Helper()
		seq := p.Term().Seq()
		if _, err := p.Write([]byte(b)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 10*time.Second, "cat to echo "+strings.ReplaceAll(b, "\x1b", "ESC"), func() bool { return p.Term().Seq() > seq })
	}
	send("\x1b[H\x1b[2Jold 1\r\nold 2\r\nold 3")
	var f vterm.Frame
	p.Term().Frame(&f, 0)
	before := frameText(&f)
	if before != "old 1|old 2|old 3" {
		t.Fatalf("before the update the pane shows %q", before)
	}

	update := "\x1b[?2026h\x1b[H\x1b[2Knew 1\r\n\x1b[2Knew 2\r\n\x1b[2Knew 3"
	for i := 0; i < len(update); i += 4 {
		send(update[i:min(i+4, len(update))])
		p.Term().Frame(&f, 0)
		if got := frameText(&f); got != before {
			t.Fatalf("after %q the pane shows %q, want %q", update[:min(i+4, len(update))], got, before)
		}
	}
	if live := p.Term().Text(); !strings.HasPrefix(live, "new 1\nnew 2\nnew 3") {
		t.Fatalf("the live screen is %q", live)
	}
	for len(shown) > 0 {
		<-shown
	}
	term.Store(p.Term())
	send("\x1b[?2026l")
	select {
	case got := <-shown:
		if got != "new 1|new 2|new 3" {
			t.Errorf("the poke after the update ended saw %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no poke showed the finished update")
	}
}

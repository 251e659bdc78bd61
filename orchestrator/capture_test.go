package orchestrator

import (
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/panes/vterm"
)

// TestCaptureNeverShowsAnUpdateHalfDone: agent CLIs wrap each redraw in a
// synchronized update (DECSET 2026). While one is open, a capture (plain,
// with escapes, with scrollback) shows the screen as it was before the
// update began, as the UI does, and none of the lines the update pushed
// into history; once the update ends it shows the result.
func TestCaptureNeverShowsAnUpdateHalfDone(t *testing.T) {
	term := vterm.New(20, 3, vterm.WithScrollback(100))
	_, _ = term.Write([]byte("old-1\r\nold-2\r\nold-3"))
	var drawn vterm.Frame
	term.Frame(&drawn, 0) // what the UI drew last
	// The update clears the screen (scrolling the old rows into history)
	// and has written one row of three so far.
	_, _ = term.Write([]byte("\x1b[?2026h\x1b[H\x1b[2Jnew-1"))
	for _, escapes := range []bool{false, true} {
		for _, scrollback := range []int{0, 10} {
			got := captureTerm(term, escapes, scrollback)
			if strings.Contains(got, "new-1") {
				t.Errorf("escapes=%v scrollback=%d: the capture shows the update half done:\n%q", escapes, scrollback, got)
			}
			for _, want := range []string{"old-1", "old-2", "old-3"} {
				if strings.Count(got, want) != 1 {
					t.Errorf("escapes=%v scrollback=%d: want %s once (the screen before the update):\n%q", escapes, scrollback, want, got)
				}
			}
		}
	}
	_, _ = term.Write([]byte("\r\nnew-2\r\nnew-3\x1b[?2026l"))
	if got, want := captureTerm(term, false, 0), "new-1\nnew-2\nnew-3\n"; got != want {
		t.Errorf("after the update: %q, want %q", got, want)
	}
	if got := captureTerm(term, false, 10); got != "old-1\nold-2\nold-3\nnew-1\nnew-2\nnew-3\n" {
		t.Errorf("after the update, with scrollback: %q", got)
	}
}

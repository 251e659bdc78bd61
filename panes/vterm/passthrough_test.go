package vterm

import (
	"strings"
	"testing"
)

// A program that believes it runs in tmux (TMUX is set in agentgrid's
// panes for the tmux entry point) writes OSC 52 twice, as OpenCode does:
// plain, then wrapped in tmux passthrough. The wrapped copy is dropped, as
// tmux drops it with its default allow-passthrough off; the plain one is
// handled once, and nothing of the wrapper reaches the screen.
func TestTmuxPassthroughIsDropped(t *testing.T) {
	var clips []string
	var titles []string
	vt := New(40, 3, WithClipboard(true), WithCallbacks(Callbacks{
		Clipboard: func(sel, data string) { clips = append(clips, sel+";"+data) },
		Title:     func(s string) { titles = append(titles, s) },
	}))
	osc := "\x1b]52;c;aGk=\x07"
	_, _ = vt.Write([]byte("a" + osc + "\x1bPtmux;\x1b" + osc + "\x1b\\" + "b"))
	_, _ = vt.Write([]byte("\x1bPtmux;\x1b\x1b]2;wrapped\x07\x1b\\c"))
	if len(clips) != 1 || clips[0] != "c;aGk=" {
		t.Errorf("clipboard writes %q, want the plain one once", clips)
	}
	if len(titles) != 0 || vt.Title() != "" {
		t.Errorf("a wrapped title was applied: %q %q", titles, vt.Title())
	}
	if got := strings.TrimSpace(strings.SplitN(vt.Text(), "\n", 2)[0]); got != "abc" {
		t.Errorf("screen %q, want abc", got)
	}
}

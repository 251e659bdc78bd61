package ui

import (
	"bytes"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/creack/pty"
)

// TestFrameWriterFollowsTheTerminalsColours: frames reach a terminal
// without 24-bit colour through a converting writer, and go straight to a
// truecolor terminal or to an output that is not a terminal.
func TestFrameWriterFollowsTheTerminalsColours(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	term := &terminal{out: tty}
	w, ok := term.frameWriter([]string{"TERM=xterm-256color"}).(*colorprofile.Writer)
	if !ok || w.Profile != colorprofile.ANSI256 {
		t.Errorf("a 256-colour terminal gets %#v, want a converting writer", w)
	}
	if got := term.frameWriter([]string{"TERM=xterm-256color", "COLORTERM=truecolor"}); got != tty {
		t.Errorf("a truecolor terminal gets %T, want the terminal itself", got)
	}
	var buf bytes.Buffer
	if got := (&terminal{out: &buf}).frameWriter([]string{"TERM=xterm-256color"}); got != &buf {
		t.Errorf("an output that is not a terminal gets %T", got)
	}
}

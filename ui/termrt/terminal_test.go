package termrt

import (
	"bytes"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/creack/pty"

	"github.com/agentgrid/agentgrid/panes/vterm"
)

// TestWriterFollowsTheTerminalsColours: a terminal without 24-bit colour
// gets its frames in the colours it has, converted by the writer from the
// cells; a truecolor terminal or an output that is not a terminal gets
// them as they are.
func TestWriterFollowsTheTerminalsColours(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	term := &terminal{out: tty}
	if c := term.caps([]string{"TERM=xterm-256color"}); c.profile != colorprofile.ANSI256 || c.rep != repAny {
		t.Errorf("a 256-colour xterm gets %+v", c)
	}
	if c := term.caps([]string{"TERM=xterm-256color", "COLORTERM=truecolor"}); c.profile != colorprofile.TrueColor {
		t.Errorf("a truecolor terminal gets %+v", c)
	}
	for _, env := range [][]string{{"TERM=tmux-256color"}, {"TERM=screen"}, {"TERM=xterm-256color", "TMUX=/tmp/tmux-0/default,1,0"}} {
		if c := term.caps(env); c.rep != repASCII {
			t.Errorf("%v gets %+v: tmux and screen repeat only one-byte characters", env, c)
		}
	}
	for _, env := range [][]string{{"TERM=linux"}, {"TERM=xterm-256color", "TERM_PROGRAM=Apple_Terminal"}} {
		if c := term.caps(env); c.rep != repNone {
			t.Errorf("%v gets %+v, but it has no REP as far as agentgrid knows", env, c)
		}
	}
	var buf bytes.Buffer
	if c := (&terminal{out: &buf}).caps([]string{"TERM=xterm-256color"}); c.profile != colorprofile.TrueColor {
		t.Errorf("an output that is not a terminal gets %+v", c)
	}

	cv := &Canvas{}
	cv.Resize(2, 1)
	cv.Text(0, 0, 2, "ab", Style{Fg: vterm.RGBColor(255, 0, 0), Bg: vterm.IndexedColor(200)})
	for _, tc := range []struct {
		profile   colorprofile.Profile
		want, not string
	}{
		{colorprofile.TrueColor, "\x1b[38;2;255;0;0;48;5;200mab", ""},
		{colorprofile.ANSI256, "\x1b[38;5;196;48;5;200mab", "38;2"},
		{colorprofile.ANSI, "\x1b[91;101mab", "38;"},
		{colorprofile.ASCII, "\x1b[H\x1b[2Jab", "\x1b[3"},
	} {
		var out syncBuffer
		s := newScreen(&out, tea.MouseModeNone, writerCaps{profile: tc.profile})
		s.show(Frame{Canvas: cv}, false)
		s.close()
		if got := out.String(); !strings.Contains(got, tc.want) || (tc.not != "" && strings.Contains(got, tc.not)) {
			t.Errorf("%v: wrote %q, want %q", tc.profile, got, tc.want)
		}
	}
}

// TestRemoteTerminalColoursFromItsEnvironment: an output that leads to an
// attached client's terminal takes its colours from the client's
// environment, as a local terminal would, not "every colour as it is".
func TestRemoteTerminalColoursFromItsEnvironment(t *testing.T) {
	var buf bytes.Buffer
	remote := &terminal{out: &buf, remote: true}
	for _, tc := range []struct {
		env  []string
		want colorprofile.Profile
	}{
		{[]string{"TERM=xterm-256color"}, colorprofile.ANSI256},
		{[]string{"TERM=xterm-256color", "COLORTERM=truecolor"}, colorprofile.TrueColor},
		{[]string{"TERM=xterm"}, colorprofile.ANSI},
		{[]string{"TERM=xterm-256color", "NO_COLOR=1"}, colorprofile.ASCII},
	} {
		if c := remote.caps(tc.env); c.profile != tc.want {
			t.Errorf("a client with %v gets %v, want %v", tc.env, c.profile, tc.want)
		}
	}
}

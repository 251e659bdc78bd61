package termrt

import (
	"fmt"
	"regexp"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/creack/pty"

	"github.com/agentgrid/agentgrid/panes/vterm"
)

// TestStyledUnderlinesFollowTheTerminal: the frame writer sends the
// underline styles (4:2 … 4:5) and the underline colour (58) only to a
// terminal that has them, a plain underline (4) to the others, and never
// the 4;3 (underline, italic), 4;2 (dim) or 4;5 (blink) a terminal without
// colon parameters would read. Inside tmux, 24-bit colour is kept when the
// terminal tmux runs in said it has it, and reduced to 256 otherwise.
func TestStyledUnderlinesFollowTheTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	term := &terminal{out: tty}

	cv := &Canvas{}
	cv.Resize(5, 1)
	red := vterm.RGBColor(200, 10, 10)
	styles := []vterm.UnderlineStyle{vterm.UnderlineDouble, vterm.UnderlineCurly, vterm.UnderlineDotted, vterm.UnderlineDashed, vterm.UnderlineSingle}
	for i, s := range styles {
		// A different colour each, so that each cell gets its own SGR.
		fg := red
		if i > 0 {
			fg = vterm.IndexedColor(uint8(i))
		}
		cv.Text(0, i, i+1, string(rune('A'+i)), Style{UlStyle: s, Ul: red, Fg: fg})
	}
	bad := regexp.MustCompile(`\x1b\[[0-9;]*;4;[235][;m]`)
	for _, tc := range []struct {
		env     []string
		profile colorprofile.Profile
		styled  bool // 4:n sent
		colour  bool // 58 sent
	}{
		{[]string{"TERM=xterm-256color"}, colorprofile.ANSI256, false, false},
		{[]string{"TERM=xterm-256color", "COLORTERM=truecolor"}, colorprofile.TrueColor, false, false},
		{[]string{"TERM=xterm"}, colorprofile.ANSI, false, false},
		{[]string{"TERM=linux"}, colorprofile.ANSI, false, false},
		{[]string{"TERM=screen-256color"}, colorprofile.ANSI256, false, false},
		{[]string{"TERM=xterm-kitty"}, colorprofile.TrueColor, true, true},
		{[]string{"TERM=xterm-256color", "VTE_VERSION=7600", "COLORTERM=truecolor"}, colorprofile.TrueColor, true, true},
		{[]string{"TERM=xterm-256color", "TERM_PROGRAM=iTerm.app"}, colorprofile.ANSI256, true, true},
		// tmux: the styles always (it draws them as its client can), 24-bit
		// colour only when $COLORTERM says the outer terminal has it.
		{[]string{"TERM=tmux-256color"}, colorprofile.ANSI256, true, true},
		{[]string{"TERM=tmux-256color", "COLORTERM=truecolor"}, colorprofile.TrueColor, true, true},
		{[]string{"TERM=screen-256color", "TMUX=/tmp/tmux-1/default,1,0", "COLORTERM=24bit"}, colorprofile.TrueColor, true, true},
	} {
		c := term.caps(tc.env)
		if c.profile != tc.profile {
			t.Errorf("%v: profile %v, want %v", tc.env, c.profile, tc.profile)
		}
		var out syncBuffer
		s := newScreen(&out, tea.MouseModeNone, c)
		s.show(Frame{Canvas: cv}, false)
		s.close()
		got := out.String()
		if m := bad.FindString(got); m != "" {
			t.Errorf("%v: wrote %q, which a terminal reads as underline with italic, dim or blink", tc.env, m)
		}
		// What a terminal that reads every SGR makes of the bytes.
		vt := vterm.New(5, 1)
		_, _ = vt.Write([]byte(got))
		var fr vterm.Frame
		vt.Frame(&fr, 0)
		for i, st := range styles {
			c := fr.Cells[0][i]
			want := st
			if !tc.styled {
				want = vterm.UnderlineSingle
			}
			if c.UlStyle != want || c.Attrs&(vterm.AttrItalic|vterm.AttrFaint|vterm.AttrBlink) != 0 {
				t.Errorf("%v: %s shows underline %d attrs %b, want underline %d and no italic, dim or blink", tc.env, c.Content, c.UlStyle, c.Attrs, want)
			}
			if (c.Ul != 0) != tc.colour {
				t.Errorf("%v: %s has underline colour %v, want one: %v", tc.env, c.Content, c.Ul, tc.colour)
			}
		}
		if fg := fr.Cells[0][0].Fg; (fg == red) != (tc.profile == colorprofile.TrueColor) {
			t.Errorf("%v: A has colour %v, want 24-bit colour only for a truecolor profile", tc.env, fg)
		}
	}
}

// TestTerminfoReadOncePerTerm: the terminfo answer is kept per TERM, the
// same as a first read, and for at most maxTermsSeen names (TERM comes
// from each attaching client).
func TestTerminfoReadOncePerTerm(t *testing.T) {
	terminfoSeen.Lock()
	saved := terminfoSeen.by
	terminfoSeen.by = nil
	terminfoSeen.Unlock()
	t.Cleanup(func() {
		terminfoSeen.Lock()
		terminfoSeen.by = saved
		terminfoSeen.Unlock()
	})
	first := terminfoUnderlines("xterm-256color")
	if again := terminfoUnderlines("xterm-256color"); again != first {
		t.Fatalf("the second answer %+v differs from the first %+v", again, first)
	}
	for i := range 2 * maxTermsSeen {
		terminfoUnderlines(fmt.Sprintf("no-such-term-%d", i))
	}
	terminfoSeen.Lock()
	n := len(terminfoSeen.by)
	terminfoSeen.Unlock()
	if n != maxTermsSeen {
		t.Fatalf("%d TERM names kept after %d asked; want at most %d", n, 2*maxTermsSeen+1, maxTermsSeen)
	}
}

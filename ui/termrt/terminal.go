package termrt

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/agentgrid/agentgrid/internal/envlist"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
)

// terminal is the outer terminal agentgrid draws on: where input comes
// from, where output goes, and what has to be undone on the way out.
type terminal struct {
	in  io.Reader
	out io.Writer
	// inTTY and outTTY are set when in and out are terminals: raw mode and
	// the size come from them.
	inTTY, outTTY term.File
	opened        *os.File // a tty we opened ourselves, closed on exit
	// remote: out leads to a client's terminal; see Options.Remote.
	remote bool
	raw    *term.State

	// undo is the teardown sequence, built while setting up: each mode
	// turned on prepends what turns it off, so they go in reverse order.
	undo []string
}

// openTerminal picks the input and output: the process's stdin and stdout
// unless opts replace them, and the controlling tty when stdin is not one
// (agentgrid started with its input redirected still needs keys).
func openTerminal(opts *Options) (*terminal, error) {
	t := &terminal{in: opts.Input, out: opts.Output, remote: opts.Remote}
	if t.out == nil {
		t.out = os.Stdout
	}
	if t.in == nil {
		t.in = os.Stdin
		if !term.IsTerminal(os.Stdin.Fd()) {
			in, _, err := uv.OpenTTY()
			if err != nil {
				return nil, fmt.Errorf("open the terminal for input: %w", err)
			}
			t.in, t.opened = in, in
		}
	}
	if f, ok := t.in.(term.File); ok && term.IsTerminal(f.Fd()) {
		t.inTTY = f
	}
	if f, ok := t.out.(term.File); ok && term.IsTerminal(f.Fd()) {
		t.outTTY = f
	}
	if opts.Tee != nil {
		t.out = teeWriter{t.out, opts.Tee}
	}
	return t, nil
}

// teeWriter writes to out and then to tee, whose errors do not matter.
type teeWriter struct{ out, tee io.Writer }

func (w teeWriter) Write(p []byte) (int, error) {
	n, err := w.out.Write(p)
	if n > 0 {
		_, _ = w.tee.Write(p[:n])
	}
	return n, err
}

// size is the terminal's size in cells: the output tty's when there is one,
// else what WithSize said, else $COLUMNS and $LINES, else 80x24.
func (t *terminal) size(opts *Options, env []string) (int, int) {
	if t.outTTY != nil {
		if w, h, err := term.GetSize(t.outTTY.Fd()); err == nil && w > 0 && h > 0 {
			return w, h
		}
	}
	if opts.Width > 0 && opts.Height > 0 {
		return opts.Width, opts.Height
	}
	w, h := 80, 24
	if n, err := strconv.Atoi(getenv(env, "COLUMNS")); err == nil && n > 0 {
		w = n
	}
	if n, err := strconv.Atoi(getenv(env, "LINES")); err == nil && n > 0 {
		h = n
	}
	return w, h
}

// caps is what the screen writer may use of the terminal: its colours
// (from env, os.Environ() when nil; an output that is not a terminal gets
// every colour as it is), its underlines and whether it repeats characters
// (REP).
func (t *terminal) caps(env []string) writerCaps {
	if env == nil {
		env = os.Environ()
	}
	c := writerCaps{profile: colorprofile.TrueColor, rep: repeatsOf(getenv(env, "TERM"), getenv(env, "TMUX") != "")}
	if getenv(env, "TERM_PROGRAM") == "Apple_Terminal" {
		c.rep = repNone
	}
	var out io.Writer = t.out
	if t.outTTY != nil {
		out = t.outTTY // not the tee around it, which is no terminal
	}
	var p colorprofile.Profile
	if t.remote {
		p = remoteProfile(env)
	} else {
		p = colorprofile.Detect(out, env)
	}
	if inTmux(env) {
		p = tmuxProfile(env, p)
	}
	if p >= colorprofile.ASCII && p < colorprofile.TrueColor {
		c.profile = p
	}
	styles, colours := underlineCaps(env)
	c.plainUnderline, c.noUnderlineColour = !styles, !colours
	return c
}

// Mode is a terminal mode: the sequence that turns it on and the one that
// undoes it.
type Mode struct{ Set, Reset string }

// setup puts the terminal in raw mode and turns on what the view asks for:
// the alternate screen, focus and paste reporting, the kitty keyboard
// protocol, the window title. The screen writer takes over from here and
// switches the mouse mode and the cursor as frames ask.
func (t *terminal) setup(v tea.View, extra []Mode) error {
	if t.inTTY != nil {
		st, err := term.MakeRaw(t.inTTY.Fd())
		if err != nil {
			t.restore(0)
			return fmt.Errorf("put the terminal in raw mode: %w", err)
		}
		t.raw = st
	}
	var b strings.Builder
	on := func(set, reset string) {
		b.WriteString(set)
		t.undo = append([]string{reset}, t.undo...)
	}
	if v.AltScreen {
		on(ansi.SetModeAltScreenSaveCursor, ansi.ResetModeAltScreenSaveCursor)
	}
	// Frames show the cursor where a pane has it; until then it is hidden,
	// and it is shown again on the way out whatever the last frame did.
	on(seqHideCursor, seqShowCursor)
	b.WriteString(seqReset + seqClear)
	if !v.DisableBracketedPasteMode {
		on(ansi.SetModeBracketedPaste, ansi.ResetModeBracketedPaste)
	}
	if v.ReportFocus {
		on(ansi.SetModeFocusEvent, ansi.ResetModeFocusEvent)
	}
	// Turned off whatever mode the last frame left on.
	switch v.MouseMode {
	case tea.MouseModeCellMotion:
		on(seqMouseCellOn, seqMouseOff)
	case tea.MouseModeAllMotion:
		on(seqMouseAllOn, seqMouseOff)
	default:
		t.undo = append([]string{seqMouseOff}, t.undo...)
	}
	if v.WindowTitle != "" {
		on(ansi.SetWindowTitle(v.WindowTitle), ansi.SetWindowTitle(""))
	}
	// Both keyboard protocols, as terminals ignore the one they lack:
	// modifyOtherKeys has no stack and is reset in place, the kitty flags
	// are pushed and popped so the shell gets its own back.
	on(ansi.SetModifyOtherKeys2, ansi.ResetModifyOtherKeys)
	on(ansi.PushKittyKeyboard(kittyFlags(v.KeyboardEnhancements)), ansi.PopKittyKeyboard(1))
	for _, m := range extra {
		on(m.Set, m.Reset)
	}
	if _, err := io.WriteString(t.out, b.String()); err != nil {
		t.restore(0)
		return fmt.Errorf("set the terminal up: %w", err)
	}
	return nil
}

// kittyFlags are the kitty keyboard flags for the view's enhancements;
// disambiguation is always on so that keys like shift+enter arrive.
func kittyFlags(ke tea.KeyboardEnhancements) int {
	flags := ansi.KittyDisambiguateEscapeCodes
	if ke.ReportEventTypes {
		flags |= ansi.KittyReportEventTypes
	}
	if ke.ReportAlternateKeys {
		flags |= ansi.KittyReportAlternateKeys
	}
	if ke.ReportAllKeysAsEscapeCodes {
		flags |= ansi.KittyReportAllKeysAsEscapeCodes
	}
	if ke.ReportAssociatedText {
		flags |= ansi.KittyReportAssociatedKeys
	}
	return flags
}

// restore undoes setup in reverse order. cursorStyle is the DECSCUSR style
// the screen left set (0 when it kept the default).
func (t *terminal) restore(cursorStyle int) {
	var b strings.Builder
	b.WriteString(seqReset)
	if cursorStyle != 0 {
		b.WriteString("\x1b[0 q")
	}
	for _, s := range t.undo {
		b.WriteString(s)
	}
	t.undo = nil
	_, _ = io.WriteString(t.out, b.String())
	t.restoreMode()
	if t.opened != nil {
		_ = t.opened.Close()
		t.opened = nil
	}
}

// restoreMode takes the input tty out of raw mode.
func (t *terminal) restoreMode() {
	if t.raw != nil {
		_ = term.Restore(t.inTTY.Fd(), t.raw)
		t.raw = nil
	}
}

// getenv looks key up in env, falling back to the process environment when
// env is nil.
func getenv(env []string, key string) string {
	if env == nil {
		return os.Getenv(key)
	}
	return envlist.Value(env, key)
}

// repeatsOf is what the terminal named by TERM repeats on CSI n b (REP),
// which the writer uses for runs such as the border lines: xterm and the
// terminals that follow it repeat any character; tmux and screen (named
// by TERM, or tmux found by $TMUX whatever TERM says) repeat only a
// one-byte one; a terminal not listed, and Apple's Terminal, which names
// itself xterm, get every character written out.
func repeatsOf(termName string, inTmux bool) repeats {
	switch {
	case inTmux || strings.HasPrefix(termName, "tmux") || strings.HasPrefix(termName, "screen"):
		return repASCII
	}
	for _, p := range []string{"xterm", "alacritty", "foot", "wezterm", "contour", "rio", "ghostty"} {
		if strings.HasPrefix(termName, p) {
			return repAny
		}
	}
	return repNone
}

// remoteProfile is the colour profile of a client's terminal, known only
// from its environment: what TERM, COLORTERM and NO_COLOR say, raised to
// what TERM's terminfo entry says, as for a local terminal.
func remoteProfile(env []string) colorprofile.Profile {
	p := colorprofile.Env(env)
	if p == colorprofile.TrueColor {
		return p
	}
	if name := getenv(env, "TERM"); name != "" && name != "dumb" && getenv(env, "NO_COLOR") == "" {
		p = max(p, colorprofile.Terminfo(name))
	}
	return p
}

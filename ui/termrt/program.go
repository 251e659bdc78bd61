// Package termrt is agentgrid's small terminal runtime: it owns the
// terminal for a program (raw mode and terminal modes, set up and undone in
// reverse order on every way out, a panic included), decodes input into
// Bubble Tea's messages, runs the program's Update on one goroutine, and
// writes each new view with a cell-diffing writer, at once, at most one
// write in flight. The session UI (ui.Model, one per attached client) is
// its program.
//
// # Contract
//
// A Model is Bubble Tea's Update plus a View that draws on a Canvas. The
// runtime calls Update with every message and then View; it hands the
// frame to the writer when the frame's Gen, cursor or mouse mode changed,
// copying the rows written since the last frame of the same canvas (all
// of a canvas it has not shown last), then clears the canvas's marks. The
// canvas is read only between View and the next Update.
//
// Messages the model receives: the input (tea.KeyPressMsg, tea.PasteMsg,
// tea.MouseClickMsg, tea.MouseReleaseMsg, tea.MouseMotionMsg,
// tea.MouseWheelMsg, tea.FocusMsg, tea.BlurMsg, and the terminal's answers
// tea.ForegroundColorMsg and tea.BackgroundColorMsg to the queries of
// Options.Setup), tea.WindowSizeMsg (the
// first before any other, then on every resize), what its commands return,
// and what Program.Send delivers.
//
// Commands: a command runs on a goroutine of its own, and its message goes
// to Update, except for these, which the runtime carries out:
//   - nil: nothing;
//   - tea.Quit (tea.QuitMsg): Run returns;
//   - tea.Batch (tea.BatchMsg): each command runs concurrently;
//   - tea.Sequence: the commands run one after the other, each message
//     handled before the next command starts;
//   - tea.Raw (tea.RawMsg): its text is written to the terminal before the
//     next frame (a bell, a notification);
//   - tea.ClearScreen: the next frame repaints every cell; returned by
//     Update itself (not inside a batch), it is that Update's frame, drawn
//     once;
//   - tea.Tick and tea.Every: ordinary commands (they sleep, then return
//     the model's message).
//
// Any other message of Bubble Tea's own that a command returns (tea.Exec,
// tea.Printf and tea.Println, tea.RequestWindowSize, tea.SetWindowTitle,
// tea.Suspend, tea.Interrupt, the terminal queries ...) is not carried
// out: the runtime counts it and passes it to Options.Unhandled, so a test
// fails on it (Supported tells them apart). The view's terminal modes
// (alternate screen, focus reports, keyboard enhancements, window title,
// bracketed paste) are read once, from Options.Modes; the mouse mode and
// the cursor follow every frame.
package termrt

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
)

// Model is a program the runtime drives.
type Model interface {
	// Update handles a message and returns the next command, or nil.
	Update(msg tea.Msg) tea.Cmd
	// View returns the frame to show; it is called after every Update.
	View() Frame
}

// Frame is what a model shows.
type Frame struct {
	// Canvas holds the cells; the runtime copies them when Gen changed.
	Canvas *Canvas
	// Gen counts changes of the canvas: the same Gen means the same cells.
	Gen    uint64
	Cursor *tea.Cursor // nil hides the cursor
	Mouse  tea.MouseMode
}

// Options say where the program runs.
type Options struct {
	// Input and Output replace stdin and stdout (tests, attached clients).
	Input  io.Reader
	Output io.Writer
	// Tee, when set, also receives every byte written to the terminal, in
	// order (a recording); its errors are ignored.
	Tee io.Writer
	// Width and Height are the initial size for an output that is not a
	// terminal.
	Width, Height int
	// Env is the environment used to detect the terminal's capabilities
	// (TERM, COLORTERM ...); nil means os.Environ().
	Env []string
	// Remote says that Output leads to a terminal elsewhere (an attached
	// client's): its capabilities come from Env alone, as for a terminal,
	// instead of "not a terminal, every colour as it is".
	Remote bool
	// Stderr receives the report of a crash; nil means os.Stderr.
	Stderr io.Writer
	// Modes are the terminal modes the program wants, read once: the
	// alternate screen, focus reports, bracketed paste, keyboard
	// enhancements, the window title and the first mouse mode.
	Modes tea.View
	// ExtraModes are modes beyond the view's, set up after them and undone
	// with them, in reverse order (a report the terminal sends on its own,
	// such as mode 2031's colour scheme changes).
	ExtraModes []Mode
	// Setup is written once the terminal is set up, before the first
	// frame: queries whose answers arrive as input (tea.ForegroundColorMsg,
	// tea.BackgroundColorMsg), whenever the terminal sends them.
	Setup string
	// Start is called once the terminal is set up, to start what feeds
	// the program from outside (through p.Send, from goroutines started
	// with p.Go).
	Start func(p *Program)
	// Unhandled is called with each message of Bubble Tea's own that a
	// command returned and the runtime does not carry out.
	Unhandled func(msg tea.Msg)
}

// Program is a running program, for what feeds it from outside.
type Program struct {
	ctx       context.Context
	msgs      chan tea.Msg
	m         Model
	opts      *Options
	scr       *screen
	last      Frame
	crash     func(where string, r any)
	unhandled atomic.Int64
}

// Context ends when the program does.
func (p *Program) Context() context.Context { return p.ctx }

// Send delivers msg to the program's Update, or drops it once the program
// has ended.
func (p *Program) Send(msg tea.Msg) {
	select {
	case p.msgs <- msg:
	case <-p.ctx.Done():
	}
}

// Go runs fn on a goroutine of its own; a panic there restores the
// terminal before it is re-raised.
func (p *Program) Go(where string, fn func()) {
	go func() {
		defer func() {
			if r := recover(); r != nil {
				p.crash(" in "+where, r)
				panic(r)
			}
		}()
		fn()
	}()
}

// Unhandled is how many messages of Bubble Tea's own the runtime did not
// carry out.
func (p *Program) Unhandled() int64 { return p.unhandled.Load() }

// Run runs m until it quits or ctx ends. It owns the terminal for that
// time and restores it on every way out, a panic included (the panic is
// then re-raised with its stack on stderr).
func Run(ctx context.Context, m Model, opts Options) (err error) {
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &Program{ctx: ctx, msgs: make(chan tea.Msg), m: m, opts: &opts}
	width, height, restore, err := p.takeTerminal(cancel)
	if err != nil {
		return err
	}
	defer restore()
	p.crash = func(where string, r any) {
		restore()
		fmt.Fprintf(opts.Stderr, "\r\nagentgrid: internal error%s, terminal restored: %v\r\n%s", where, r, debug.Stack())
	}
	defer func() {
		if r := recover(); r != nil {
			p.crash("", r)
			panic(r)
		}
	}()
	if opts.Start != nil {
		opts.Start(p)
	}
	p.handle(tea.WindowSizeMsg{Width: width, Height: height})
	for {
		select {
		case <-ctx.Done():
			// The caller's context ended the program: not a failure.
			return nil
		case msg := <-p.msgs:
			if p.handle(msg) {
				return nil
			}
		}
	}
}

// clearScreenMsg is what tea.ClearScreen returns; its type is Bubble Tea's
// own, so the loop recognises it by value.
var clearScreenMsg = tea.ClearScreen()

// handle processes one message and reports whether the program ends.
func (p *Program) handle(msg tea.Msg) (quit bool) {
	if st, ok := msg.(seqStep); ok {
		defer close(st.done)
		return p.handle(st.msg)
	}
	repaint := false
	switch msg := msg.(type) {
	case nil:
		return false
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, cmd := range msg {
			p.exec(cmd)
		}
		return false
	case tea.RawMsg:
		p.scr.raw(fmt.Sprint(msg.Msg))
		return false
	case tea.WindowSizeMsg:
		if msg.Width <= 0 || msg.Height <= 0 {
			return false
		}
		// The outer terminal may have reflowed or scrolled what it showed
		// while resizing: draw everything again.
		repaint = true
	}
	if msg == clearScreenMsg {
		p.scr.show(p.last, true)
		return false
	}
	if cmds, ok := sequence(msg); ok {
		p.Go("a command", func() { p.runSequence(cmds) })
		return false
	}
	if !Supported(msg) {
		p.unhandled.Add(1)
		if p.opts.Unhandled != nil {
			p.opts.Unhandled(msg)
		}
		return false
	}
	cmd := p.m.Update(msg)
	if isClearScreen(cmd) {
		// The frame of this very Update repaints: one write of every cell
		// (prefix r), not the changed cells now and, once the command's
		// goroutine has sent its message back, every cell again.
		cmd, repaint = nil, true
	}
	p.exec(cmd)
	p.draw(repaint)
	return false
}

// clearScreenCmd is tea.ClearScreen's code pointer: a model's command is
// recognised as that very function without running it.
var clearScreenCmd = reflect.ValueOf(tea.ClearScreen).Pointer()

// isClearScreen reports whether cmd is tea.ClearScreen itself.
func isClearScreen(cmd tea.Cmd) bool {
	return cmd != nil && reflect.ValueOf(cmd).Pointer() == clearScreenCmd
}

// draw hands the model's frame to the screen when it differs from the last
// one: the same Gen costs a comparison.
func (p *Program) draw(repaint bool) {
	f := p.m.View()
	if f.Cursor != nil {
		c := *f.Cursor // the writer reads it from its own goroutine
		f.Cursor = &c
	}
	if !repaint && sameFrame(f, p.last) {
		return
	}
	p.last = f
	p.scr.show(f, repaint)
	if f.Canvas != nil {
		f.Canvas.ClearDirty()
	}
}

// exec runs cmd on its own goroutine and sends its message to the loop; a
// batch's commands each get a goroutine.
func (p *Program) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	p.Go("a command", func() {
		msg := cmd()
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				p.exec(c)
			}
			return
		}
		if msg != nil {
			p.Send(msg)
		}
	})
}

// runSequence runs cmds one after the other on this goroutine, each
// message handled by the loop before the next command starts.
func (p *Program) runSequence(cmds []tea.Cmd) {
	for _, cmd := range cmds {
		if cmd == nil {
			continue
		}
		msg := cmd()
		if inner, ok := sequence(msg); ok {
			p.runSequence(inner)
			continue
		}
		if msg == nil {
			continue
		}
		done := make(chan struct{})
		p.Send(seqStep{msg: msg, done: done})
		select {
		case <-done:
		case <-p.ctx.Done():
			return
		}
	}
}

// seqStep carries one message of a sequence; done is closed once the loop
// handled it.
type seqStep struct {
	msg  tea.Msg
	done chan struct{}
}

// teaPkg is the import path of Bubble Tea's package.
var teaPkg = reflect.TypeOf(tea.QuitMsg{}).PkgPath()

// cmdSlice is the type tea.Sequence's message converts to.
var cmdSlice = reflect.TypeOf([]tea.Cmd(nil))

// sequence reports whether msg is what tea.Sequence returns, and its
// commands. Its type is unexported, so it is recognised by its package,
// name and underlying type.
func sequence(msg tea.Msg) ([]tea.Cmd, bool) {
	t := reflect.TypeOf(msg)
	if t == nil || t.PkgPath() != teaPkg || t.Name() != "sequenceMsg" || !t.ConvertibleTo(cmdSlice) {
		return nil, false
	}
	return reflect.ValueOf(msg).Convert(cmdSlice).Interface().([]tea.Cmd), true
}

// Commands returns the commands a tea.Batch or tea.Sequence message
// carries, for tests that walk every command a model returns.
func Commands(msg tea.Msg) ([]tea.Cmd, bool) {
	if b, ok := msg.(tea.BatchMsg); ok {
		return b, true
	}
	return sequence(msg)
}

// Supported reports whether the runtime carries out or delivers msg when a
// command returns it: every message of the program's own types, the input
// and size messages, and the commands listed in the package doc.
func Supported(msg tea.Msg) bool {
	switch msg.(type) {
	case nil, tea.QuitMsg, tea.BatchMsg, tea.RawMsg, tea.WindowSizeMsg, seqStep,
		tea.KeyPressMsg, tea.PasteMsg, tea.MouseClickMsg, tea.MouseReleaseMsg, tea.MouseMotionMsg,
		tea.MouseWheelMsg, tea.FocusMsg, tea.BlurMsg, tea.ForegroundColorMsg, tea.BackgroundColorMsg, ColorSchemeMsg:
		return true
	}
	if msg == clearScreenMsg {
		return true
	}
	if _, ok := sequence(msg); ok {
		return true
	}
	t := reflect.TypeOf(msg)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() != teaPkg
}

// takeTerminal opens the terminal and sets it up: its modes, the screen
// writer, the input reader and the size watcher, all feeding p. It returns
// the size and restore, which gives the terminal back (no more reads, the
// last frame out, every mode undone, raw mode left); restore cancels p's
// context and may be called from any goroutine, more than once, first
// thing on a panic.
func (p *Program) takeTerminal(cancel context.CancelFunc) (width, height int, restore func(), err error) {
	opts := p.opts
	t, err := openTerminal(opts)
	if err != nil {
		return 0, 0, nil, err
	}
	width, height = t.size(opts, opts.Env)
	if err := t.setup(opts.Modes, opts.ExtraModes); err != nil {
		return 0, 0, nil, err
	}
	if opts.Setup != "" {
		_, _ = io.WriteString(t.out, opts.Setup)
	}
	p.scr = newScreen(t.out, opts.Modes.MouseMode, t.caps(opts.Env))
	in, err := startInput(p.ctx, t.in, getenv(opts.Env, "TERM"), p.Send, p.scr.wrote)
	if err != nil {
		p.scr.close()
		t.restore(0)
		return 0, 0, nil, fmt.Errorf("read the terminal: %w", err)
	}
	var winch chan os.Signal
	if t.outTTY != nil {
		winch = make(chan os.Signal, 1)
		signal.Notify(winch, syscall.SIGWINCH)
		go p.watchSize(t.outTTY, winch)
	}
	var once sync.Once
	restore = func() {
		once.Do(func() {
			cancel()
			if winch != nil {
				signal.Stop(winch)
			}
			in.stop()
			p.scr.close()
			t.restore(p.scr.style)
		})
	}
	return width, height, restore, nil
}

// watchSize sends the terminal's new size after each SIGWINCH.
func (p *Program) watchSize(f term.File, winch <-chan os.Signal) {
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-winch:
			if w, h, err := term.GetSize(f.Fd()); err == nil {
				p.Send(tea.WindowSizeMsg{Width: w, Height: h})
			}
		}
	}
}

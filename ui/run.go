package ui

import (
	"context"
	"fmt"
	"image/color"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/themes"
)

// Option adjusts how Run drives the terminal; without options Run uses the
// process's stdin and stdout.
type Option func(*runOptions)

type runOptions struct {
	input         io.Reader
	output        io.Writer
	width, height int
	env           []string
	stderr        io.Writer // where a crash report goes; tests capture it
	mirror        *Mirror   // receives every frame shown, for watchers

	outerColors func(fg, bg color.Color) // see WithOuterColors
}

// WithIO replaces stdin and stdout (tests, attached clients).
func WithIO(in io.Reader, out io.Writer) Option {
	return func(o *runOptions) { o.input, o.output = in, out }
}

// WithSize sets the initial terminal size, for an output that is not a
// terminal.
func WithSize(width, height int) Option {
	return func(o *runOptions) { o.width, o.height = width, height }
}

// WithEnv sets the environment used to detect the terminal's capabilities
// (TERM, COLORTERM ...); the default is os.Environ().
func WithEnv(env []string) Option {
	return func(o *runOptions) { o.env = env }
}

// Run shows the UI for eng until the user quits or ctx ends. It owns the
// terminal for that time and restores it on every way out, a panic
// included (the panic is then re-raised with its stack on stderr). Run does
// not shut the engine down: the caller does, after Run returns.
func Run(ctx context.Context, eng *orchestrator.Engine, cfg config.Config, styles themes.Styles, opts ...Option) error {
	return run(ctx, eng, newModel(eng, cfg, styles, time.Now), cfg, opts...)
}

// run is Run over the engine interface.
func run(ctx context.Context, eng engine, m *Model, cfg config.Config, options ...Option) (err error) {
	opts := runOptions{stderr: os.Stderr}
	for _, o := range options {
		o(&opts)
	}
	m.outerColors = opts.outerColors
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if stop := startCPUProfile(opts.stderr); stop != nil {
		defer stop()
	}

	l := &loop{ctx: ctx, m: m, msgs: make(chan tea.Msg), mirror: opts.mirror}
	// The first view says which terminal modes the session wants.
	width, height, restore, err := l.takeTerminal(cancel, &opts, m.View())
	if err != nil {
		return fmt.Errorf("run the terminal UI: %w", err)
	}
	defer restore()
	l.crash = func(where string, r any) {
		restore()
		fmt.Fprintf(opts.stderr, "\r\nagentgrid: internal error%s, terminal restored: %v\r\n%s", where, r, debug.Stack())
	}
	defer func() {
		if r := recover(); r != nil {
			l.crash("", r)
			panic(r)
		}
	}()

	changed := []<-chan struct{}{eng.Changed()}
	if st := eng.Status(); st != nil {
		changed = append(changed, st.Changed())
	}
	pump := newFramePump(l.send, cfg.UI.FPS, eng.FocusOutput(), changed...)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				l.crash(" in the frame pump", r)
				panic(r)
			}
		}()
		pump.run(ctx)
	}()

	l.handle(tea.WindowSizeMsg{Width: width, Height: height})
	for {
		select {
		case <-ctx.Done():
			// The caller's context ended the session: not a failure.
			return nil
		case msg := <-l.msgs:
			if l.handle(msg) {
				return nil
			}
		}
	}
}

// loop is the session's event loop: one goroutine (Run's) takes messages
// from the input, the frame pump, resizes and finished commands, runs the
// model's Update, and hands the view to the screen writer when it changed.
// Commands run in goroutines of their own.
type loop struct {
	ctx    context.Context
	m      *Model
	msgs   chan tea.Msg
	scr    *screen
	last   frame                     // the frame last handed to the screen
	crash  func(where string, r any) // restores the terminal and reports a panic
	mirror *Mirror                   // nil: nobody can watch
}

// clearScreenMsg is what tea.ClearScreen returns; its type is Bubble Tea's
// own, so the loop recognises it by value.
var clearScreenMsg = tea.ClearScreen()

// send delivers msg to the loop, or drops it once the session has ended.
func (l *loop) send(msg tea.Msg) {
	select {
	case l.msgs <- msg:
	case <-l.ctx.Done():
	}
}

// handle processes one message and reports whether the session ends.
func (l *loop) handle(msg tea.Msg) (quit bool) {
	repaint := false
	switch msg := msg.(type) {
	case nil:
		return false
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, cmd := range msg {
			l.exec(cmd)
		}
		return false
	case tea.RawMsg:
		l.scr.raw(fmt.Sprint(msg.Msg))
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
		l.scr.show(l.last, true)
		return false
	}
	_, cmd := l.m.Update(msg)
	l.exec(cmd)
	l.draw(repaint)
	return false
}

// draw hands the model's view to the screen when it differs from the last
// one. View returns its cached frame when nothing changed, so this costs a
// pointer comparison after an Update that changed nothing on screen.
func (l *loop) draw(repaint bool) {
	v := l.m.View()
	f := frame{content: v.Content, mouse: v.MouseMode}
	if v.Cursor != nil {
		c := *v.Cursor // the writer reads it from its own goroutine
		f.cursor = &c
	}
	if !repaint && sameFrame(f, l.last) {
		return
	}
	l.last = f
	l.scr.show(f, repaint)
	if l.mirror != nil {
		l.mirror.publish(f.content, l.m.width, l.m.height, f.cursor)
	}
}

// exec runs cmd in its own goroutine and sends its message to the loop; a
// batch's commands each get a goroutine.
func (l *loop) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				l.crash(" in a command", r)
				panic(r)
			}
		}()
		msg := cmd()
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				l.exec(c)
			}
			return
		}
		if msg != nil {
			l.send(msg)
		}
	}()
}

// takeTerminal opens the terminal and sets it up for view v: its modes, the
// screen writer, the input reader and the size watcher, all feeding l. It
// returns the size and restore, which gives the terminal back (no more
// reads, the last frame out, every mode undone, raw mode left); restore
// cancels l's context and may be called from any goroutine, more than once,
// first thing on a panic.
func (l *loop) takeTerminal(cancel context.CancelFunc, opts *runOptions, v tea.View) (width, height int, restore func(), err error) {
	t, err := openTerminal(opts)
	if err != nil {
		return 0, 0, nil, err
	}
	width, height = t.size(opts, opts.env)
	if err := t.setup(v); err != nil {
		return 0, 0, nil, err
	}
	if opts.outerColors != nil {
		_, _ = io.WriteString(t.out, seqQueryColors)
	}
	l.scr = newScreen(t.frameWriter(opts.env), v.MouseMode)
	in, err := startInput(l.ctx, t.in, getenv(opts.env, "TERM"), l.send)
	if err != nil {
		l.scr.close()
		t.restore(0)
		return 0, 0, nil, fmt.Errorf("read the terminal: %w", err)
	}
	var winch chan os.Signal
	if t.outTTY != nil {
		winch = make(chan os.Signal, 1)
		signal.Notify(winch, syscall.SIGWINCH)
		go l.watchSize(t.outTTY, winch)
	}
	var once sync.Once
	restore = func() {
		once.Do(func() {
			cancel()
			if winch != nil {
				signal.Stop(winch)
			}
			in.stop()
			l.scr.close()
			t.restore(l.scr.style)
		})
	}
	return width, height, restore, nil
}

// watchSize sends the terminal's new size after each SIGWINCH.
func (l *loop) watchSize(f term.File, winch <-chan os.Signal) {
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-winch:
			if w, h, err := term.GetSize(f.Fd()); err == nil {
				l.send(tea.WindowSizeMsg{Width: w, Height: h})
			}
		}
	}
}

// cpuProfileEnv names a file that receives a CPU profile of the session
// (from the UI's start to its end), for finding what runs when it should
// not: go tool pprof agentgrid FILE.
const cpuProfileEnv = "AGENTGRID_CPUPROFILE"

// startCPUProfile starts profiling when cpuProfileEnv is set and returns
// the function that writes the profile out, or nil.
func startCPUProfile(stderr io.Writer) func() {
	path := os.Getenv(cpuProfileEnv)
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(stderr, "agentgrid: cannot write the CPU profile %s: %v\r\n", path, err)
		return nil
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		fmt.Fprintf(stderr, "agentgrid: cannot start the CPU profile %s: %v\r\n", path, err)
		return nil
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}

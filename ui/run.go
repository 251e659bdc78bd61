package ui

import (
	"context"
	"fmt"
	"image/color"
	"io"
	"os"
	"runtime/pprof"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// Option adjusts how a client's terminal is driven (NewHub's options and
// the hub's own per client); without options it is the process's stdin
// and stdout.
type Option func(*runOptions)

type runOptions struct {
	rt        termrt.Options
	buffers   *control.Buffers  // receives every copy, for agentgrid paste
	record    string            // --record: the asciicast file
	unhandled func(msg tea.Msg) // tests: a message the runtime does not carry out

	outerColors func(fg, bg color.Color) // see WithOuterColors

	started func(p *termrt.Program) // an attached client's hub learns its program

	// See WithFloods: the hub's key readers wait in poll(2) only while
	// flooding says so, and wait again when onFloodStart calls them.
	flooding     func() bool
	onFloodStart func(func()) (stop func())
}

// WithIO replaces stdin and stdout (tests, attached clients).
func WithIO(in io.Reader, out io.Writer) Option {
	return func(o *runOptions) { o.rt.Input, o.rt.Output = in, out }
}

// WithBuffers keeps every copy the user makes in b (the session's paste
// buffers, which the socket serves to agentgrid paste).
func WithBuffers(b *control.Buffers) Option {
	return func(o *runOptions) { o.buffers = b }
}

// WithFloods tells the hub when panes flood (the panes package's Flooding
// and OnFloodStart): an attached terminal's keys are then read by a thread
// that waits for them in poll(2), and otherwise in Go's poller (see
// control.AttachStream.WakeOnInput). Without it they always wait in poll.
func WithFloods(flooding func() bool, onFloodStart func(func()) (stop func())) Option {
	return func(o *runOptions) { o.flooding, o.onFloodStart = flooding, onFloodStart }
}

// WithRecord records the session's screen to path (an asciicast v2 file)
// from its start; prefix R stops and starts again.
func WithRecord(path string) Option {
	return func(o *runOptions) { o.record = path }
}

// WithSize sets the initial terminal size, for an output that is not a
// terminal.
func WithSize(width, height int) Option {
	return func(o *runOptions) { o.rt.Width, o.rt.Height = width, height }
}

// WithEnv sets the environment used to detect the terminal's capabilities
// (TERM, COLORTERM ...); the default is os.Environ().
func WithEnv(env []string) Option {
	return func(o *runOptions) { o.rt.Env = env }
}

// WithRemoteTerminal says the output leads to an attached client's
// terminal, whose capabilities come from the environment WithEnv gives.
func WithRemoteTerminal() Option {
	return func(o *runOptions) { o.rt.Remote = true }
}

// options applies options over the defaults.
func options(options []Option) runOptions {
	opts := runOptions{rt: termrt.Options{Stderr: os.Stderr}}
	for _, o := range options {
		o(&opts)
	}
	opts.rt.Unhandled = opts.unhandled
	return opts
}

// session is the session UI as a program of the terminal runtime.
type session struct{ m *Model }

func (s session) Update(msg tea.Msg) tea.Cmd {
	_, cmd := s.m.Update(msg)
	return cmd
}

func (s session) View() termrt.Frame {
	v := s.m.View()
	return termrt.Frame{Canvas: s.m.final, Gen: s.m.gen, Cursor: v.Cursor, Mouse: v.MouseMode}
}

// run shows model m of eng on one terminal until the user quits (or
// detaches) or ctx ends. It owns the terminal for that time and restores it
// on every way out, a panic included (the panic is then re-raised with its
// stack on stderr). It does not shut the engine down.
func run(ctx context.Context, eng engine, m *Model, cfg config.Config, opt ...Option) error {
	opts := options(opt)
	if stop := startCPUProfile(opts.rt.Stderr); stop != nil {
		defer stop()
	}
	m.outerColors = opts.outerColors
	m.buffers = opts.buffers
	m.recordTo, m.recordPending = opts.record, opts.record != ""
	opts.rt.Tee = m.rec
	if opts.outerColors != nil || m.theme.auto {
		opts.rt.Setup = seqQueryColors
	}
	if m.theme.auto {
		opts.rt.Setup += seqQueryScheme
		opts.rt.ExtraModes = append(opts.rt.ExtraModes, modeSchemeReports)
	}
	// The first view says which terminal modes the session wants.
	opts.rt.Modes = m.View()
	opts.rt.Start = func(p *termrt.Program) {
		if opts.started != nil {
			opts.started(p)
		}
		changed := []<-chan struct{}{eng.Changed()}
		if _, fanned := eng.(interface{ fannedOut() }); !fanned {
			// An attached client's Changed covers the status store too:
			// the hub reads both and pokes every client.
			if st := eng.Status(); st != nil {
				changed = append(changed, st.Changed())
			}
		}
		pump := newFramePump(p.Send, cfg.UI.FPS, eng.FocusOutput(), changed...)
		pump.fresh, pump.news = eng.AwaitedOutput(), eng.StateChanged()
		p.Go("the frame pump", func() { pump.run(p.Context()) })
	}
	err := termrt.Run(ctx, session{m}, opts.rt)
	// The next client of this process (an attach after a detach) takes
	// over the frame's cells.
	m.comp.cv.Release()
	m.comp.reset()
	m.top.Release()
	if path, rerr := m.rec.end(); rerr != nil && err == nil {
		return fmt.Errorf("the recording %s is incomplete: %w", path, rerr)
	}
	if err != nil {
		return fmt.Errorf("run the terminal UI: %w", err)
	}
	return nil
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

package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"time"

	tea "charm.land/bubbletea/v2"

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
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if stop := startCPUProfile(opts.stderr); stop != nil {
		defer stop()
	}

	popts := []tea.ProgramOption{
		tea.WithContext(ctx),
		// Panics are ours to handle: the terminal is restored below and the
		// panic re-raised, so a crash is never silent nor leaves a raw tty.
		tea.WithoutCatchPanics(),
	}
	// The renderer flushes only on its own ticker (it cannot flush on the
	// leading edge), which also wakes it at this rate while nothing
	// changes: ui.fps trades idle wakeups against the wait between a new
	// frame and its flush (up to 1/fps).
	if cfg.UI.FPS > 0 {
		popts = append(popts, tea.WithFPS(cfg.UI.FPS))
	}
	if opts.input != nil {
		popts = append(popts, tea.WithInput(opts.input))
	}
	if opts.output != nil {
		popts = append(popts, tea.WithOutput(opts.output))
	}
	if opts.width > 0 && opts.height > 0 {
		popts = append(popts, tea.WithWindowSize(opts.width, opts.height))
	}
	if opts.env != nil {
		popts = append(popts, tea.WithEnvironment(opts.env))
	}
	p := tea.NewProgram(m, popts...)

	defer func() {
		if r := recover(); r != nil {
			p.Kill()
			fmt.Fprintf(opts.stderr, "\r\nagentgrid: internal error, terminal restored: %v\r\n%s", r, debug.Stack())
			panic(r)
		}
	}()

	changed := []<-chan struct{}{eng.Changed()}
	if st := eng.Status(); st != nil {
		changed = append(changed, st.Changed())
	}
	pump := newFramePump(p.Send, cfg.UI.FPS, eng.FocusOutput(), changed...)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				p.Kill()
				fmt.Fprintf(opts.stderr, "\r\nagentgrid: internal error in the frame pump, terminal restored: %v\r\n%s", r, debug.Stack())
				panic(r)
			}
		}()
		pump.run(ctx)
	}()

	_, err = p.Run()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		// The caller's context ended the session: not a failure.
		return nil
	}
	return fmt.Errorf("run the terminal UI: %w", err)
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

package demo

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/charmbracelet/x/term"
)

// callTimeout bounds each socket call, so a wedged session shows an error in
// the main view instead of a frozen demo.
const callTimeout = 10 * time.Second

// socketSession drives a session through its control socket.
type socketSession struct {
	ctx context.Context
	c   *control.Client
}

func (s socketSession) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, callTimeout)
}

func (s socketSession) Spawn(title string, argv []string) (Agent, error) {
	ctx, cancel := s.call()
	defer cancel()
	info, err := s.c.Spawn(ctx, control.SpawnParams{Title: title, Argv: argv})
	if err != nil {
		return Agent{}, err
	}
	return fromInfo(info), nil
}

func (s socketSession) List() ([]Agent, error) {
	ctx, cancel := s.call()
	defer cancel()
	infos, err := s.c.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Agent, 0, len(infos))
	for _, in := range infos {
		out = append(out, fromInfo(in))
	}
	return out, nil
}

func (s socketSession) Capture(id string) (string, error) {
	ctx, cancel := s.call()
	defer cancel()
	return s.c.Capture(ctx, id, false, 0)
}

func (s socketSession) SetStatus(key, text string) error {
	ctx, cancel := s.call()
	defer cancel()
	return s.c.SetStatus(ctx, key, text, "", 0)
}

// fromInfo maps the socket's agent snapshot onto what the demo needs.
func fromInfo(in control.AgentInfo) Agent {
	return Agent{
		ID: in.ID, Title: in.Title, State: in.State, Why: in.Why,
		ExitCode: in.ExitCode, Started: in.Started, Ended: in.Ended,
		Visible: in.Visible, Number: in.Number, QueuePos: in.QueuePos,
	}
}

// RunDirectorProcess is the body of the hidden `__demo-orchestrator` command:
// it connects to the session through AGENTGRID_SOCKET and runs the demo in
// the main view until the session ends it (SIGHUP/SIGTERM). It returns the
// process exit code.
func RunDirectorProcess(o DirectorOptions) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGHUP, syscall.SIGTERM)
	defer stop()
	// ctrl+c in the main view would cut the demo off half way and leave an
	// empty main pane; ctrl+b q is the way out.
	signal.Ignore(syscall.SIGINT)

	o.Out, o.In = os.Stdout, os.Stdin
	o.WidthNow = func() int {
		w, _, err := term.GetSize(os.Stdout.Fd())
		if err != nil {
			return 0
		}
		return w
	}
	if o.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(os.Stdout, paint(fgRed, "agentgrid demo: cannot find the agentgrid binary: "+err.Error()))
			return 1
		}
		o.Exe = exe
	}
	c, err := control.DialEnv()
	if err != nil {
		fmt.Fprintln(os.Stdout, paint(fgRed, "agentgrid demo: "+err.Error()))
		fmt.Fprintln(os.Stdout, "Start the demo with: agentgrid demo")
		return 1
	}
	defer c.Close()
	err = RunDirector(ctx, socketSession{ctx: ctx, c: c}, o)
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stdout, paint(fgRed, "\nagentgrid demo: "+err.Error()))
		// Keep the message on screen until the session ends.
		<-ctx.Done()
		return 1
	}
	fmt.Fprint(os.Stdout, sgrReset+showCursor)
	return 0
}

package tmuxshim

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

// EnvLog set to 1 makes the session record every shim call in
// <state dir>/tmux-shim.log.
const EnvLog = "AGENTGRID_TMUX_LOG"

// callTimeout bounds one call; respawn-pane and split-window wait for a
// process to start, never longer than the engine's own bound.
const callTimeout = 15 * time.Second

// Globals are tmux's own flags before the command.
type Globals struct {
	Socket  string // -S
	Version bool   // -V
	Argv    []string
}

// ParseGlobals strips tmux's global flags (-S path, -L name, -f file, -u,
// -2, -v, -N, -D, -l) and returns the command line after them.
func ParseGlobals(argv []string) (Globals, *Error) {
	var g Globals
	n, err := scanFlags(argv,
		func(f byte) bool { return strings.IndexByte("SLfcT", f) >= 0 },
		func(f byte) *Error { return Errorf("-%c expects an argument", f) },
		func(f byte, v string) *Error {
			switch f {
			case 'S':
				g.Socket = v
			case 'c':
				return Errorf("agentgrid's tmux does not run shell commands with -c")
			case 'V':
				g.Version = true
			case 'C':
				return Errorf("agentgrid's tmux has no control mode (-C)")
			case 'L', 'f', 'T', 'u', '2', 'v', 'N', 'D', 'l':
			default:
				return Errorf("unknown option -- %c", f)
			}
			return nil
		})
	if err != nil {
		return g, err
	}
	g.Argv = argv[n:]
	return g, nil
}

// socketFromEnv is the session socket named by $TMUX (its first field,
// as tmux writes it) or else $AGENTGRID_SOCKET.
func socketFromEnv() string {
	if t := os.Getenv("TMUX"); t != "" {
		if p, _, _ := strings.Cut(t, ","); p != "" {
			return p
		}
	}
	return os.Getenv(control.EnvSocket)
}

// Main runs the tmux entry point: args are tmux's (without the program
// name); it returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	g, perr := ParseGlobals(args)
	if perr != nil {
		fmt.Fprintln(stderr, perr.Msg)
		return 1
	}
	if g.Version {
		fmt.Fprintln(stdout, Version)
		return 0
	}
	if len(g.Argv) == 0 {
		fmt.Fprintln(stderr, "agentgrid's tmux needs a command: it answers for the panes of its agentgrid session")
		return 1
	}
	sock := g.Socket
	if sock == "" {
		sock = socketFromEnv()
	}
	if sock == "" {
		fmt.Fprintln(stderr, "no server running: this tmux speaks to agentgrid; run it inside an agentgrid session")
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	c, err := control.Dial(sock)
	if err != nil {
		fmt.Fprintf(stderr, "no server running on %s: %v\n", sock, err)
		return 1
	}
	defer c.Close()
	cwd, _ := os.Getwd()
	r, err := c.Tmux(ctx, control.TmuxParams{Argv: g.Argv, Pane: os.Getenv("TMUX_PANE"), Cwd: cwd, Log: os.Getenv(EnvLog) == "1"})
	if err != nil {
		fmt.Fprintf(stderr, "agentgrid session %s did not answer: %v\n", sock, err)
		return 1
	}
	_, _ = io.WriteString(stdout, r.Stdout)
	_, _ = io.WriteString(stderr, r.Stderr)
	return r.Exit
}

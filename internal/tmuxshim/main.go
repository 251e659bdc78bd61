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
	i := 0
	for ; i < len(argv); i++ {
		w := argv[i]
		if w == "--" {
			i++
			break
		}
		if len(w) < 2 || w[0] != '-' {
			break
		}
		for j := 1; j < len(w); j++ {
			switch f := w[j]; f {
			case 'S', 'L', 'f', 'c', 'T':
				v := w[j+1:]
				if v == "" {
					if i+1 >= len(argv) {
						return g, Errorf("-%c expects an argument", f)
					}
					i++
					v = argv[i]
				}
				if f == 'S' {
					g.Socket = v
				}
				if f == 'c' {
					return g, Errorf("agentgrid's tmux does not run shell commands with -c")
				}
				j = len(w)
			case 'V':
				g.Version = true
			case 'C':
				return g, Errorf("agentgrid's tmux has no control mode (-C)")
			case 'u', '2', 'v', 'N', 'D', 'l':
			default:
				return g, Errorf("unknown option -- %c", f)
			}
		}
	}
	g.Argv = argv[i:]
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

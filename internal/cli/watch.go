package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/ui"
)

func newWatchCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "watch [SESSION]",
		Short: "Show a running session's screen in this terminal, read-only",
		Long: `watch shows what a running agentgrid session shows, live, in this terminal:
for a second person following a pair-programming session or a demo from
another terminal (another tmux window, an ssh login as the same user).
Nothing typed here reaches the session; q, esc or ctrl+c stops watching and
leaves the session running. A terminal smaller than the session's shows its
top left part and says so in the bottom line.

SESSION is the name given to agentgrid --session, or a socket path. Without
it, watch uses --socket, then $AGENTGRID_SOCKET, then the only session
running for this user (with several, it lists them).`,
		Example: `  agentgrid --session pair -- claude   # in the first terminal
  agentgrid watch pair                 # in the second
  agentgrid watch                      # when only one session runs`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			target := ""
			if len(args) == 1 {
				if target = args[0]; target == "" {
					return exitError{exitUsage, control.CheckSessionName("").Error()}
				}
			} else if f := cmd.Flag("socket"); f != nil {
				target = f.Value.String()
			}
			if target == "" {
				target = os.Getenv(control.EnvSocket)
			}
			path, name, err := watchTarget(target)
			if err != nil {
				if errors.As(err, new(exitError)) {
					return err
				}
				return exitError{1, err.Error()}
			}
			if own := os.Getenv(control.EnvSocket); own != "" && filepath.Clean(own) == filepath.Clean(path) {
				// Its own screen would show the watcher showing the screen, and so on.
				return exitError{1, fmt.Sprintf("this terminal is a pane of session %s, which cannot watch itself; run agentgrid watch in another terminal", name)}
			}
			if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
				return exitError{1, "watch needs a terminal on stdin and stdout; use agentgrid capture from scripts"}
			}
			c, err := control.Dial(path)
			if err != nil {
				return exitError{1, err.Error()}
			}
			defer c.Close()
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			// Check that the session has a screen before taking the terminal;
			// a session that has drawn nothing yet answers "cancelled".
			_, err = c.Screen(ctx, 0, 2*time.Second)
			var rpcErr *control.RPCError
			if err != nil && !(errors.As(err, &rpcErr) && rpcErr.Code == control.CodeCancelled) {
				return exitError{1, fmt.Sprintf("watch %s: %v", name, err)}
			}
			err = ui.Watch(ctx, name, func(ctx context.Context, after uint64) (control.ScreenFrame, error) {
				return c.Screen(ctx, after, 0)
			})
			if errors.Is(err, ui.ErrSessionEnded) {
				fmt.Fprintf(cmd.ErrOrStderr(), "agentgrid watch: session %s ended\n", name)
				return nil
			}
			return err
		},
	}
}

// watchTarget turns what the user named into a socket path and a session
// name for display. An empty target means the only live session.
func watchTarget(target string) (path, name string, err error) {
	if target != "" {
		if path, err = socketFor(target); err != nil {
			return "", "", err
		}
		return path, sessionName(path), nil
	}
	dir := control.SocketDir()
	socks, _ := filepath.Glob(filepath.Join(dir, "*.sock"))
	var live []string
	var refused error
	for _, s := range socks {
		c, err := control.Dial(s)
		if err == nil {
			_ = c.Close()
			live = append(live, s)
		} else if refused == nil && errors.Is(err, control.ErrUntrustedSocket) {
			refused = err
		}
	}
	sort.Strings(live)
	switch {
	case len(live) == 0 && refused != nil:
		// Not "no session": the user should know why it was not used.
		return "", "", refused
	case len(live) == 0:
		return "", "", fmt.Errorf("no agentgrid session is running for this user (looked in %s); start one with agentgrid --session NAME", dir)
	case len(live) == 1:
		return live[0], sessionName(live[0]), nil
	}
	names := make([]string, len(live))
	for i, s := range live {
		names[i] = sessionName(s)
	}
	return "", "", fmt.Errorf("%d sessions are running (%s); name one: agentgrid watch NAME", len(live), strings.Join(names, ", "))
}

// sessionName is the session a socket path belongs to.
func sessionName(socket string) string {
	return strings.TrimSuffix(filepath.Base(socket), ".sock")
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/procstat"
)

// killSessionWait bounds the wait for a session to end: its server hangs
// up every agent and gives the ones that linger a few seconds before it
// kills them.
const killSessionWait = 20 * time.Second

func newKillSessionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "kill-session [SESSION]",
		Short: "End a running session and its agents, as quitting it does",
		Long: `kill-session ends a running session from outside, the way quitting it
(ctrl+b q) does: every agent is hung up (SIGHUP, then SIGTERM and SIGKILL to
those that linger), the attached terminals are told it ended, and its socket
goes. It returns once the session has ended.

SESSION is the name given to agentgrid --session, or a socket path. Without
it, kill-session uses --socket, then the only session running for this user
(with several, it lists them). From inside a session, name it to end it.`,
		Example: `  agentgrid ls
  agentgrid kill-session work`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, path, name, err := namedSession(cmd, args)
			if err != nil {
				return err
			}
			if own := os.Getenv(control.EnvSocket); target == "" && own != "" && filepath.Clean(own) == filepath.Clean(path) {
				return exitError{1, fmt.Sprintf("this terminal is a pane of session %s; to end it from here, name it: agentgrid kill-session %s", name, name)}
			}
			agents, err := killSession(path, name)
			if err != nil {
				return exitError{1, err.Error()}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "session %s ended (%d %s hung up)\n", name, agents, plural(agents, "agent", "agents"))
			return nil
		},
	}
}

// killSession asks the server of the session at path to end (SIGTERM, which
// it takes as a quit) and waits until it has; it returns how many agents
// the session had.
func killSession(path, name string) (int, error) {
	c, err := control.Dial(path)
	if err != nil {
		return 0, fmt.Errorf("session %s does not answer: %v", name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	info, err := c.SessionInfo(ctx)
	cancel()
	_ = c.Close()
	if err != nil {
		return 0, fmt.Errorf("session %s does not answer: %v", name, err)
	}
	if info.PID <= 1 {
		return 0, fmt.Errorf("session %s did not say its process id", name)
	}
	if err := syscall.Kill(info.PID, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return 0, fmt.Errorf("end session %s (process %d): %v", name, info.PID, err)
	}
	deadline := time.Now().Add(killSessionWait)
	for {
		if processGone(info.PID) {
			return info.Agents, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("session %s (process %d) is still ending after %v; agentgrid ls shows when it is gone", name, info.PID, killSessionWait)
		}
		time.Sleep(20 * time.Millisecond) // polling the process, not synchronising
	}
}

// processGone reports whether process pid has ended: it is no more, or
// (while the terminal that started the session has yet to reap it) a
// zombie, or the id now belongs to someone else's process.
func processGone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	st, ok := procstat.Read(pid)
	return ok && st.Zombie() // without /proc, the signal's answer is all there is
}

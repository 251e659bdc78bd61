package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentgrid/agentgrid/internal/control"
)

func newAttachCmd() *cobra.Command {
	var readOnly bool
	cmd := &cobra.Command{
		Use:   "attach [SESSION]",
		Short: "Attach this terminal to a running session",
		Long: `attach shows a running agentgrid session in this terminal, at this terminal's
size, with its own focus, zoom and overlays: from another tmux window, another
terminal, an ssh login as the same user. ctrl+b d detaches again; the session
and its agents keep running. Closing the terminal or killing the client is a
detach too.

The panes' sizes follow the client that typed last; every other client lays
the same panes out at its own size, with its own focus and zoom.

With --read-only (agentgrid watch is its short name) the session refuses
everything this client would change: it can move its own focus and zoom,
scroll and search, and nothing else; no key reaches a pane.

SESSION is the name given to agentgrid --session, or a socket path. Without
it, attach uses --socket, then the only session running for this user (with
several, it lists them).`,
		Example: `  agentgrid --session pair -- claude   # in the first terminal
  agentgrid attach pair                # in the second
  agentgrid watch pair                 # read-only, for someone following along`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAttach(cmd, args, readOnly)
		},
	}
	cmd.Flags().BoolVar(&readOnly, "read-only", false, "look only: no key reaches a pane, no agent is started or closed")
	return cmd
}

func newWatchCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "watch [SESSION]",
		Short: "Attach this terminal to a running session, read-only",
		Long: `watch is agentgrid attach --read-only: the session at this terminal's size,
with its own focus and zoom, scrolling and search; nothing typed here reaches
a pane, and no agent can be started or closed. ctrl+b d stops watching and
leaves the session running.`,
		Example: `  agentgrid watch pair`,
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAttach(cmd, args, true)
		},
	}
}

// runAttach attaches to the session args or --socket name, else the only one.
func runAttach(cmd *cobra.Command, args []string, readOnly bool) error {
	_, path, name, err := namedSession(cmd, args)
	if err != nil {
		return err
	}
	return attachTerminal(cmd, path, name, readOnly)
}

// namedSession finds the session a command names: its argument, else
// --socket, else (target "") the only one running. It returns the target
// as named, the session's socket path and its name.
func namedSession(cmd *cobra.Command, args []string) (target, path, name string, err error) {
	if len(args) == 1 {
		if target = args[0]; target == "" {
			return "", "", "", exitError{exitUsage, control.CheckSessionName("").Error()}
		}
	} else if f := cmd.Flag("socket"); f != nil {
		target = f.Value.String()
	}
	path, name, err = attachTarget(target, cmd.CommandPath())
	if err != nil && !errors.As(err, new(exitError)) {
		err = exitError{1, err.Error()}
	}
	return target, path, name, err
}

// attachTarget turns what the user named into a socket path and a session
// name for display. An empty target means the only live session; command
// (agentgrid attach, agentgrid watch) is what the user runs to name one.
func attachTarget(target, command string) (path, name string, err error) {
	if target != "" {
		if path, err = socketFor(target); err != nil {
			return "", "", err
		}
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) && !strings.Contains(target, "/") {
			return "", "", fmt.Errorf("no agentgrid session named %s is running; agentgrid ls lists the running ones", target)
		}
		return path, sessionName(path), nil
	}
	live, refused := liveSessions()
	switch {
	case len(live) == 0 && refused != nil:
		// Not "no session": the user should know why it was not used.
		return "", "", refused
	case len(live) == 0:
		return "", "", errors.New("no agentgrid session is running; start one with agentgrid")
	case len(live) == 1:
		return live[0].Socket, live[0].Session, nil
	}
	names := make([]string, len(live))
	for i, s := range live {
		names[i] = s.Session
	}
	return "", "", fmt.Errorf("%d sessions are running (%s); name one: %s NAME", len(live), strings.Join(names, ", "), command)
}

// liveSessions asks every socket in the user's socket directory for its
// session, sorted by name. A socket nobody listens on any more (its server
// crashed) is removed; one that is not the user's is skipped, and the
// first such refusal is returned.
func liveSessions() ([]control.SessionInfo, error) {
	socks, _ := filepath.Glob(filepath.Join(control.SocketDir(), "*.sock"))
	var live []control.SessionInfo
	var refused error
	for _, s := range socks {
		c, err := control.Dial(s)
		if err != nil {
			if errors.Is(err, control.ErrUntrustedSocket) {
				if refused == nil {
					refused = err
				}
				continue
			}
			_, _ = control.RemoveStaleSocket(s)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		info, err := c.SessionInfo(ctx)
		cancel()
		_ = c.Close()
		if err != nil {
			continue
		}
		info.Socket = s
		if info.Session == "" {
			info.Session = sessionName(s)
		}
		live = append(live, info)
	}
	sort.Slice(live, func(i, j int) bool { return live[i].Session < live[j].Session })
	return live, refused
}

func newLsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "ls",
		Aliases: []string{"sessions"},
		Short:   "List this user's running sessions",
		Long: `ls lists the agentgrid sessions running for this user: name, agents,
attached clients and age. A socket left by a session whose server crashed is
removed on the way.`,
		Example: `  agentgrid ls
  agentgrid ls --json | jq -r '.[].session'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			live, refused := liveSessions()
			if refused != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "agentgrid: "+refused.Error())
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if live == nil {
					live = []control.SessionInfo{}
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(live)
			}
			if len(live) == 0 {
				fmt.Fprintln(out, "no agentgrid session is running; start one with agentgrid")
				return nil
			}
			w, done := buffer(out)
			defer done(&err)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "SESSION\tAGENTS\tCLIENTS\tAGE\tPID")
			for _, s := range live {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\n", s.Session, s.Agents, s.Clients, age(time.Since(s.Started)), s.PID)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// age is a duration as a user reads it: 42s, 5m, 3h12m, 2d4h.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}

// sessionName is the session a socket path belongs to.
func sessionName(socket string) string {
	return strings.TrimSuffix(filepath.Base(socket), ".sock")
}

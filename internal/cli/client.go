package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/spf13/cobra"
)

// Exit statuses of the client commands beyond 0 and 1.
const (
	exitUsage   = 2   // bad flags or arguments
	exitTimeout = 124 // agentgrid wait --timeout passed (as timeout(1) does)
)

// addClientCommands registers the commands that talk to a running session
// through its control socket, each with the --socket flag that names it.
func addClientCommands(root *cobra.Command) {
	for _, c := range []*cobra.Command{
		newSpawnCmd(), newListCmd(), newWaitCmd(), newCloseCmd(), newSendCmd(),
		newCaptureCmd(), newStatusCmd(), newExplainCmd(), newWatchCmd(), newLoopCmd(), newPasteCmd(), newKindsCmd(),
	} {
		root.AddCommand(usageErrors(withSocketFlag(c)))
	}
}

// connect dials the session named by --socket, or by AGENTGRID_SOCKET. A
// --socket value without a slash is a session name (agentgrid --session).
func connect(cmd *cobra.Command) (*control.Client, error) {
	path := ""
	if f := cmd.Flag("socket"); f != nil {
		path = f.Value.String()
	}
	path, err := socketFor(path)
	if err != nil {
		return nil, err
	}
	var c *control.Client
	if path != "" {
		c, err = control.Dial(path)
	} else {
		c, err = control.DialEnv()
	}
	if err != nil {
		return nil, exitError{1, err.Error()}
	}
	return c, nil
}

// socketFor turns a --socket value into a socket path: a value without a
// slash is a session name, which must be a valid one; a value with a slash
// is the path of a socket, which is only dialled, never created. Empty
// stays empty.
func socketFor(v string) (string, error) {
	if v != "" && !strings.Contains(v, "/") {
		if err := control.CheckSessionName(v); err != nil {
			return "", exitError{exitUsage, err.Error()}
		}
		return control.SocketPath(v), nil
	}
	return v, nil
}

// withClient runs fn with a connection to the session.
func withClient(cmd *cobra.Command, fn func(ctx context.Context, c *control.Client) error) error {
	c, err := connect(cmd)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	err = fn(ctx, c)
	var rpcErr *control.RPCError
	if errors.As(err, &rpcErr) && rpcErr.Code == control.CodeTooManyConnections {
		return exitError{1, rpcErr.Message}
	}
	return err
}

func newSpawnCmd() *cobra.Command {
	var (
		p        control.SpawnParams
		env      []string
		asJSON   bool
		worktree string
	)
	cmd := &cobra.Command{
		Use:   "spawn [flags] [-- COMMAND [ARGS...]]",
		Short: "Start a background agent in the session and print its id",
		Long: `spawn starts COMMAND as a background agent of the current session (the one in
$AGENTGRID_SOCKET, or --socket). It appears in the grid when there is room, and
waits in the queue otherwise. The new agent's id is printed on stdout, so
scripts can capture it.

The command runs in the current directory unless --cwd says otherwise. With
--kind, a [kinds.NAME] preset from the config supplies the command (and wires
in that agent CLI's hooks and the MCP server); --prompt is then passed the way
the preset says, and --model the way that CLI takes one (its own argument,
never through a shell). With --category, a [categories.NAME] names the kind,
the model (passed the same way) and a prompt prefix; when the program cannot
start, or its model's API refuses with a rate limit, the agent moves to the
category's next fallback under the same id (agentgrid explain shows how).
agentgrid kinds lists the kinds and categories. Put the command after -- so
that its own flags are not read as agentgrid's.`,
		Example: `  # run the tests in a pane and keep the id
  id=$(agentgrid spawn --title tests -- go test ./...)

  # an AI coding agent with a task, hooks and MCP wired in by its kind
  agentgrid spawn --kind claude --title refactor --prompt "split ui/model.go by concern"

  # a kind with a model of your choice, passed the way its CLI takes one
  agentgrid spawn --kind claude --model opus --prompt "review the API change"

  # the same by kind of work: the category picks the kind, the model and fallbacks
  agentgrid spawn --category quick --prompt "fix the typo in README.md"

  # extra environment and another directory
  agentgrid spawn --cwd ../api --env PORT=8081 --env DEBUG=1 -- make run

  # in a git worktree of its own (.agentgrid/worktrees/fix-login, branch agentgrid/fix-login)
  agentgrid spawn --worktree fix-login --kind claude --prompt "fix the login redirect"`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f := cmd.Flags().Lookup("worktree"); f != nil && f.Changed {
				// --worktree NAME: since the flag's value is optional, the
				// name comes as the first argument before -- (or the first
				// argument at all when there is no --).
				if before := cmd.ArgsLenAtDash(); worktree == autoWorktree && (before > 0 || before < 0 && len(args) > 0) {
					worktree, args = args[0], args[1:]
				}
				p.Worktree = &control.WorktreeSpec{}
				if worktree != autoWorktree {
					p.Worktree.Name = worktree
				}
			}
			p.Argv = args
			if p.Kind != "" && p.Category != "" {
				return exitError{exitUsage, "give --kind or --category, not both"}
			}
			if len(p.Argv) == 0 && p.Kind == "" && p.Category == "" {
				return exitError{exitUsage, "give a command to run after -- (agentgrid spawn -- CMD ARGS...), a --kind whose preset supplies one, or a --category"}
			}
			if p.Prompt != "" && p.Kind == "" && p.Category == "" {
				return exitError{exitUsage, "--prompt needs --kind or --category, which know how to pass it; a command after -- takes its task in its own arguments"}
			}
			if p.Model != "" && p.Kind == "" {
				return exitError{exitUsage, "--model needs --kind (a category picks its own model; a command after -- takes its model in its own arguments)"}
			}
			if len(env) > 0 {
				p.Env = make(map[string]string, len(env))
				for _, kv := range env {
					k, v, ok := strings.Cut(kv, "=")
					if !ok || k == "" {
						return exitError{exitUsage, fmt.Sprintf("--env %q must look like NAME=VALUE", kv)}
					}
					p.Env[k] = v
				}
			}
			cwd, err := resolveCwd(p.Cwd)
			if err != nil {
				return err
			}
			p.Cwd = cwd
			return withClient(cmd, func(ctx context.Context, c *control.Client) error {
				a, err := c.Spawn(ctx, p)
				if err != nil {
					return fmt.Errorf("spawn: %w", err)
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), a)
				}
				fmt.Fprintln(cmd.OutOrStdout(), clean(a.ID, 64))
				if a.QueuePos > 0 {
					why := clean(a.QueueReason, 200)
					if a.QueueReason == "" {
						why = "no free slot in the grid"
					}
					fmt.Fprintf(cmd.ErrOrStderr(), "agentgrid: %s is queued at position %d: %s\n", clean(a.ID, 64), a.QueuePos, why)
				} else if a.State == agentstate.Pending && a.QueueReason != "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "agentgrid: %s waits to start: %s\n", clean(a.ID, 64), clean(a.QueueReason, 200))
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.Title, "title", "", "title shown in the pane's border (default: the command)")
	f.StringVar(&p.Cwd, "cwd", "", "working directory of the agent (default: the current directory)")
	f.StringVar(&p.Kind, "kind", "", "agent kind preset from the config: claude, codex, gemini, opencode, aider, shell, ...")
	f.StringVar(&p.Category, "category", "", "a [categories.NAME] from the config: its kind, model, prompt prefix and fallbacks (see agentgrid kinds)")
	f.StringVar(&p.Prompt, "prompt", "", "task for an agent CLI started with --kind or --category")
	f.StringVar(&p.Model, "model", "", "model for the --kind's CLI, passed the way it takes one (claude --model M, codex -m M, opencode provider/model); a category picks its own")
	f.StringArrayVar(&env, "env", nil, "extra environment variable NAME=VALUE (repeatable)")
	f.BoolVar(&asJSON, "json", false, "print the new agent as JSON instead of its id")
	f.StringVar(&worktree, "worktree", "", "run the agent in a new git worktree `NAME` of the repository (<repo>/.agentgrid/worktrees/NAME, branch agentgrid/NAME); made from the title when left out or auto")
	f.Lookup("worktree").NoOptDefVal = autoWorktree
	withLoopFlags(cmd, &p)
	return cmd
}

// resolveCwd turns --cwd into an absolute directory, defaulting to ours, so
// the agent runs where the user is rather than where the session started.
func resolveCwd(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the current directory for the agent: %w; pass --cwd", err)
		}
		return wd, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir, fmt.Errorf("resolve --cwd %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return abs, exitError{1, fmt.Sprintf("--cwd %s does not exist; create it or pass an existing directory", dir)}
	case err != nil:
		return abs, exitError{1, fmt.Sprintf("cannot use --cwd %s: %v", dir, errors.Unwrap(err))}
	case !fi.IsDir():
		return abs, exitError{1, fmt.Sprintf("--cwd %s is not a directory", dir)}
	}
	if err := syscall.Access(abs, 1); err != nil { // X_OK: may it be entered?
		return abs, exitError{1, fmt.Sprintf("--cwd %s cannot be entered (%v); fix its permissions or pick another directory", dir, err)}
	}
	return abs, nil
}

func newListCmd() *cobra.Command {
	var asJSON, tree bool
	cmd := &cobra.Command{
		Use:   "list [--json] [--tree]",
		Short: "List the session's agents with their state, time and exit code",
		Long: `list shows every agent of the session: queued, on screen, off screen and
finished, in the order they were created.

Columns: ID; # the pane number on screen (qN = position N in the queue,
- = off screen); STATE; TIME (how long it has run, or has waited in the
queue); EXIT (exit code once finished); TITLE; WHY (what said so: an exit,
a hook, a bell, output activity).

--json prints the full records (the same objects as the socket's agent.list).`,
		Example: `  agentgrid list
  agentgrid list --json | jq -r '.[] | select(.state == "waiting") | .id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withClient(cmd, func(ctx context.Context, c *control.Client) error {
				agents, err := c.List(ctx)
				if err != nil {
					return fmt.Errorf("list: %w", err)
				}
				if asJSON {
					if agents == nil {
						agents = []control.AgentInfo{}
					}
					return writeJSON(cmd.OutOrStdout(), agents)
				}
				if tree {
					return writeAgentTree(cmd.OutOrStdout(), agents, time.Now())
				}
				return writeAgentTable(cmd.OutOrStdout(), agents, time.Now())
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	cmd.Flags().BoolVar(&tree, "tree", false, "draw the family tree: each agent under the one that started it")
	return cmd
}

func newWaitCmd() *cobra.Command {
	var (
		timeout, until string
		asJSON, anyOne bool
	)
	cmd := &cobra.Command{
		Use:   "wait ID... [--timeout D] [--until exit|turn|idle|waiting|any] [--any]",
		Short: "Wait until agents finish; exit with the agent's exit status",
		Long: `wait blocks until every agent given has finished (done, failed or killed).

The exit status is the agent's exit code; with several agents, the first
non-zero one in the order given. An agent that could not start or was killed
without an exit code counts as 1. With --timeout, wait gives up after that
long, reports the agents still running on stderr and exits with 124 (like
timeout(1)); the agents keep running. Interrupting wait does not stop them
either.

--until waits for something else than the exit: turn (the agent CLI
finished the turn it was prompted for: its end-of-turn hook came after the
prompt, with something said; a freshly started, never prompted agent has
finished no turn), idle, waiting (for input), or any of these. An agent that
exits meets every condition. wait then exits 0 (124 on timeout); --json shows
the states, turn counts and last summaries. --any returns as soon as one of
the agents got there.`,
		Example: `  id=$(agentgrid spawn -- make test)
  agentgrid wait "$id" && echo passed

  # several agents, at most ten minutes
  agentgrid wait a3 a4 a5 --timeout 10m || echo "something failed or is still running"

  # until a claude agent answered its prompt
  agentgrid wait "$id" --until turn --json | jq -r '.agents[0].last_turn'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, ids []string) error {
			d, err := parseTimeout(timeout)
			if err != nil {
				return err
			}
			return withClient(cmd, func(ctx context.Context, c *control.Client) error {
				untilExit := until == "" || until == control.UntilExit
				var res control.WaitResult
				var err error
				if untilExit && !anyOne {
					res, err = c.Wait(ctx, ids, d)
				} else {
					res, err = c.WaitFor(ctx, ids, d, until, anyOne)
				}
				if err != nil {
					return fmt.Errorf("wait: %w", err)
				}
				if asJSON {
					if err := writeJSON(cmd.OutOrStdout(), res); err != nil {
						return err
					}
				}
				if res.TimedOut && !untilExit {
					return exitError{exitTimeout, fmt.Sprintf("timed out after %s before --until %s; now: %s", d, until, states(res.Agents))}
				}
				if res.TimedOut {
					return exitError{exitTimeout, fmt.Sprintf("timed out after %s; still running: %s", d, unfinished(res.Agents))}
				}
				if !untilExit {
					return nil
				}
				if code := waitStatus(res.Agents); code != 0 {
					return exitError{code, ""}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&timeout, "timeout", "", "give up after this long (30s, 5m, or plain seconds), exit 124")
	cmd.Flags().BoolVar(&asJSON, "json", false, "also print the agents' final records as JSON")
	cmd.Flags().StringVar(&until, "until", "exit", "wait for: exit, turn, idle, waiting or any")
	cmd.Flags().BoolVar(&anyOne, "any", false, "return when one agent got there, not all")
	return cmd
}

// parseTimeout reads a Go duration, or a plain number of seconds.
func parseTimeout(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	const most = 30 * 24 * time.Hour // what the session accepts
	tooLong := exitError{exitUsage, fmt.Sprintf("--timeout %q is longer than 720h (30 days), the most a wait may last", s)}
	if n, err := strconv.ParseFloat(s, 64); err == nil && n >= 0 {
		if n > most.Seconds() {
			return 0, tooLong
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, exitError{exitUsage, fmt.Sprintf("--timeout %q is not a duration such as 30s, 5m or 90", s)}
	}
	if d > most {
		return 0, tooLong
	}
	return d, nil
}

// waitStatus is the exit status of `agentgrid wait`: the first non-zero
// exit code among agents, 1 for an agent that ended without one.
func waitStatus(agents []control.AgentInfo) int {
	for _, a := range agents {
		code := 0
		switch {
		case a.ExitCode != nil:
			code = *a.ExitCode
		case a.State == agentstate.Failed, a.State == agentstate.Killed:
			code = 1
		}
		if code < 0 || code > 255 {
			code = 1
		}
		if code != 0 {
			return code
		}
	}
	return 0
}

func unfinished(agents []control.AgentInfo) string {
	var parts []string
	for _, a := range agents {
		if !a.State.Finished() {
			parts = append(parts, fmt.Sprintf("%s (%s)", clean(a.ID, 64), clean(string(a.State), 16)))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// autoWorktree is --worktree given without a name (or named auto, as the
// MCP tool's worktree="auto"): the session makes one from the title.
const autoWorktree = "auto"

func newCloseCmd() *cobra.Command {
	var tree, removeWorktree bool
	cmd := &cobra.Command{
		Use:   "close [--tree] ID...",
		Short: "Close agents: hang up their processes and remove their panes",
		Long: `close ends agents: each one's whole process group gets SIGHUP, then SIGTERM and
finally SIGKILL after the grace period (agents.kill_grace). A queued agent is
taken out of the queue. The agent's record, exit status and output log stay
available to list, explain and its log file. --tree closes each agent's
descendants too (the agents it started, theirs, ...), deepest first.
--remove-worktree then removes the git worktree each agent ran in (spawn
--worktree), unless it has uncommitted changes, which keep it; its branch stays.`,
		Example: `  agentgrid close a3
  agentgrid close $(agentgrid list --json | jq -r '.[] | select(.state == "idle") | .id')`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, ids []string) error {
			return withClient(cmd, func(ctx context.Context, c *control.Client) error {
				var errs []error
				closed := ids // the agents whose worktrees to remove
				if tree {
					errs = append(errs, closeTree(ctx, c, ids))
				} else {
					closed = nil
					for _, id := range ids {
						if err := c.CloseAgent(ctx, id); err != nil {
							errs = append(errs, fmt.Errorf("close %s: %w", id, err))
						} else {
							closed = append(closed, id)
						}
					}
				}
				if removeWorktree && len(closed) > 0 {
					errs = append(errs, removeWorktrees(ctx, c, closed, cmd.ErrOrStderr()))
				}
				return errors.Join(errs...)
			})
		},
	}
	cmd.Flags().BoolVar(&tree, "tree", false, "close each agent's descendants too, deepest first")
	cmd.Flags().BoolVar(&removeWorktree, "remove-worktree", false, "then remove each agent's git worktree (kept when it has uncommitted changes)")
	return cmd
}

func newSendCmd() *cobra.Command {
	var enter bool
	cmd := &cobra.Command{
		Use:   "send ID TEXT...",
		Short: "Type text into an agent's terminal",
		Long: `send writes TEXT to the agent's terminal exactly as given, as if typed: no
newline is added and no key names are translated. Several TEXT arguments are
joined with spaces. --enter presses Enter afterwards (a carriage return,
"\r", which is what the Enter key sends). To send control keys use the
shell's quoting, e.g. $'\x03' for ctrl+c.`,
		Example: `  # answer an agent's question
  agentgrid send a2 yes --enter

  # interrupt it
  agentgrid send a2 $'\x03'`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			text := strings.Join(args[1:], " ")
			if enter {
				text += "\r"
			}
			if text == "" {
				return exitError{exitUsage, "nothing to send: TEXT is empty and --enter is not set"}
			}
			return withClient(cmd, func(ctx context.Context, c *control.Client) error {
				if err := c.Send(ctx, args[0], text); err != nil {
					return fmt.Errorf("send to %s: %w", args[0], err)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&enter, "enter", false, `press Enter after the text (appends "\r")`)
	return cmd
}

func newCaptureCmd() *cobra.Command {
	var (
		escapes    bool
		scrollback int
	)
	cmd := &cobra.Command{
		Use:   "capture ID [-e] [--scrollback N]",
		Short: "Print an agent's screen as text",
		Long: `capture prints what the agent's pane shows, one line per row with trailing
blanks trimmed, like tmux capture-pane -p. -e keeps colours and attributes as
escape sequences; --scrollback N adds up to N lines of history above the
screen. It works for finished agents too (their last screen); the full
output is in the agent's log file (see agentgrid list --json, log_path).`,
		Example: `  agentgrid capture a1
  agentgrid capture a1 -e --scrollback 500 | less -R`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if scrollback < 0 {
				return exitError{exitUsage, fmt.Sprintf("--scrollback must not be negative, not %d", scrollback)}
			}
			return withClient(cmd, func(ctx context.Context, c *control.Client) error {
				text, err := c.Capture(ctx, args[0], escapes, scrollback)
				if err != nil {
					return fmt.Errorf("capture %s: %w", args[0], err)
				}
				_, err = io.WriteString(cmd.OutOrStdout(), sanitizeCapture(text, escapes))
				return err
			})
		},
	}
	cmd.Flags().BoolVarP(&escapes, "escapes", "e", false, "keep colours and attributes as escape sequences")
	cmd.Flags().IntVar(&scrollback, "scrollback", 0, "also print up to N lines of history above the screen")
	return cmd
}

func newExplainCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "explain ID",
		Short: "Say why an agent is in its state, and what it went through",
		Long: `explain shows an agent's state with its provenance: which source said so (the
process, a hook of the agent CLI, the terminal, your input, output activity),
why, since when and when it was last confirmed, the latest word of each
source, and the history of transitions.`,
		Example: `  agentgrid explain a2
  agentgrid explain a2 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withClient(cmd, func(ctx context.Context, c *control.Client) error {
				ex, err := c.Explain(ctx, args[0])
				if err != nil {
					return fmt.Errorf("explain %s: %w", args[0], err)
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), ex)
				}
				return writeExplanation(cmd.OutOrStdout(), ex, time.Now())
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

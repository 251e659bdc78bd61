package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentcli/registry"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/spf13/cobra"
)

// Time budget of `agentgrid hook`: it runs inside the agent CLI's own hook
// machinery, often before every tool call, so it must never hang. The CLI
// writes the payload and closes stdin at once and a live session answers in
// a few milliseconds, so these caps only matter on a loaded machine, where a
// dropped event would leave a wrong state on screen: they are generous enough
// not to drop events there. With no session the dial fails immediately.
//
// $AGENTGRID_HOOK_BUDGET (a duration such as "2s", at most a minute) raises
// every one of these waits to that value on a machine too slow for them;
// the session's agents inherit it from the environment agentgrid started in.
const (
	hookReadBudget = 250 * time.Millisecond
	hookSendBudget = 250 * time.Millisecond
)

// EnvHookBudget names the variable that sets agentgrid hook's waits.
const EnvHookBudget = "AGENTGRID_HOOK_BUDGET"

// maxHookBudget caps $AGENTGRID_HOOK_BUDGET: an agent CLI waits for its
// hook, so a typo must not hold it up for an hour.
const maxHookBudget = registry.MaxHookBudget

// hookBudget is how long the hook waits for one step whose default is def:
// $AGENTGRID_HOOK_BUDGET when it is a valid duration above zero (capped at
// a minute), else def. A value it cannot use is logged, and def used.
func hookBudget(getenv func(string) string, def time.Duration) time.Duration {
	v := strings.TrimSpace(getenv(EnvHookBudget))
	if v == "" {
		return def
	}
	d, ok := registry.HookBudget(v)
	if !ok {
		hookLog(getenv, "agentgrid hook: %s=%q is not a duration above zero such as 2s; using %v", EnvHookBudget, v, def)
		return def
	}
	return d
}

func addHookCommands(root *cobra.Command) {
	root.AddCommand(&cobra.Command{
		Use:   "hook claude|codex|gemini|opencode [PAYLOAD | --rewake]",
		Short: "Pass an agent CLI's hook event to the session (used by the generated hook settings)",
		Long: `agentgrid hook reads one hook payload of the named agent CLI — JSON on stdin for
Claude Code, Gemini CLI and the OpenCode plugin, the last argument for Codex's
notify program — turns it into a state signal for the agent in
$AGENTGRID_AGENT_ID and sends it to the session in $AGENTGRID_SOCKET, with the
agent's $AGENTGRID_TOKEN: an agent's hooks speak for that agent only.

For the events a CLI takes an answer to (Claude Code's PreToolUse,
PostToolUse, UserPromptSubmit and Stop, Codex's, Gemini CLI's BeforeTool,
AfterTool, BeforeAgent and AfterAgent, and the OpenCode plugin's
tool.execute.before and after, chat.message and session.idle) it asks the session's
[[policies]] and prints the CLI's own answer: a deny with its reason, added
context, or a block that keeps the turn going. The added context also carries
what the agents it started did since (finished turns, exits, waits); once it
printed that, it tells the session, which then counts them delivered. With no
decision, or none within a fifth of a second, it prints nothing and the CLI
goes ahead.
With --rewake after the CLI's name (Claude Code's generated settings run it as a
background "asyncRewake" Stop hook), it waits instead until every agent this
one started has finished and notices about them wait, prints them on stderr and
exits 2, which wakes the idle model with them; it exits 0 and prints nothing
when the agent's next turn starts first, a newer waiter replaces it, the agent
or the session ends, or after a day.
Otherwise it prints nothing (an agent CLI may show hook output to its model) and always
exits 0. With no session listening it returns at once, without reading stdin;
otherwise it gives up after a quarter of a second, so a broken session never
holds the agent up. Problems go to the agentgrid log file.

On a machine too slow for these waits, set AGENTGRID_HOOK_BUDGET to a duration
(e.g. 2s, at most 1m) in the environment agentgrid starts in: every wait of the
hook (reaching the session, reading the payload, the session's decision) is
then that long.

agentgrid writes the hook settings that call it for every agent it starts with a
kind (agentgrid spawn --kind claude) and for a known orchestrator (agentgrid --
claude); you do not need to configure it yourself.`,
		Example: `  # what the generated Claude Code settings run for each hook event
  agentgrid hook claude < payload.json`,
		Args:               cobra.ArbitraryArgs,
		DisableFlagParsing: true, // the payload is data, even when it starts with "-"
		SilenceUsage:       true,
		SilenceErrors:      true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if hookHelp(args) {
				return cmd.Help()
			}
			if code := runHookCommand(args); code != 0 {
				return exitError{code, ""}
			}
			return nil
		},
	})
}

// hookHelp tells a request for help (hook --help, hook claude --help) from a
// hook call: a payload argument is never a bare -h or --help.
func hookHelp(args []string) bool {
	return isHelp(args) || len(args) == 2 && isHelp(args[1:])
}

// runHookCommand runs `agentgrid hook ARGS` on the process's own stdin,
// stdout and environment and returns its exit status: 0, or the rewake
// waiter's 2 that wakes the model.
func runHookCommand(args []string) int {
	if len(args) == 2 && args[1] == RewakeFlag {
		return runRewake(args[0], os.Stdin, os.Stderr, os.Getenv, time.Now(), rewakeWait())
	}
	runHookTo(args, os.Stdin, os.Stdout, os.Getenv, time.Now())
	return 0
}

// hookConnect reaches the session the hook runs in ($AGENTGRID_SOCKET)
// within the send budget, with the agent's secret, which says who is
// speaking; id ($AGENTGRID_AGENT_ID) only names the target. The client is
// nil when the hook runs outside a session (nothing to tell) or the session
// cannot be reached (logged under the hook's name).
func hookConnect(getenv func(string) string, name string) (client *control.Client, id string) {
	socket, id := getenv("AGENTGRID_SOCKET"), getenv("AGENTGRID_AGENT_ID")
	if socket == "" || id == "" {
		return nil, ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), hookBudget(getenv, hookSendBudget))
	defer cancel()
	client, err := control.Connect(ctx, socket, getenv(control.EnvToken))
	if err != nil {
		hookLog(getenv, "%s for %s: reach the session at %s: %v", name, id, socket, err)
		return nil, ""
	}
	return client, id
}

// runHookTo does all of `agentgrid hook` and never fails: every problem is
// logged and swallowed. The CLI's answer, if the session decides one, goes
// to stdout.
func runHookTo(args []string, stdin io.Reader, stdout io.Writer, getenv func(string) string, start time.Time) {
	if len(args) == 0 {
		hookLog(getenv, "agentgrid hook: no agent CLI named; expected one of %s", strings.Join(registry.Adapters(), ", "))
		return
	}
	cli := args[0]
	adapter, ok := registry.Adapter(cli)
	if !ok {
		hookLog(getenv, "agentgrid hook: unknown agent CLI %q; expected one of %s", cli, strings.Join(registry.Adapters(), ", "))
		return
	}
	// Reach the session first: with none listening (it ended, the socket is
	// stale) there is nothing to tell, and the agent must not wait for us to
	// read a stdin it may never close.
	client, id := hookConnect(getenv, "agentgrid hook "+cli)
	if client == nil {
		return
	}
	defer client.Close()
	var payload []byte
	if adapter.PayloadInArgs() && len(args) > 1 {
		payload = []byte(args[len(args)-1])
	} else {
		var ok bool
		read := hookBudget(getenv, hookReadBudget)
		payload, ok = readBounded(stdin, registry.MaxPayload, start.Add(read))
		if !ok {
			hookLog(getenv, "agentgrid hook %s: no complete payload on stdin within %v", cli, read)
			return
		}
	}
	sig, err := registry.Adapt(cli, payload)
	if err != nil {
		hookLog(getenv, "agentgrid hook %s for %s: %v", cli, id, err)
		return
	}
	if ask, ok, err := registry.Ask(cli, payload); err == nil && ok {
		answer(client, stdout, getenv, start, cli, id, sig, ask)
		return
	}
	if sig.Empty() {
		return // an event the adapter does not map
	}
	sig.At = start
	// A notification: the session sends no reply to wait for.
	ctx, cancel := context.WithTimeout(context.Background(), hookBudget(getenv, hookSendBudget))
	defer cancel()
	if err := client.Notify(ctx, control.MethodAgentSignal, control.SignalParams{ID: id, CLI: cli, Signal: sig}); err != nil {
		hookLog(getenv, "agentgrid hook %s for %s: %v", cli, id, err)
	}
}

// readBounded reads r to EOF, up to max+1 bytes, until deadline. ok is false
// when the writer did not finish in time or sent more than max bytes.
func readBounded(r io.Reader, max int, deadline time.Time) ([]byte, bool) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
		done <- result{b, err}
	}()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case res := <-done:
		return res.b, res.err == nil && len(res.b) <= max
	case <-timer.C:
		// The reader goroutine dies with the process.
		return nil, false
	}
}

// hookLog appends one line to the agentgrid log file in the state
// directory (log.file is not read: the hook does not load the config); it
// never prints.
func hookLog(getenv func(string) string, format string, args ...any) {
	dir := config.StateDirFrom(getenv)
	if dir == "" {
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, config.LogFileName), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	msg := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	fmt.Fprintf(f, "time=%s level=WARN msg=%q\n", time.Now().Format(time.RFC3339Nano), msg)
}

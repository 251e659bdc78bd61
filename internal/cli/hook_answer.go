package cli

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentcli/registry"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// hookDecideBudget bounds the wait for the session's decision: a hook that
// gets none in time lets the CLI go ahead (and logs the miss), so a slow
// session never holds up a tool ($AGENTGRID_HOOK_BUDGET sets it otherwise).
const hookDecideBudget = 200 * time.Millisecond

// EnvHookDeadline names the variable in which the OpenCode plugin tells
// the hook when it stops waiting for its answer (Unix milliseconds).
const EnvHookDeadline = "AGENTGRID_HOOK_DEADLINE"

// answerMargin is how long before its deadline the hook last prints an
// answer: the time to write it and for the reader to take it.
const answerMargin = 250 * time.Millisecond

// answerDeadline is when the CLI stops reading the hook's answer: the
// plugin's deadline when it gives one, else the timeout agentgrid's
// settings give the hook from its start, which follows the same
// $AGENTGRID_HOOK_BUDGET the hook's waits do.
func answerDeadline(getenv func(string) string, start time.Time) time.Time {
	if ms, err := strconv.ParseInt(strings.TrimSpace(getenv(EnvHookDeadline)), 10, 64); err == nil && ms > 0 {
		return time.UnixMilli(ms)
	}
	return start.Add(registry.HookTimeout(getenv(EnvHookBudget)))
}

// answer sends an answerable event (its signal and what it asks) to the
// session and prints the CLI's answer to the decision, if any.
func answer(client *control.Client, stdout io.Writer, getenv func(string) string, start time.Time, cli, id string, sig agentstate.Signal, ask agentstate.Ask) {
	ctx, cancel := context.WithTimeout(context.Background(), hookBudget(getenv, hookDecideBudget))
	defer cancel()
	d, err := client.Decide(ctx, control.DecideParams{ID: id, CLI: cli, Signal: sig, Ask: ask, Printed: readPrinted(getenv)})
	var rpcErr *control.RPCError
	if errors.As(err, &rpcErr) && rpcErr.Code == control.CodeMethodNotFound {
		// A session older than agent.decide: it still takes the signal.
		if !sig.Empty() {
			err = client.Notify(ctx, control.MethodAgentSignal, control.SignalParams{ID: id, CLI: cli, Signal: sig})
		}
		if err == nil {
			return
		}
	}
	if err != nil {
		hookLog(getenv, "agentgrid hook %s for %s: no decision at %s, the agent goes ahead: %v", cli, id, ask.Point, err)
		return
	}
	out := registry.Answer(cli, ask, d)
	if len(out) == 0 {
		return
	}
	if late := time.Until(answerDeadline(getenv, start)); late < answerMargin {
		// The CLI has stopped reading (or is about to): an answer printed
		// now would be lost, and with it the notices it carries. Printing
		// nothing leaves them to be offered again.
		hookLog(getenv, "agentgrid hook %s for %s: the decision at %s came too late for the agent to read it; not printed", cli, id, ask.Point)
		return
	}
	if _, err := stdout.Write(append(out, '\n')); err != nil || d.Notices == 0 {
		return
	}
	// The notices about its children reached the CLI: say so, or the
	// session offers them again once their hold ends.
	ackPrinted(client, getenv, cli, id, d.Notices)
}

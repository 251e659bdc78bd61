package cli

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentcli/registry"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// hookDecideBudget bounds the wait for the session's decision: a hook that
// gets none in time lets the CLI go ahead (and logs the miss), so a slow
// session never holds up a tool ($AGENTGRID_HOOK_BUDGET sets it otherwise).
const hookDecideBudget = 200 * time.Millisecond

// answer sends an answerable event (its signal and what it asks) to the
// session and prints the CLI's answer to the decision, if any.
func answer(client *control.Client, stdout io.Writer, getenv func(string) string, cli, id string, sig agentstate.Signal, ask agentstate.Ask) {
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
	if _, err := stdout.Write(append(out, '\n')); err != nil || d.Notices == 0 {
		return
	}
	// The notices about its children reached the CLI: say so, or the
	// session offers them again once their hold ends.
	ackPrinted(client, getenv, cli, id, d.Notices)
}

package control

import (
	"context"
	"slices"
	"strings"
	"time"
)

// What agent.wait may wait for (WaitParams.Until).
const (
	UntilExit    = "exit"    // the process finished (the default)
	UntilTurn    = "turn"    // the agent CLI finished a turn it was prompted for
	UntilIdle    = "idle"    // the agent is idle
	UntilWaiting = "waiting" // the agent waits for input
	UntilAny     = "any"     // any of these
)

// WaitUntils lists the values of WaitParams.Until.
var WaitUntils = []string{UntilExit, UntilTurn, UntilIdle, UntilWaiting, UntilAny}

// UntilWaiter is what a Backend implements to wait for more than exits. Every
// condition also holds once an agent finished, so no wait outlives its agent.
type UntilWaiter interface {
	WaitUntil(ctx context.Context, ids []string, until string, anyOne bool) ([]AgentInfo, error)
}

// waiterFor picks the backend call for p.
func waiterFor(b Backend, p WaitParams) (func(context.Context, []string) ([]AgentInfo, error), *RPCError) {
	until := p.Until
	if until == "" {
		until = UntilExit
	}
	if !slices.Contains(WaitUntils, until) {
		return nil, rpcErrorf(CodeInvalidParams, "invalid params: until = %q: must be one of %s", p.Until, strings.Join(WaitUntils, ", "))
	}
	if until == UntilExit && !p.Any {
		return b.Wait, nil
	}
	w, ok := b.(UntilWaiter)
	if !ok {
		return nil, rpcErrorf(CodeServerError, "this session waits only for agents to exit; leave out until and any")
	}
	return func(ctx context.Context, ids []string) ([]AgentInfo, error) {
		return w.WaitUntil(ctx, ids, until, p.Any)
	}, nil
}

// WaitFor is Wait for a condition other than the exit (see UntilWaiter).
func (c *Client) WaitFor(ctx context.Context, ids []string, timeout time.Duration, until string, anyOne bool) (WaitResult, error) {
	p := WaitParams{IDs: ids, Until: until, Any: anyOne}
	if timeout > 0 {
		p.TimeoutMS = max(timeout.Milliseconds(), 1)
	}
	var out WaitResult
	err := c.Call(ctx, MethodAgentWait, p, &out)
	return out, err
}

package control

import (
	"context"
	"encoding/json"
)

// MethodAgentRewake is what `agentgrid hook claude --rewake` calls when its
// agent's turn ends: it waits until the agent should be woken with notices
// about the agents it started — it has some undelivered and every one it
// started has finished — and answers with them, or answers without them
// when there is nothing to wait for, a newer waiter for the same agent
// replaces this one, the agent's next turn starts first, the agent ends,
// the session ends, or timeout_ms passes. The notices it hands out are
// held for the waiter until it acknowledges them (agent.ack), as a hook's.
const MethodAgentRewake = "agent.rewake"

// RewakeParams are the parameters of agent.rewake.
type RewakeParams struct {
	ID string `json:"id"`
	// TimeoutMS bounds the wait; 0 asks once, at once.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// Printed is as in DecideParams.
	Printed int64 `json:"printed,omitempty"`
}

// RewakeResult is the answer of agent.rewake.
type RewakeResult struct {
	// Wake is true when the agent is to be woken with Message, which
	// carries its notices up to Notices (the Seq to acknowledge).
	Wake    bool   `json:"wake"`
	Message string `json:"message,omitempty"`
	Notices int64  `json:"notices,omitempty"`
	// Reason says why the wait ended without a wake.
	Reason string `json:"reason,omitempty"`
}

// The reasons an agent.rewake ends without waking its agent.
const (
	RewakeNothing  = "nothing to wait for" // no child live and no notice waiting
	RewakeReplaced = "replaced"            // a newer waiter for the same agent
	RewakeTurn     = "turn started"        // the agent's next turn started first
	RewakeEnded    = "agent ended"
	RewakeTimeout  = "timeout"
)

// RewakeBackend is what a Backend implements to answer agent.rewake.
type RewakeBackend interface {
	// Rewake waits for id's wake-up until ctx ends (then it answers
	// RewakeTimeout, not an error).
	Rewake(ctx context.Context, id string) (RewakeResult, error)
}

func init() { handlers[MethodAgentRewake] = handleRewake }

func handleRewake(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p RewakeParams
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	if p.ID == "" {
		return nil, missing("id")
	}
	// Only the agent's own hooks wait to wake it.
	if e := may(ctx, GrantSignal, p.ID); e != nil {
		return nil, e
	}
	if e := ackPrinted(ctx, s, p.ID, p.Printed); e != nil {
		return nil, e
	}
	timeout, rerr := durationParam("timeout_ms", p.TimeoutMS)
	if rerr != nil {
		return nil, rerr
	}
	rb, ok := s.b.(RewakeBackend)
	if !ok {
		return nil, rpcErrorf(CodeMethodNotFound, "this session wakes no agent")
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := rb.Rewake(wctx, p.ID)
	if err != nil {
		return nil, engineError(ctx, err)
	}
	return res, nil
}

// Rewake waits for the agent's wake-up (see MethodAgentRewake); ctx must
// outlast timeout.
func (c *Client) Rewake(ctx context.Context, p RewakeParams) (RewakeResult, error) {
	var r RewakeResult
	err := c.Call(ctx, MethodAgentRewake, p, &r)
	return r, err
}

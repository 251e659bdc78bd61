package control

import (
	"context"
	"encoding/json"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// MethodAgentDecide is what `agentgrid hook` calls for an event its CLI
// takes an answer to: the session applies the signal, as agent.signal does,
// and answers with its decision (an agentstate.Decision) from the policies.
const MethodAgentDecide = "agent.decide"

// DecideParams are the parameters of agent.decide: a signal like
// agent.signal's and what the event asks.
type DecideParams struct {
	ID     string            `json:"id"`
	CLI    string            `json:"cli"`
	Signal agentstate.Signal `json:"signal"`
	Ask    agentstate.Ask    `json:"ask"`
	// Printed is the Seq of the last notice the agent's hooks printed, as
	// they record it beside the session: it acknowledges again what an
	// earlier hook printed, in case that hook's agent.ack was lost, before
	// the session decides what to offer.
	Printed int64 `json:"printed,omitempty"`
}

// DeciderBackend is what a Backend implements to answer agent.decide. A
// session without it still takes the signal, and decides nothing.
type DeciderBackend interface {
	// Decide computes the decision for ask and applies sig.
	Decide(id, cli string, sig agentstate.Signal, ask agentstate.Ask) (agentstate.Decision, error)
}

// Caps on what an Ask may carry: the policies read a few paths and the
// start of a prompt, never megabytes.
const (
	maxAskPaths = 64
	maxAskText  = 64 << 10
)

func init() { handlers[MethodAgentDecide] = handleDecide }

func handleDecide(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p struct {
		ID      string          `json:"id"`
		CLI     string          `json:"cli"`
		Signal  json.RawMessage `json:"signal"`
		Ask     json.RawMessage `json:"ask"`
		Printed int64           `json:"printed"`
	}
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	sig, e := checkSignal(ctx, p.ID, p.CLI, p.Signal)
	if e != nil {
		return nil, e
	}
	var ask agentstate.Ask
	if len(p.Ask) > 0 && !isNull(p.Ask) {
		if err := json.Unmarshal(p.Ask, &ask); err != nil {
			return nil, rpcErrorf(CodeInvalidParams, "invalid params: ask must be an object with string fields")
		}
	}
	if len(ask.Paths) > maxAskPaths {
		ask.Paths = ask.Paths[:maxAskPaths]
	}
	ask.Prompt, ask.Said = capText(ask.Prompt), capText(ask.Said)
	if e := ackPrinted(ctx, s, p.ID, p.Printed); e != nil {
		return nil, e
	}
	d, ok := s.b.(DeciderBackend)
	if !ok {
		if err := s.b.Signal(p.ID, sig, p.CLI); err != nil {
			return nil, engineError(ctx, err)
		}
		return agentstate.Decision{}, nil
	}
	dec, err := d.Decide(p.ID, p.CLI, sig, ask)
	if err != nil {
		return nil, engineError(ctx, err)
	}
	return dec, nil
}

// ackPrinted acknowledges id's notices up to printed, which a hook says
// were printed (checkSignal or may has checked the caller speaks for id).
func ackPrinted(ctx context.Context, s *Server, id string, printed int64) *RPCError {
	if printed < 0 {
		return rpcErrorf(CodeInvalidParams, "invalid params: printed must not be negative")
	}
	na, ok := s.b.(NoticeAcker)
	if printed == 0 || !ok {
		return nil
	}
	if err := na.AckNotices(id, printed); err != nil {
		return engineError(ctx, err)
	}
	return nil
}

func capText(s string) string {
	if len(s) > maxAskText {
		return s[:maxAskText]
	}
	return s
}

// Decide asks the session about an answerable hook event (see
// MethodAgentDecide).
func (c *Client) Decide(ctx context.Context, p DecideParams) (agentstate.Decision, error) {
	var d agentstate.Decision
	err := c.Call(ctx, MethodAgentDecide, p, &d)
	return d, err
}

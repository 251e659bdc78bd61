package control

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// MethodAgentEvents returns the notices queued for an agent about the
// agents it started (finished turns, exits, waits) after a cursor, waiting
// for one up to a timeout. Reading them counts as delivering them: the
// agent's hooks do not repeat what it read.
const MethodAgentEvents = "agent.events"

// The kinds of notice a parent gets about its children.
const (
	NoticeTurn    = "turn"    // the child's CLI finished a turn
	NoticeExit    = "exit"    // the child's process ended (done, failed or killed)
	NoticeWaiting = "waiting" // the child waits for input (a permission, a question)
)

// Notice is one thing a parent learns about one of its children.
type Notice struct {
	// Seq orders a parent's notices; it is the cursor of agent.events.
	Seq      int64            `json:"seq"`
	Time     time.Time        `json:"time"`
	Agent    string           `json:"agent"`
	Event    string           `json:"event"`
	State    agentstate.State `json:"state,omitempty"`
	ExitCode *int             `json:"exit_code,omitempty"`
	// Text is the notice in one line: "a3 finished a turn: added pagination".
	Text string `json:"text"`
	// Delivered is when the notice reached its parent, and Via how ("the
	// hook at prompt", "the rewake hook", "agent_events"); zero while it
	// waits (agentgrid explain shows both).
	Delivered time.Time `json:"delivered,omitzero"`
	Via       string    `json:"via,omitempty"`
}

// EventsParams are the parameters of agent.events.
type EventsParams struct {
	// For is whose notices to read: the caller's own by default (the main
	// view's for a caller that is not an agent).
	For string `json:"for,omitempty"`
	// Cursor is the Seq of the last notice already seen; 0 for all kept.
	Cursor int64 `json:"cursor,omitempty"`
	// TimeoutMS is how long to wait for a notice after Cursor; 0 answers
	// at once.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
}

// EventsResult is the answer of agent.events.
type EventsResult struct {
	Events []Notice `json:"events"`
	// Cursor is the Seq of the last notice returned (the one given when
	// there is none), to pass to the next call.
	Cursor int64 `json:"cursor"`
	// Dropped counts notices after the cursor that the session no longer
	// keeps (it keeps the latest few hundred per agent).
	Dropped int64 `json:"dropped,omitempty"`
}

// NoticeBackend is what a Backend implements to answer agent.events.
type NoticeBackend interface {
	// Notices returns for's notices after cursor, waiting until there is
	// one or ctx ends (then it returns none, not an error).
	Notices(ctx context.Context, forID string, cursor int64) (EventsResult, error)
}

// MethodAgentAck is what `agentgrid hook` sends once it printed an answer
// that carried notices (agentstate.Decision.Notices): they count as
// delivered only then, so a hook that missed its budget loses none.
const MethodAgentAck = "agent.ack"

// AckParams are the parameters of agent.ack.
type AckParams struct {
	ID  string `json:"id"`
	Seq int64  `json:"seq"`
}

// NoticeAcker is what a Backend implements to take agent.ack.
type NoticeAcker interface {
	// AckNotices marks id's notices up to seq delivered.
	AckNotices(id string, seq int64) error
}

func init() {
	handlers[MethodAgentEvents] = handleEvents
	handlers[MethodAgentAck] = handleAck
}

func handleAck(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p AckParams
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	if p.ID == "" {
		return nil, missing("id")
	}
	if p.Seq < 0 {
		return nil, rpcErrorf(CodeInvalidParams, "invalid params: seq must not be negative")
	}
	// Only the agent's own hooks say what reached it.
	if e := may(ctx, GrantSignal, p.ID); e != nil {
		return nil, e
	}
	na, ok := s.b.(NoticeAcker)
	if !ok {
		return OKResult{OK: true}, nil
	}
	if err := na.AckNotices(p.ID, p.Seq); err != nil {
		return nil, engineError(ctx, err)
	}
	return OKResult{OK: true}, nil
}

// Ack tells the session that an answer carrying id's notices up to seq was
// printed (see MethodAgentAck).
func (c *Client) Ack(ctx context.Context, id string, seq int64) error {
	return c.Call(ctx, MethodAgentAck, AckParams{ID: id, Seq: seq}, nil)
}

func handleEvents(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p EventsParams
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	nb, ok := s.b.(NoticeBackend)
	if !ok {
		return nil, rpcErrorf(CodeMethodNotFound, "this session keeps no notices")
	}
	if p.For == "" {
		p.For = callerFrom(ctx).Agent()
		if p.For == "" {
			p.For = MainID
		}
	}
	if p.Cursor < 0 {
		return nil, rpcErrorf(CodeInvalidParams, "invalid params: cursor must not be negative")
	}
	if e := may(ctx, GrantRead, p.For); e != nil {
		return nil, e
	}
	timeout, rerr := durationParam("timeout_ms", p.TimeoutMS)
	if rerr != nil {
		return nil, rerr
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := nb.Notices(wctx, p.For, p.Cursor)
	if err != nil {
		return nil, engineError(ctx, err)
	}
	if res.Events == nil {
		res.Events = []Notice{}
	}
	return res, nil
}

// Events reads the notices queued for an agent (see MethodAgentEvents).
func (c *Client) Events(ctx context.Context, p EventsParams) (EventsResult, error) {
	var r EventsResult
	err := c.Call(ctx, MethodAgentEvents, p, &r)
	return r, err
}

package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// MethodAgentLoop starts, stops or resumes an agent's continuation loop:
// after each finished turn the session sends the agent its task again until
// the turn's final message carries the completion promise, or a bound is
// reached.
const MethodAgentLoop = "agent.loop"

// The operations of agent.loop (LoopParams.Op).
const (
	LoopStart  = "start"
	LoopStop   = "stop"
	LoopResume = "resume"
)

// The states of a loop (LoopInfo.Status).
const (
	LoopRunning   = "running"   // continuing after every finished turn
	LoopPaused    = "paused"    // waiting for an explicit resume
	LoopSucceeded = "succeeded" // the promise was found
	LoopStopped   = "stopped"   // a bound was reached, or it was stopped
)

// Bounds of a loop's spec: no loop runs without a count or a time bound,
// and none of them is absurd.
const (
	MaxLoopIterations = 10000
	MaxLoopFor        = 7 * 24 * time.Hour
	MaxLoopCooldown   = 24 * time.Hour
	MaxLoopPromise    = 200
	MaxLoopTask       = 16 << 10
)

// LoopSpec is what a loop is asked to do. Exactly one bound on the count is
// given: Max, or Forever (which needs ForMS, a bound on the time).
type LoopSpec struct {
	// Promise is the text the agent writes as <promise>TEXT</promise> in
	// its final message once the task is really done.
	Promise string `json:"promise"`
	// Max is the number of turns the loop runs at most, the first included.
	Max int `json:"max,omitempty"`
	// CooldownMS waits this long after a turn before the next one.
	CooldownMS int64 `json:"cooldown_ms,omitempty"`
	// Forever drops the count bound; ForMS must then bound the time.
	Forever bool `json:"forever,omitempty"`
	// ForMS stops the loop once it has run this long (0: no time bound).
	ForMS int64 `json:"for_ms,omitempty"`
	// Task is the original task, repeated in every continuation. Empty
	// means the prompt the agent was last given.
	Task string `json:"task,omitempty"`
	// WhileTodos goes on while the agent's todo list (Claude Code's
	// TodoWrite) has open items: a list with none is a success, and Stall
	// continuations in a row without an item done stop the loop. The
	// promise is optional then.
	WhileTodos bool `json:"while_todos,omitempty"`
	// Stall is that number of continuations (default DefaultLoopStall).
	Stall int `json:"stall,omitempty"`
}

// DefaultLoopStall is how many continuations without progress on the
// todo list stop a --while-todos loop.
const DefaultLoopStall = 3

// Stalls is the spec's Stall, defaulted.
func (s LoopSpec) Stalls() int {
	if s.Stall > 0 {
		return s.Stall
	}
	return DefaultLoopStall
}

// Cooldown is the spec's cooldown as a duration.
func (s LoopSpec) Cooldown() time.Duration { return time.Duration(s.CooldownMS) * time.Millisecond }

// For is the spec's time bound as a duration (0: none).
func (s LoopSpec) For() time.Duration { return time.Duration(s.ForMS) * time.Millisecond }

// Check reports the first thing wrong with a spec, as a sentence that says
// what to change; the CLI, the MCP server and the session all use it.
func (s LoopSpec) Check() error {
	p := strings.TrimSpace(s.Promise)
	switch {
	case s.Promise == "" && !s.WhileTodos:
		return errors.New("a loop needs a promise: the text the agent writes as <promise>TEXT</promise> when it is done (--promise TEXT), or --while-todos")
	case p != s.Promise || strings.ContainsAny(s.Promise, "<>\r\n"):
		return errors.New("the promise must be one line without < or > and without leading or trailing spaces")
	case utf8.RuneCountInString(s.Promise) > MaxLoopPromise:
		return fmt.Errorf("the promise is longer than %d characters; use a short word such as DONE", MaxLoopPromise)
	case len(s.Task) > MaxLoopTask:
		return fmt.Errorf("the task is longer than %d bytes; give a shorter one", MaxLoopTask)
	case s.Forever && s.Max != 0:
		return errors.New("give either --max N or --forever --for DURATION, not both")
	case s.Forever && s.ForMS <= 0:
		return errors.New("--forever needs --for DURATION: no loop runs without a bound")
	case !s.Forever && s.Max <= 0:
		return errors.New("--max N is required (at least 1): no loop runs without a bound; --forever --for DURATION bounds it by time instead")
	case s.Max > MaxLoopIterations:
		return fmt.Errorf("--max %d is more than %d iterations", s.Max, MaxLoopIterations)
	case s.ForMS < 0 || s.For() > MaxLoopFor:
		return fmt.Errorf("--for must be between 1ms and %s", MaxLoopFor)
	case s.CooldownMS < 0 || s.Cooldown() > MaxLoopCooldown:
		return fmt.Errorf("--cooldown must be between 0 and %s", MaxLoopCooldown)
	case s.Stall < 0 || s.Stall > 100:
		return errors.New("--stall must be between 1 and 100")
	case s.Stall > 0 && !s.WhileTodos:
		return errors.New("--stall counts continuations without progress on the todo list: add --while-todos")
	}
	return nil
}

// LoopInfo is an agent's loop as list, explain and the screen show it.
type LoopInfo struct {
	LoopSpec
	// Iteration is the turn the loop is in (1 is the first).
	Iteration int       `json:"iteration"`
	Status    string    `json:"status"`
	Started   time.Time `json:"started"`
	// Reason says why the loop is in its status, or what it did last.
	Reason  string    `json:"reason,omitempty"`
	Updated time.Time `json:"updated"`
	// Todos is the agent's todo list as last seen (with WhileTodos).
	Todos *agentstate.Todos `json:"todos,omitempty"`
}

// Label is the loop as a pane's border shows it: "loop 4/10", "loop 4/∞",
// with the status when it is not running.
func (l LoopInfo) Label() string {
	of := "∞"
	if l.Max > 0 {
		of = fmt.Sprint(l.Max)
	}
	s := fmt.Sprintf("loop %d/%s", l.Iteration, of)
	if l.WhileTodos && l.Todos != nil {
		s += fmt.Sprintf(" · %d open", l.Todos.Open)
	}
	if l.Status != LoopRunning {
		s += " " + l.Status
	}
	return s
}

// LoopParams are the parameters of agent.loop: the agent, the operation,
// and for start the spec.
type LoopParams struct {
	ID string `json:"id"`
	Op string `json:"op"`
	LoopSpec
}

// LooperBackend is what a Backend implements to run loops.
type LooperBackend interface {
	// Loop applies op to agent id's loop and returns the loop as it is now.
	Loop(id, op string, spec LoopSpec) (LoopInfo, error)
}

func init() { handlers[MethodAgentLoop] = handleLoop }

func handleLoop(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p LoopParams
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	if p.ID == "" {
		return nil, missing("id")
	}
	switch p.Op {
	case LoopStart:
		if err := p.LoopSpec.Check(); err != nil {
			return nil, rpcErrorf(CodeInvalidParams, "invalid params: %v", err)
		}
	case LoopStop, LoopResume:
	default:
		return nil, rpcErrorf(CodeInvalidParams, "invalid params: op = %q: must be one of start, stop, resume", p.Op)
	}
	// A loop types into the agent (or answers its hook) on the caller's
	// behalf: it needs the right to send to it.
	if e := may(ctx, GrantSend, p.ID); e != nil {
		return nil, e
	}
	l, ok := s.b.(LooperBackend)
	if !ok {
		return nil, rpcErrorf(CodeServerError, "this session runs no loops; update agentgrid and start a new session")
	}
	info, err := l.Loop(p.ID, p.Op, p.LoopSpec)
	if err != nil {
		return nil, engineError(ctx, err)
	}
	return info, nil
}

// Loop starts, stops or resumes agent id's loop (see MethodAgentLoop).
func (c *Client) Loop(ctx context.Context, p LoopParams) (LoopInfo, error) {
	var out LoopInfo
	err := c.Call(ctx, MethodAgentLoop, p, &out)
	return out, err
}

package control

import (
	"context"
	"encoding/json"
)

// MethodTmux runs one tmux command line for the `tmux` entry point of the
// agentgrid binary (see internal/tmuxshim): the engine parses and answers
// it, so the shim process is a single round trip.
const MethodTmux = "tmux.command"

// TmuxParams are the parameters of tmux.command.
type TmuxParams struct {
	// Argv is the command line after tmux's global flags (-S, -L, -f ...).
	Argv []string `json:"argv"`
	// Pane is the caller's $TMUX_PANE ("%3"), the target when none is given.
	Pane string `json:"pane,omitempty"`
	// Cwd is the caller's working directory, for panes without -c.
	Cwd string `json:"cwd,omitempty"`
	// Log asks the session to record the call in its state folder
	// (tmux-shim.log); the shim sets it when AGENTGRID_TMUX_LOG=1.
	Log bool `json:"log,omitempty"`
}

// TmuxResult is what the shim prints and its exit status.
type TmuxResult struct {
	Stdout string `json:"stdout,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	Exit   int    `json:"exit"`
}

// TmuxBackend is what a Backend implements to answer tmux.command.
type TmuxBackend interface {
	Tmux(ctx context.Context, c Caller, p TmuxParams) TmuxResult
}

func init() { handlers[MethodTmux] = handleTmux }

func handleTmux(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	tb, ok := s.b.(TmuxBackend)
	if !ok {
		return nil, rpcErrorf(CodeMethodNotFound, "this session does not answer tmux commands")
	}
	var p TmuxParams
	if len(params) > 0 && !isNull(params) {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, rpcErrorf(CodeInvalidParams, "invalid params: %v", err)
		}
	}
	if len(p.Argv) > 1024 {
		return nil, rpcErrorf(CodeInvalidParams, "invalid params: a tmux command line has at most 1024 words")
	}
	return tb.Tmux(ctx, callerFrom(ctx), p), nil
}

// Tmux runs one tmux command line in the session.
func (c *Client) Tmux(ctx context.Context, p TmuxParams) (TmuxResult, error) {
	var r TmuxResult
	err := c.Call(ctx, MethodTmux, p, &r)
	return r, err
}

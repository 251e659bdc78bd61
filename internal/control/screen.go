package control

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// ScreenSource is what the session shows on its terminal, for watchers
// (agentgrid watch): the UI implements it. A session without one answers
// session.screen with an error.
type ScreenSource interface {
	// NextFrame returns the first frame newer than after (after 0: the
	// current one), waiting for it until ctx ends; then it returns the
	// current frame, if any, with ctx's error.
	NextFrame(ctx context.Context, after uint64) (ScreenFrame, error)
}

// ScreenFrame is one frame of the session's screen, as drawn on its
// terminal.
type ScreenFrame struct {
	// Seq numbers the frames; a later frame has a larger one.
	Seq  uint64 `json:"seq"`
	Cols int    `json:"cols"`
	Rows int    `json:"rows"`
	// Lines are the rows, each Cols cells wide, colours and attributes as
	// SGR sequences.
	Lines []string `json:"lines"`
	// Cursor is where the session shows the cursor; nil when hidden.
	Cursor *ScreenCursor `json:"cursor,omitempty"`
}

// ScreenCursor is a cell position, from 0.
type ScreenCursor struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// ScreenParams are the parameters of session.screen: the reply is the first
// frame after After (0: the current frame), sent as soon as there is one.
// With TimeoutMS the wait ends then, and the reply is the current frame
// (its Seq equal to After when nothing changed).
type ScreenParams struct {
	After     uint64 `json:"after,omitempty"`
	TimeoutMS int64  `json:"timeout_ms,omitempty"`
}

// errNoScreen is session.screen's answer in a session that draws nothing.
var errNoScreen = errors.New("this session has no screen to watch (it runs without a terminal UI)")

func handleScreen(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p ScreenParams
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	timeout, rerr := durationParam("timeout_ms", p.TimeoutMS)
	if rerr != nil {
		return nil, rerr
	}
	// The screen shows the main view and every pane.
	if e := may(ctx, GrantRead, MainID); e != nil {
		return nil, e
	}
	if s.o.Screen == nil {
		return nil, &RPCError{Code: CodeServerError, Message: errNoScreen.Error()}
	}
	wctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	f, err := s.o.Screen.NextFrame(wctx, p.After)
	if err == nil {
		return f, nil
	}
	if ctx.Err() == nil && errors.Is(wctx.Err(), context.DeadlineExceeded) && f.Seq > 0 {
		// The timeout is an answer: the frame as it stands.
		return f, nil
	}
	return nil, engineError(ctx, err)
}

// Screen returns the first frame of the session's screen after seq after
// (0: the current one), waiting up to timeout for it (0: until there is
// one, or ctx ends).
func (c *Client) Screen(ctx context.Context, after uint64, timeout time.Duration) (ScreenFrame, error) {
	var f ScreenFrame
	err := c.Call(ctx, MethodSessionScreen, ScreenParams{After: after, TimeoutMS: timeout.Milliseconds()}, &f)
	return f, err
}

package control

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// handler runs one method. It returns the result to encode, or an error object.
type handler func(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError)

var handlers = map[string]handler{
	MethodSessionInfo:  handleSessionInfo,
	MethodAgentSpawn:   handleSpawn,
	MethodAgentList:    handleList,
	MethodAgentGet:     handleGet,
	MethodAgentWait:    handleWait,
	MethodAgentClose:   handleClose,
	MethodAgentSend:    handleSend,
	MethodAgentCapture: handleCapture,
	MethodAgentExplain: handleExplain,
	MethodAgentSignal:  handleSignal,
	MethodStatusSet:    handleStatusSet,
}

// handleLine answers one line: a request, a notification or a batch. It
// returns the encoded reply, or nil when none is due.
func (s *Server) handleLine(ctx context.Context, line []byte) []byte {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if !json.Valid(line) {
		return encodeResponse(errorResponse(nil, rpcErrorf(CodeParseError, "parse error: the line is not valid JSON")))
	}
	if line[0] != '[' {
		resp := s.handleMessage(ctx, line)
		if resp == nil {
			return nil
		}
		return encodeResponse(resp)
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(line, &batch); err != nil {
		return encodeResponse(errorResponse(nil, rpcErrorf(CodeParseError, "parse error: %v", err)))
	}
	if len(batch) == 0 {
		return encodeResponse(errorResponse(nil, rpcErrorf(CodeInvalidRequest, "invalid request: an empty batch")))
	}
	var replies []*Response
	for _, m := range batch {
		if r := s.handleMessage(ctx, m); r != nil {
			replies = append(replies, r)
		}
	}
	if len(replies) == 0 {
		return nil
	}
	out, err := json.Marshal(replies)
	if err != nil {
		return encodeResponse(errorResponse(nil, rpcErrorf(CodeInternalError, "internal error: encode the batch reply: %v", err)))
	}
	return out
}

// handleMessage validates one JSON-RPC message and runs it. It returns nil
// for a valid notification.
func (s *Server) handleMessage(ctx context.Context, raw json.RawMessage) *Response {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return errorResponse(nil, rpcErrorf(CodeInvalidRequest, "invalid request: a JSON-RPC request must be a JSON object"))
	}
	id, hasID := fields["id"]
	if hasID && !ValidID(id) {
		return errorResponse(nil, rpcErrorf(CodeInvalidRequest, "invalid request: id must be a string, a number or null"))
	}
	var version string
	if err := json.Unmarshal(fields["jsonrpc"], &version); err != nil || version != "2.0" {
		return errorResponse(id, rpcErrorf(CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`))
	}
	var method string
	if err := json.Unmarshal(fields["method"], &method); err != nil || method == "" {
		return errorResponse(id, rpcErrorf(CodeInvalidRequest, `invalid request: "method" must be a non-empty string`))
	}
	params := fields["params"]
	if len(params) > 0 && params[0] != '{' && params[0] != '[' && !isNull(params) {
		return errorResponse(id, rpcErrorf(CodeInvalidRequest, `invalid request: "params" must be an object`))
	}

	ctx, rerr := s.identify(ctx, method, fields["token"])
	if rerr != nil {
		if !hasID {
			return nil
		}
		return errorResponse(id, rerr)
	}
	result, rerr := s.call(ctx, method, params)
	if !hasID {
		return nil
	}
	if rerr != nil {
		return errorResponse(id, rerr)
	}
	out, err := json.Marshal(result)
	if err != nil {
		return errorResponse(id, rpcErrorf(CodeInternalError, "internal error: encode the result of %s: %v", method, err))
	}
	return &Response{JSONRPC: "2.0", ID: id, Result: out}
}

// peerOf describes the process that opened c, for requests without a
// token; nil when the backend does not tell callers apart.
func (s *Server) peerOf(c *net.UnixConn) *Peer {
	auth, ok := s.b.(Authorizer)
	if !ok {
		return nil
	}
	return newPeer(c, auth.IsAgentSession)
}

// identify asks the backend who sent a request, from its token and the
// process at the other end of the connection, and records the caller in ctx.
func (s *Server) identify(ctx context.Context, method string, raw json.RawMessage) (context.Context, *RPCError) {
	var token string
	if len(raw) > 0 && !isNull(raw) {
		if err := json.Unmarshal(raw, &token); err != nil {
			return ctx, rpcErrorf(CodeInvalidRequest, `invalid request: "token" must be a string`)
		}
	}
	auth, ok := s.b.(Authorizer)
	if !ok {
		return withCaller(ctx, FullControl), nil
	}
	peer := peerFrom(ctx)
	c, err := auth.Authorize(Identity{Token: token, Peer: peer})
	if err != nil {
		s.log.Warn("control socket: request refused", "method", method, "pid", peer.PID(), "token", token != "", "err", err)
		return ctx, &RPCError{Code: CodeForbidden, Message: err.Error()}
	}
	return withCaller(ctx, c), nil
}

// may checks that the request's caller may do act to the agent target.
func may(ctx context.Context, act, target string) *RPCError {
	if err := callerFrom(ctx).May(act, target); err != nil {
		return &RPCError{Code: CodeForbidden, Message: err.Error()}
	}
	return nil
}

// call runs a method; a panic in it becomes an internal error instead of
// taking the session down.
func (s *Server) call(ctx context.Context, method string, params json.RawMessage) (result any, rerr *RPCError) {
	h, ok := handlers[method]
	if !ok {
		return nil, rpcErrorf(CodeMethodNotFound, "method not found: %q (known: %s)", method, strings.Join(methodNames(), ", "))
	}
	if e := mayTool(ctx, method); e != nil {
		return nil, e
	}
	if longPoll(method) && onReservedConn(ctx) {
		return nil, errTooManyConns()
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("control socket handler panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
			result, rerr = nil, rpcErrorf(CodeInternalError, "internal error in %s: %v", method, p)
		}
	}()
	return h(ctx, s, params)
}

func methodNames() []string {
	return []string{MethodSessionInfo, MethodAgentSpawn, MethodAgentList, MethodAgentGet, MethodAgentWait,
		MethodAgentClose, MethodAgentSend, MethodAgentCapture, MethodAgentExplain, MethodAgentSignal, MethodAgentDecide, MethodAgentLoop, MethodStatusSet, MethodSessionKinds, MethodAgentEvents, MethodAgentAck, MethodAgentRewake, MethodSessionAttach}
}

func isNull(b json.RawMessage) bool { return string(b) == "null" }

func errorResponse(id json.RawMessage, e *RPCError) *Response {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return &Response{JSONRPC: "2.0", ID: id, Error: e}
}

func encodeResponse(r *Response) []byte {
	out, err := json.Marshal(r)
	if err != nil {
		// Only a broken Data payload can fail; drop it rather than the reply.
		out, _ = json.Marshal(errorResponse(r.ID, &RPCError{Code: CodeInternalError, Message: "internal error: encode the reply"}))
	}
	return out
}

// decodeParams decodes params into v strictly, naming the offending field.
func decodeParams(params json.RawMessage, v any) *RPCError {
	if len(params) == 0 || isNull(params) {
		params = json.RawMessage("{}")
	}
	if params[0] != '{' {
		return rpcErrorf(CodeInvalidParams, "invalid params: params must be an object with named fields")
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return rpcErrorf(CodeInvalidParams, "invalid params: %s must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		msg := strings.TrimPrefix(err.Error(), "json: ")
		return rpcErrorf(CodeInvalidParams, "invalid params: %s", msg)
	}
	return nil
}

// jsonKind names a Go kind the way a JSON user thinks of it.
func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	default:
		return k
	}
}

func missing(field string) *RPCError {
	return rpcErrorf(CodeInvalidParams, "invalid params: %s is required", field)
}

// engineError turns an engine error into the reply the client sees.
func engineError(ctx context.Context, err error) *RPCError {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		return rpcErrorf(CodeCancelled, "request cancelled: %v", err)
	}
	return &RPCError{Code: CodeServerError, Message: err.Error()}
}

func handleSessionInfo(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p struct{}
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	info := SessionInfo{
		Session: s.o.Session, Socket: s.path, PID: os.Getpid(), Version: s.o.Version,
		Started: s.started, Agents: len(s.b.List()),
	}
	if s.o.Attach != nil {
		info.Clients = s.o.Attach.Clients()
	}
	info.Tools, info.ToolsLimited = toolsOf(callerFrom(ctx))
	return info, nil
}

func handleSpawn(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p SpawnParams
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	if p.Kind != "" && p.Category != "" {
		return nil, rpcErrorf(CodeInvalidParams, "invalid params: give a kind or a category, not both")
	}
	if len(p.Argv) == 0 && p.Kind == "" && p.Category == "" {
		return nil, rpcErrorf(CodeInvalidParams, "invalid params: argv is required unless kind or category names a preset that supplies the command")
	}
	if len(p.Argv) > 0 && p.Argv[0] == "" {
		return nil, rpcErrorf(CodeInvalidParams, "invalid params: argv[0] (the program) is empty")
	}
	for k := range p.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, rpcErrorf(CodeInvalidParams, "invalid params: env has an invalid variable name %q", k)
		}
	}
	if p.Loop != nil {
		if err := p.Loop.Check(); err != nil {
			return nil, rpcErrorf(CodeInvalidParams, "invalid params: loop: %v", err)
		}
		if p.Prompt == "" && p.Loop.Task == "" {
			return nil, rpcErrorf(CodeInvalidParams, "invalid params: a loop needs its task: give a prompt")
		}
	}
	// The parent is who asked, never what params claim.
	p.Parent = callerFrom(ctx).Agent()
	info, err := s.b.Spawn(p)
	if err != nil {
		return nil, engineError(ctx, err)
	}
	return info, nil
}

func handleList(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p struct{}
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	list := s.b.List()
	// An agent lists the agents it may read: itself and those it started,
	// unless its kind is granted "read".
	list = slices.DeleteFunc(list, func(a AgentInfo) bool { return may(ctx, GrantRead, a.ID) != nil })
	if list == nil {
		list = []AgentInfo{}
	}
	return list, nil
}

// agentParam decodes the params of a method that names one agent, requires
// the id and checks that the caller has grant on that agent.
func agentParam(ctx context.Context, params json.RawMessage, grant string) (string, *RPCError) {
	var p IDParams
	if e := decodeParams(params, &p); e != nil {
		return "", e
	}
	if p.ID == "" {
		return "", missing("id")
	}
	if e := may(ctx, grant, p.ID); e != nil {
		return "", e
	}
	return p.ID, nil
}

func handleGet(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	id, e := agentParam(ctx, params, GrantRead)
	if e != nil {
		return nil, e
	}
	info, ok := s.b.Agent(id)
	if !ok {
		return nil, rpcErrorf(CodeNotFound, "no agent with id %q in this session", id)
	}
	return info, nil
}

func handleWait(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p WaitParams
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	if len(p.IDs) == 0 {
		return nil, rpcErrorf(CodeInvalidParams, "invalid params: ids must list at least one agent id")
	}
	for i, id := range p.IDs {
		if id == "" {
			return nil, rpcErrorf(CodeInvalidParams, "invalid params: ids[%d] is empty", i)
		}
		if e := may(ctx, GrantWait, id); e != nil {
			return nil, e
		}
	}
	timeout, rerr := durationParam("timeout_ms", p.TimeoutMS)
	if rerr != nil {
		return nil, rerr
	}
	wait, rerr := waiterFor(s.b, p)
	if rerr != nil {
		return nil, rerr
	}
	wctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	agents, err := wait(wctx, p.IDs)
	if err == nil {
		return WaitResult{Agents: agents}, nil
	}
	if ctx.Err() == nil && errors.Is(wctx.Err(), context.DeadlineExceeded) {
		// The timeout is an answer, not a failure: report where things stand.
		res := WaitResult{TimedOut: true, Agents: make([]AgentInfo, 0, len(p.IDs))}
		for _, id := range p.IDs {
			if info, ok := s.b.Agent(id); ok {
				res.Agents = append(res.Agents, info)
			}
		}
		return res, nil
	}
	return nil, engineError(ctx, err)
}

func handleClose(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	id, e := agentParam(ctx, params, GrantClose)
	if e != nil {
		return nil, e
	}
	if err := s.b.Close(id); err != nil {
		return nil, engineError(ctx, err)
	}
	return OKResult{OK: true}, nil
}

func handleSend(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p SendParams
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	if p.ID == "" {
		return nil, missing("id")
	}
	if p.Text == "" {
		return nil, rpcErrorf(CodeInvalidParams, "invalid params: text is empty; there is nothing to send")
	}
	if e := may(ctx, GrantSend, p.ID); e != nil {
		return nil, e
	}
	if err := s.b.Send(p.ID, []byte(p.Text)); err != nil {
		return nil, engineError(ctx, err)
	}
	return OKResult{OK: true}, nil
}

func handleCapture(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p CaptureParams
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	if p.ID == "" {
		return nil, missing("id")
	}
	if p.Scrollback < 0 || p.Scrollback > maxScrollback {
		return nil, rpcErrorf(CodeInvalidParams, "invalid params: scrollback must be between 0 and %d, not %d", maxScrollback, p.Scrollback)
	}
	if e := may(ctx, GrantRead, p.ID); e != nil {
		return nil, e
	}
	text, err := s.b.Capture(p.ID, p.Escapes, p.Scrollback)
	if err != nil {
		return nil, engineError(ctx, err)
	}
	return CaptureResult{Text: text}, nil
}

func handleExplain(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	id, e := agentParam(ctx, params, GrantRead)
	if e != nil {
		return nil, e
	}
	ex, err := s.b.Explain(id)
	if err != nil {
		return nil, engineError(ctx, err)
	}
	return ex, nil
}

func handleSignal(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p struct {
		ID     string          `json:"id"`
		CLI    string          `json:"cli"`
		Signal json.RawMessage `json:"signal"`
	}
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	sig, e := checkSignal(ctx, p.ID, p.CLI, p.Signal)
	if e != nil {
		return nil, e
	}
	// The engine records the source as "hook:<cli>".
	if err := s.b.Signal(p.ID, sig, p.CLI); err != nil {
		return nil, engineError(ctx, err)
	}
	return OKResult{OK: true}, nil
}

// checkSignal decodes and checks the signal of agent.signal and
// agent.decide, and whether the caller may signal for id.
func checkSignal(ctx context.Context, id, cli string, raw json.RawMessage) (agentstate.Signal, *RPCError) {
	// The signal itself is decoded leniently: sessions live long, and an
	// upgraded `agentgrid hook` that sends a field this session does not
	// know must still get its state through.
	var sig agentstate.Signal
	if len(raw) > 0 && !isNull(raw) {
		if err := json.Unmarshal(raw, &sig); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				return sig, rpcErrorf(CodeInvalidParams, "invalid params: signal.%s must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
			}
			return sig, rpcErrorf(CodeInvalidParams, "invalid params: signal must be an object")
		}
	}
	if id == "" {
		return sig, missing("id")
	}
	if cli == "" {
		return sig, missing("cli")
	}
	if sig.SubagentDelta < -maxSubagentDelta || sig.SubagentDelta > maxSubagentDelta {
		return sig, rpcErrorf(CodeInvalidParams, "invalid params: signal.subagent_delta must be between %d and %d", -maxSubagentDelta, maxSubagentDelta)
	}
	// An agent's hooks speak for that agent only.
	if e := may(ctx, GrantSignal, id); e != nil {
		return sig, e
	}
	return sig, nil
}

func handleStatusSet(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p StatusParams
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	if p.Key == "" {
		return nil, missing("key")
	}
	ttl, rerr := durationParam("ttl_ms", p.TTLMS)
	if rerr != nil {
		return nil, rerr
	}
	store := s.b.Status()
	if store == nil {
		return nil, rpcErrorf(CodeServerError, "this session has no status line")
	}
	caller := callerFrom(ctx)
	if err := caller.MayStatus(p.Key, p.Agent); err != nil {
		return nil, &RPCError{Code: CodeForbidden, Message: err.Error()}
	}
	if !caller.Full() {
		// Replacing or clearing an entry speaks for the agent it was for.
		for _, old := range store.Entries() {
			if old.Key == p.Key && old.Agent != "" {
				if err := caller.MayStatus(p.Key, old.Agent); err != nil {
					return nil, &RPCError{Code: CodeForbidden, Message: err.Error()}
				}
			}
		}
	}
	if p.Text == "" {
		store.Clear(p.Key)
		return OKResult{OK: true}, nil
	}
	source := p.Source
	if source == "" {
		source = "socket"
	}
	store.Set(p.Key, p.Text, p.Agent, source, ttl)
	return OKResult{OK: true}, nil
}

// String makes RPCError print usefully in logs and test failures.
func (e *RPCError) String() string { return fmt.Sprintf("%d: %s", e.Code, e.Message) }

package control

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// The control socket speaks JSON-RPC 2.0, one message per line, over a unix
// socket (see SocketPath). A session answers each connection's requests in
// order; a request without an id is a notification and gets no reply; a
// batch (a JSON array) gets an array of replies. For example:
//
//	-> {"jsonrpc":"2.0","id":1,"method":"agent.spawn","params":{"title":"tests","argv":["go","test","./..."]}}
//	<- {"jsonrpc":"2.0","id":1,"result":{"id":"a3","title":"tests","state":"running",...}}
//	-> {"jsonrpc":"2.0","id":2,"method":"agent.wait","params":{"ids":["a3"],"timeout_ms":50000}}
//	<- {"jsonrpc":"2.0","id":2,"result":{"agents":[{"id":"a3","state":"done","exit_code":0,...}],"timed_out":false}}
//	-> {"jsonrpc":"2.0","id":3,"method":"agent.get","params":{"id":"a9"}}
//	<- {"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"no agent with id \"a9\" in this session"}}
//
// A request from a process that agentgrid started carries that process's
// secret ($AGENTGRID_TOKEN) in a "token" member beside "method"; the session
// decides from it what the request may do (see identity.go). A request without
// one has full control if it comes from outside the session (the user's
// own shell) and is refused if it comes from inside.
//
// These are the method names a client may call.
const (
	MethodSessionInfo  = "session.info"
	MethodAgentSpawn   = "agent.spawn"
	MethodAgentList    = "agent.list"
	MethodAgentGet     = "agent.get"
	MethodAgentWait    = "agent.wait"
	MethodAgentClose   = "agent.close"
	MethodAgentSend    = "agent.send"
	MethodAgentCapture = "agent.capture"
	MethodAgentExplain = "agent.explain"
	MethodAgentSignal  = "agent.signal"
	MethodStatusSet    = "status.set"
)

// MaxMessageSize is the largest request line the server reads; a longer one
// gets an error and the connection is closed, so that one client cannot make
// the session hold an unbounded amount of memory.
const MaxMessageSize = 1 << 20

// JSON-RPC 2.0 error codes. The -32000 range is ours.
const (
	CodeParseError     = -32700 // the line is not JSON
	CodeInvalidRequest = -32600 // JSON, but not a JSON-RPC 2.0 request
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeServerError    = -32000 // the engine refused the request; the message says why
	CodeNotFound       = -32001 // no agent with that id
	CodeCancelled      = -32002 // the request was cancelled (client gone, session closing)
	CodeForbidden      = -32003 // the caller may not do this (see identity.go)
	// CodeTooManyConnections refuses a connection (or a long poll on a
	// connection admitted beyond the limit) when every slot is busy.
	CodeTooManyConnections = -32004
)

// Request is a JSON-RPC 2.0 request. A request without an id is a
// notification: the server runs it and sends no reply.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
	// Token is the caller's $AGENTGRID_TOKEN; empty outside the session.
	Token string `json:"token,omitempty"`
}

// Response is a JSON-RPC 2.0 response: exactly one of Result and Error is set.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// RPCError is the error object of a JSON-RPC 2.0 response. It is also the
// error the client returns when the server answers with one.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return e.Message }

func rpcErrorf(code int, format string, args ...any) *RPCError {
	return &RPCError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// SessionInfo is the result of session.info.
type SessionInfo struct {
	Session string    `json:"session"`
	Socket  string    `json:"socket"`
	PID     int       `json:"pid"`
	Version string    `json:"version,omitempty"`
	Started time.Time `json:"started"`
	Agents  int       `json:"agents"`
	// Clients is how many terminals are attached.
	Clients int `json:"clients"`
	// Tools are the MCP tools the caller may use, when its kind limits
	// them ([kinds.NAME] mcp_tools); ToolsLimited says the list applies
	// (an empty list then means none).
	Tools        []string `json:"tools,omitempty"`
	ToolsLimited bool     `json:"tools_limited,omitempty"`
}

// SpawnParams are the parameters of agent.spawn: title, cwd, kind, prompt,
// argv and env, exactly a SpawnRequest. Argv may be empty when
// Kind names a preset that supplies the command.
type SpawnParams = SpawnRequest

// IDParams are the parameters of agent.get, agent.close and agent.explain.
type IDParams struct {
	ID string `json:"id"`
}

// WaitParams are the parameters of agent.wait. TimeoutMS 0 waits without a
// limit (until every agent has finished or the client goes away).
type WaitParams struct {
	IDs       []string `json:"ids"`
	TimeoutMS int64    `json:"timeout_ms,omitempty"`
	// Until is what to wait for (see WaitUntils): "" and "exit" wait for the
	// agents to finish.
	Until string `json:"until,omitempty"`
	// Any returns as soon as one agent got there, not all of them.
	Any bool `json:"any,omitempty"`
}

// WaitResult is the result of agent.wait: the agents in the order asked for.
// TimedOut is set when the timeout passed first; Agents then holds their
// current states.
type WaitResult struct {
	Agents   []AgentInfo `json:"agents"`
	TimedOut bool        `json:"timed_out"`
}

// SendParams are the parameters of agent.send. Text is written to the agent's
// terminal exactly as given (a trailing "\r" presses Enter).
type SendParams struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// CaptureParams are the parameters of agent.capture. Escapes keeps colours and
// attributes as SGR sequences; Scrollback adds up to that many history lines
// above the visible screen.
type CaptureParams struct {
	ID         string `json:"id"`
	Escapes    bool   `json:"escapes,omitempty"`
	Scrollback int    `json:"scrollback,omitempty"`
}

// CaptureResult is the result of agent.capture.
type CaptureResult struct {
	Text string `json:"text"`
}

// SignalParams are the parameters of agent.signal, sent by `agentgrid hook`:
// CLI names the adapter (claude, codex, gemini, opencode) that produced Signal.
type SignalParams struct {
	ID     string            `json:"id"`
	CLI    string            `json:"cli"`
	Signal agentstate.Signal `json:"signal"`
}

// StatusParams are the parameters of status.set. An empty Text clears the
// entry. Agent scopes the entry to one agent; TTLMS 0 means it never expires.
// Source defaults to "socket".
type StatusParams struct {
	Key    string `json:"key"`
	Text   string `json:"text"`
	Agent  string `json:"agent,omitempty"`
	TTLMS  int64  `json:"ttl_ms,omitempty"`
	Source string `json:"source,omitempty"`
}

// OKResult is the result of methods that only succeed or fail.
type OKResult struct {
	OK bool `json:"ok"`
}

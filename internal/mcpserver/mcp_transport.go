package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/agentgrid/agentgrid/internal/control"
)

// maxMCPLine bounds one message from the MCP client; a longer line gets an
// error and is skipped.
const maxMCPLine = 4 << 20

// rpcMessage is one JSON-RPC 2.0 message from the client: a request (with
// an id), a notification (without), or a response, which the server
// ignores (it sends no requests).
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// rpcResponse is the server's answer to a request.
type rpcResponse struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id"`
	Result  any               `json:"result,omitempty"`
	Error   *control.RPCError `json:"error,omitempty"`
}

// lineConn is the MCP server's stdio connection: newline-delimited
// JSON-RPC in which a line that is not one valid message (garbage, a batch,
// NaN, a line over maxMCPLine) is answered with a JSON-RPC error and
// skipped, so the orchestrator never loses its tools over one bad line.
type lineConn struct {
	wmu sync.Mutex
	out io.Writer

	msgs    chan *rpcMessage
	readErr error         // why the input ended; set before done is closed
	done    chan struct{} // closed when the input ends
	closed  chan struct{}
	once    sync.Once
}

func newLineConn(in io.Reader, out io.Writer) *lineConn {
	c := &lineConn{
		out:    out,
		msgs:   make(chan *rpcMessage),
		done:   make(chan struct{}),
		closed: make(chan struct{}),
	}
	go c.readLoop(in)
	return c
}

func (c *lineConn) readLoop(in io.Reader) {
	defer close(c.done)
	lr := control.NewLineReader(in, maxMCPLine)
	for {
		line, err := lr.Next()
		if errors.Is(err, control.ErrLineTooLong) {
			c.reject(nil, errorf(control.CodeInvalidRequest, "message too long: the limit is %d bytes per line; it was skipped", maxMCPLine))
			if err = lr.Skip(); err == nil {
				continue
			}
		}
		if err != nil {
			c.readErr = err
			return
		}
		msg := c.decode(line)
		if msg == nil {
			continue
		}
		select {
		case c.msgs <- msg:
		case <-c.closed:
			return
		}
	}
}

// decode turns a line into a request or a notification, or answers it
// with an error (or ignores a response) and returns nil.
func (c *lineConn) decode(line []byte) *rpcMessage {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return nil
	case !json.Valid(line):
		c.reject(nil, errorf(control.CodeParseError, "parse error: the line is not valid JSON"))
		return nil
	case line[0] == '[':
		c.reject(nil, errorf(control.CodeInvalidRequest, "invalid request: batches are not supported; send one message per line"))
		return nil
	case line[0] != '{':
		c.reject(nil, errorf(control.CodeInvalidRequest, "invalid request: a JSON-RPC message must be a JSON object"))
		return nil
	}
	var m rpcMessage
	err := json.Unmarshal(line, &m)
	if err == nil && m.Method == "" && (m.Result != nil || m.Error != nil) && m.ID != nil {
		return nil // a response to nothing we asked
	}
	if err != nil || m.JSONRPC != "2.0" || m.Method == "" || m.ID != nil && !control.ValidID(m.ID) {
		var id json.RawMessage
		if err == nil && control.ValidID(m.ID) {
			id = m.ID
		}
		c.reject(id, errorf(control.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message"))
		return nil
	}
	return &m
}

// next is the next message from the client; io.EOF once its input ended.
func (c *lineConn) next(ctx context.Context) (*rpcMessage, error) {
	select {
	case msg := <-c.msgs:
		return msg, nil
	case <-c.done:
		if c.readErr != nil && !errors.Is(c.readErr, io.EOF) {
			return nil, c.readErr
		}
		return nil, io.EOF
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// reply answers the request id with a result or an error.
func (c *lineConn) reply(id json.RawMessage, result any, rerr *control.RPCError) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	r := rpcResponse{JSONRPC: "2.0", ID: id, Error: rerr}
	if rerr == nil {
		r.Result = result
	}
	b, err := json.Marshal(r)
	if err != nil {
		b, _ = json.Marshal(rpcResponse{JSONRPC: "2.0", ID: id, Error: errorf(control.CodeInternalError, "encode the answer: %v", err)})
	}
	return c.writeLine(b)
}

// reject answers a line that is not a valid message.
func (c *lineConn) reject(id json.RawMessage, e *control.RPCError) {
	_ = c.writeLine(control.ErrorLine(id, e))
}

func (c *lineConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.out.Write(append(b, '\n'))
	return err
}

// Close stops handing out messages. The reader of stdin cannot be
// interrupted; it ends with the input.
func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func errorf(code int, format string, args ...any) *control.RPCError {
	return &control.RPCError{Code: code, Message: fmt.Sprintf(format, args...)}
}

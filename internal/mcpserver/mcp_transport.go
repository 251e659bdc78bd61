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
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxMCPLine bounds one message from the MCP client; a longer line gets an
// error and is skipped.
const maxMCPLine = 4 << 20

// lineTransport is the MCP server's stdio transport: newline-delimited
// JSON-RPC in which a line that is not one valid message (garbage, a batch,
// NaN, a line over maxMCPLine) is answered with a JSON-RPC error and
// skipped. The SDK's stream transport ends the session on the first such
// line, and the orchestrator would lose its tools for the rest of the
// session.
type lineTransport struct {
	in  io.Reader
	out io.Writer
	// listed, when set, runs once after the first answer to the client's
	// tools/list is written: the client knows the tools from then on.
	listed func()
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{
		out:    t.out,
		listed: t.listed,
		msgs:   make(chan jsonrpc.Message),
		done:   make(chan struct{}),
		closed: make(chan struct{}),
	}
	go c.readLoop(t.in)
	return c, nil
}

// lineConn is one session over a lineTransport.
type lineConn struct {
	wmu sync.Mutex
	out io.Writer

	msgs    chan jsonrpc.Message
	readErr error         // why the input ended; set before done is closed
	done    chan struct{} // closed when the input ends
	closed  chan struct{}
	once    sync.Once

	// listed runs once, after the answer to the first tools/list request
	// (whose id lists holds) is written.
	listed     func()
	lmu        sync.Mutex
	lists      map[jsonrpc.ID]bool
	listedOnce sync.Once
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
		c.noteList(msg)
		select {
		case c.msgs <- msg:
		case <-c.closed:
			return
		}
	}
}

// decode turns a line into a message, or answers it with an error and
// returns nil.
func (c *lineConn) decode(line []byte) jsonrpc.Message {
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
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(line, &fields)
		id := fields["id"]
		if !control.ValidID(id) {
			id = nil
		}
		c.reject(id, errorf(control.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message"))
		return nil
	}
	return msg
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

// Read implements mcp.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
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

// Write implements mcp.Connection.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	if err := c.writeLine(b); err != nil {
		return err
	}
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error == nil && c.answersList(r.ID) {
		c.listedOnce.Do(c.listed)
	}
	return nil
}

// noteList remembers the id of a tools/list request, while its answer is
// awaited.
func (c *lineConn) noteList(msg jsonrpc.Message) {
	r, ok := msg.(*jsonrpc.Request)
	if c.listed == nil || !ok || r.Method != "tools/list" || !r.ID.IsValid() {
		return
	}
	c.lmu.Lock()
	defer c.lmu.Unlock()
	if c.lists == nil {
		c.lists = map[jsonrpc.ID]bool{}
	}
	c.lists[r.ID] = true
}

// answersList reports whether id is a tools/list request's, and forgets it.
func (c *lineConn) answersList(id jsonrpc.ID) bool {
	if c.listed == nil {
		return false
	}
	c.lmu.Lock()
	defer c.lmu.Unlock()
	if !c.lists[id] {
		return false
	}
	delete(c.lists, id)
	return true
}

// Close implements mcp.Connection. The reader of stdin cannot be
// interrupted; it ends with the input.
func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection; stdio has no session id.
func (c *lineConn) SessionID() string { return "" }

func errorf(code int, format string, args ...any) *control.RPCError {
	return &control.RPCError{Code: code, Message: fmt.Sprintf(format, args...)}
}

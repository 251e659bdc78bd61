package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/oneline"
)

// EnvSocket is the environment variable that points children of a session at
// its control socket.
const EnvSocket = "AGENTGRID_SOCKET"

// maxResponseSize bounds one reply line; captures with scrollback and escapes
// can be far larger than a request.
const maxResponseSize = 64 << 20

// maxIdleConns is how many connections a Client keeps open between calls.
const maxIdleConns = 4

// keepIdle is how long a Client keeps an unused connection for the next
// call: well under the server's idleTimeout, after which the server may close
// it.
const keepIdle = 2 * time.Second

// ErrNoSession is returned by DialEnv outside of an agentgrid session.
var ErrNoSession = errors.New("not inside an agentgrid session: AGENTGRID_SOCKET is not set; start one with `agentgrid` or pass --socket")

// Client talks to a session's control socket. It is safe for concurrent use:
// each call in flight has a connection of its own, so a long agent.wait never
// holds up other calls, and cancelling a call's context hangs up that
// connection, which cancels the request in the session too.
type Client struct {
	path   string
	token  string // sent with every request; see identity.go
	nextID atomic.Uint64

	mu     sync.Mutex
	idle   []*clientConn
	closed bool
}

type clientConn struct {
	c      net.Conn
	r      *LineReader
	idleAt time.Time // when it was put back for reuse
}

// Dial connects to the control socket at path and checks that it answers.
// Inside a session, requests to that session carry the process's secret
// (AGENTGRID_TOKEN), which decides what they may do; requests to another
// session carry none.
func Dial(path string) (*Client, error) {
	token := ""
	if sameSocket(path, os.Getenv(EnvSocket)) {
		token = TokenFromEnv()
	}
	return DialToken(path, token)
}

// DialToken connects to the control socket at path and sends token with
// every request: it acts as the agent agentgrid gave that token to ("" acts
// as the user, which only works from outside the session).
func DialToken(path, token string) (*Client, error) {
	return Connect(context.Background(), path, token)
}

// Connect is DialToken within ctx: a session that does not accept the
// connection before ctx ends is reported as unreachable.
func Connect(ctx context.Context, path, token string) (*Client, error) {
	if path == "" {
		return nil, errors.New("connect to an agentgrid session: the socket path is empty")
	}
	c := &Client{path: path, token: token}
	cc, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	c.put(cc)
	return c, nil
}

// DialEnv connects to the session named by AGENTGRID_SOCKET; outside a
// session it returns ErrNoSession.
func DialEnv() (*Client, error) {
	path := os.Getenv(EnvSocket)
	if path == "" {
		return nil, ErrNoSession
	}
	return Dial(path)
}

// Path is the socket the client talks to.
func (c *Client) Path() string { return c.path }

// Close hangs up every idle connection; calls in flight finish on their own.
func (c *Client) Close() error {
	c.mu.Lock()
	idle := c.idle
	c.idle = nil
	c.closed = true
	c.mu.Unlock()
	for _, cc := range idle {
		_ = cc.c.Close()
	}
	return nil
}

// ErrUntrustedSocket is what the errors of a refused socket match (with
// errors.Is): one in a directory another user could write to, or served by
// another user. Nothing was sent to it.
var ErrUntrustedSocket = errors.New("untrusted agentgrid socket")

// untrusted is a refusal whose message says why and what to do.
type untrusted struct{ msg string }

func (u untrusted) Error() string        { return u.msg }
func (u untrusted) Is(target error) bool { return target == ErrUntrustedSocket }

func untrustedf(format string, args ...any) error { return untrusted{fmt.Sprintf(format, args...)} }

// serverUID tells which user runs the server on the other end of a
// connection; tests replace it.
var serverUID = peerUID

// dial connects to the session, after checking that nobody else could have
// put the socket there, and checks that the server runs as this user before
// anything is sent: a request may carry commands and their environment.
func (c *Client) dial(ctx context.Context) (*clientConn, error) {
	if err := checkSocketDir(c.path); err != nil {
		return nil, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", c.path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("no agentgrid session is listening on %s (has it ended?)", c.path)
		}
		if errors.Is(err, os.ErrPermission) {
			return nil, fmt.Errorf("no permission to use the agentgrid session socket %s; it belongs to another user", c.path)
		}
		return nil, fmt.Errorf("connect to the agentgrid session at %s: %w", c.path, err)
	}
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		_ = conn.Close()
		return nil, fmt.Errorf("connect to the agentgrid session at %s: not a unix socket", c.path)
	}
	uid, err := serverUID(uc)
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("check who serves the agentgrid session socket %s: %w", c.path, err)
	}
	if checkPeerUID(uid, os.Getuid()) != nil {
		_ = conn.Close()
		return nil, untrustedf("the socket %s is served by uid %d, not by you (uid %d), so it is not your agentgrid session; nothing was sent. Remove it, or set XDG_RUNTIME_DIR to a private directory", c.path, uid, os.Getuid())
	}
	return &clientConn{c: conn, r: NewLineReader(conn, maxResponseSize)}, nil
}

// checkSocketDir refuses a socket in a directory where another user could
// have put it: the directory must be a real directory of this user that
// nobody else may write to (the server creates it so).
func checkSocketDir(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no agentgrid session is listening on %s (has it ended?)", path)
	}
	if err != nil {
		return fmt.Errorf("check the socket directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return untrustedf("the socket directory %s is not a directory (a symlink?), so the socket in it may not be your session's; remove it and start the session again", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return untrustedf("the socket directory %s belongs to uid %d, not to you (uid %d), so the socket in it may not be your session's; nothing was sent. Remove the directory, or set XDG_RUNTIME_DIR to a private directory", dir, st.Uid, os.Getuid())
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return untrustedf("the socket directory %s is writable by other users (mode %04o), so the socket in it may not be your session's; nothing was sent. Check it, then run chmod 700 %s", dir, perm, dir)
	}
	return nil
}

// get returns a connection for one call, reporting whether it was reused
// (a reused one may have been closed by the server meanwhile).
func (c *Client) get(ctx context.Context) (cc *clientConn, reused bool, err error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, false, errors.New("the agentgrid client is closed")
	}
	for len(c.idle) > 0 {
		n := len(c.idle)
		cc = c.idle[n-1]
		c.idle = c.idle[:n-1]
		if time.Since(cc.idleAt) < keepIdle {
			c.mu.Unlock()
			return cc, true, nil
		}
		_ = cc.c.Close()
	}
	c.mu.Unlock()
	cc, err = c.dial(ctx)
	return cc, false, err
}

func (c *Client) put(cc *clientConn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || len(c.idle) >= maxIdleConns {
		_ = cc.c.Close()
		return
	}
	cc.idleAt = time.Now()
	c.idle = append(c.idle, cc)
}

// Call sends one request and decodes its result into result (which may be
// nil). An error reply from the session is returned as *RPCError. The
// context's deadline and cancellation apply to the whole call.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	req, line, err := c.request(method, json.RawMessage(strconv.FormatUint(c.nextID.Add(1), 10)), params)
	if err != nil {
		return err
	}

	for attempt := 0; ; attempt++ {
		cc, reused, err := c.get(ctx)
		if err != nil {
			return err
		}
		err = c.exchange(ctx, cc, method, req, line, result)
		var stale *staleConn
		if !errors.As(err, &stale) {
			return err
		}
		if reused && attempt == 0 {
			// The server closed this connection while it sat unused (idle
			// timeout, or room for a newcomer) without reading the
			// request: send it again on a fresh one.
			continue
		}
		if stale.notice != nil {
			return stale.notice
		}
		return fmt.Errorf("%s: the agentgrid session at %s closed the connection without answering", method, c.path)
	}
}

// request encodes one request line; a nil id makes it a notification.
func (c *Client) request(method string, id json.RawMessage, params any) (Request, []byte, error) {
	req := Request{JSONRPC: "2.0", ID: id, Method: method, Token: c.token}
	if params != nil {
		p, err := json.Marshal(params)
		if err != nil {
			return req, nil, fmt.Errorf("%s: encode the parameters: %w", method, err)
		}
		req.Params = p
	}
	line, err := json.Marshal(req)
	if err != nil {
		return req, nil, fmt.Errorf("%s: encode the request: %w", method, err)
	}
	if len(line) > MaxMessageSize {
		return req, nil, fmt.Errorf("%s: the request is %d bytes, more than the %d the session accepts", method, len(line), MaxMessageSize)
	}
	return req, line, nil
}

// Notify sends a notification: a request without an id, which the session
// runs without answering. It returns once the request is written, so it
// cannot tell whether the session accepted it; what a caller that must not
// wait (a hook inside an agent CLI) needs. The context bounds the write.
// The connection is then hung up rather than reused, so that a slow
// notification never holds up a later call; the session still runs it.
//
// Without a token it is sent as a call and waits for the reply: the session
// tells a process outside it from one inside by looking the sender up while
// it reads the request, and a sender that is already gone by then counts as
// inside (so an agent cannot drop its token and quit to gain rights), which
// would refuse a tokenless notification from the user's own shell.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if c.token == "" {
		return c.Call(ctx, method, params, nil)
	}
	_, line, err := c.request(method, nil, params)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		cc, reused, err := c.get(ctx)
		if err != nil {
			return err
		}
		stop := context.AfterFunc(ctx, func() { _ = cc.c.SetWriteDeadline(time.Unix(1, 0)) })
		_, err = cc.c.Write(append(line, '\n'))
		if !stop() || ctx.Err() != nil {
			_ = cc.c.Close()
			return fmt.Errorf("%s: %w", method, ctx.Err())
		}
		_ = cc.c.Close()
		if err == nil {
			return nil
		}
		if reused && attempt == 0 && (errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)) {
			continue // the server closed the idle connection; use a fresh one
		}
		return fmt.Errorf("%s: send to the agentgrid session at %s: %w", method, c.path, err)
	}
}

// staleConn reports a connection that the server closed, or answered only
// with a notice about the connection itself, without answering the request.
type staleConn struct{ notice *RPCError }

func (s *staleConn) Error() string { return "the connection was closed before the request was read" }

// exchange sends one request on cc and decodes the reply; cc is put back for
// reuse or closed.
func (c *Client) exchange(ctx context.Context, cc *clientConn, method string, req Request, line []byte, result any) error {
	// Cancellation and the context's deadline unblock the call by expiring
	// the connection's deadline; the connection is then dropped, which tells
	// the session to stop the request. (Setting the context's deadline on
	// the connection directly would race with ctx.Err() becoming non-nil.)
	stop := context.AfterFunc(ctx, func() { _ = cc.c.SetDeadline(time.Unix(1, 0)) })
	reply, ioErr := roundTrip(cc, line)
	if !stop() || ctx.Err() != nil {
		_ = cc.c.Close()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
	if ioErr != nil {
		_ = cc.c.Close()
		if errors.Is(ioErr, io.EOF) || errors.Is(ioErr, syscall.EPIPE) || errors.Is(ioErr, syscall.ECONNRESET) {
			return &staleConn{}
		}
		return fmt.Errorf("%s: the agentgrid session at %s did not answer: %w", method, c.path, ioErr)
	}
	_ = cc.c.SetDeadline(time.Time{})

	var resp Response
	if err := json.Unmarshal(reply, &resp); err != nil {
		_ = cc.c.Close()
		return fmt.Errorf("%s: the session sent a reply that is not JSON-RPC: %w", method, err)
	}
	if resp.Error != nil {
		// The message is printed to the user's terminal.
		resp.Error.Message = oneline.Sanitize(resp.Error.Message, 1000)
		if resp.Error.Code == CodeTooManyConnections {
			resp.Error.Message = fmt.Sprintf("too many connections to session %s; close some of its clients (agentgrid watch, agentgrid wait) and retry", sessionOfSocket(c.path))
		}
	}
	if string(resp.ID) != string(req.ID) {
		// Out of step with the server; this connection cannot be trusted.
		_ = cc.c.Close()
		if resp.Error != nil && isNull(resp.ID) && resp.Error.Code != CodeTooManyConnections {
			// A notice about the connection itself (it sat idle too
			// long), not an answer to this request.
			return &staleConn{notice: resp.Error}
		}
		if resp.Error != nil {
			return resp.Error
		}
		return fmt.Errorf("%s: the session answered request %s instead of %s", method, oneline.Sanitize(string(resp.ID), 40), req.ID)
	}
	c.put(cc)
	if resp.Error != nil {
		return resp.Error
	}
	if result != nil {
		if err := json.Unmarshal(resp.Result, result); err != nil {
			return fmt.Errorf("%s: decode the result: %w", method, err)
		}
	}
	return nil
}

// sessionOfSocket is the session name in a socket path.
func sessionOfSocket(path string) string {
	return oneline.Sanitize(strings.TrimSuffix(filepath.Base(path), ".sock"), 64)
}

func roundTrip(cc *clientConn, line []byte) ([]byte, error) {
	if _, err := cc.c.Write(append(line, '\n')); err != nil {
		// A server that refused the connection (too many connections)
		// closed it before reading the request; its reason is waiting.
		if reply, rerr := cc.r.Next(); rerr == nil {
			return reply, nil
		}
		return nil, err
	}
	return cc.r.Next()
}

// SessionInfo describes the session behind the socket.
func (c *Client) SessionInfo(ctx context.Context) (SessionInfo, error) {
	var out SessionInfo
	err := c.Call(ctx, MethodSessionInfo, nil, &out)
	return out, err
}

// Spawn starts (or queues) an agent and returns its first snapshot.
func (c *Client) Spawn(ctx context.Context, p SpawnParams) (AgentInfo, error) {
	var out AgentInfo
	err := c.Call(ctx, MethodAgentSpawn, p, &out)
	return out, err
}

// List returns every agent of the session in creation order.
func (c *Client) List(ctx context.Context) ([]AgentInfo, error) {
	var out []AgentInfo
	err := c.Call(ctx, MethodAgentList, nil, &out)
	return out, err
}

// Agent returns one agent; an unknown id is an *RPCError with CodeNotFound.
func (c *Client) Agent(ctx context.Context, id string) (AgentInfo, error) {
	var out AgentInfo
	err := c.Call(ctx, MethodAgentGet, IDParams{ID: id}, &out)
	return out, err
}

// Wait blocks until every agent in ids has finished. With timeout > 0 the
// session answers after at most timeout with the current states and
// TimedOut set; the context can end the wait earlier.
func (c *Client) Wait(ctx context.Context, ids []string, timeout time.Duration) (WaitResult, error) {
	p := WaitParams{IDs: ids}
	if timeout > 0 {
		p.TimeoutMS = max(timeout.Milliseconds(), 1)
	}
	var out WaitResult
	err := c.Call(ctx, MethodAgentWait, p, &out)
	return out, err
}

// CloseAgent closes an agent: its process group gets SIGHUP, then SIGTERM and
// SIGKILL after the grace period.
func (c *Client) CloseAgent(ctx context.Context, id string) error {
	return c.Call(ctx, MethodAgentClose, IDParams{ID: id}, nil)
}

// Send writes text to the agent's terminal as-is ("\r" presses Enter).
func (c *Client) Send(ctx context.Context, id, text string) error {
	return c.Call(ctx, MethodAgentSend, SendParams{ID: id, Text: text}, nil)
}

// Capture returns the agent's screen as text, with up to scrollback history
// lines above it, keeping colours as SGR sequences when escapes is set.
func (c *Client) Capture(ctx context.Context, id string, escapes bool, scrollback int) (string, error) {
	var out CaptureResult
	err := c.Call(ctx, MethodAgentCapture, CaptureParams{ID: id, Escapes: escapes, Scrollback: scrollback}, &out)
	return out.Text, err
}

// Explain says why the agent is in its state: the source, when it was last
// confirmed, and the history of transitions.
func (c *Client) Explain(ctx context.Context, id string) (Explanation, error) {
	var out Explanation
	err := c.Call(ctx, MethodAgentExplain, IDParams{ID: id}, &out)
	return out, err
}

// Signal reports what an agent CLI's hook said about agent id; cli names the
// adapter that produced s.
func (c *Client) Signal(ctx context.Context, id, cli string, s agentstate.Signal) error {
	return c.Call(ctx, MethodAgentSignal, SignalParams{ID: id, CLI: cli, Signal: s}, nil)
}

// SetStatus sets a status line entry; an empty text clears it. agent scopes
// it to one agent ("" for the session); ttl 0 keeps it until replaced.
func (c *Client) SetStatus(ctx context.Context, key, text, agent string, ttl time.Duration) error {
	return c.SetStatusFrom(ctx, "", key, text, agent, ttl)
}

// SetStatusFrom is SetStatus naming the entry's source, which the status
// store and status_changed events carry ("" is "socket").
func (c *Client) SetStatusFrom(ctx context.Context, source, key, text, agent string, ttl time.Duration) error {
	p := StatusParams{Key: key, Text: text, Agent: agent, Source: source}
	if ttl > 0 {
		p.TTLMS = max(ttl.Milliseconds(), 1)
	}
	return c.Call(ctx, MethodStatusSet, p, nil)
}

// ClearStatus removes a status line entry.
func (c *Client) ClearStatus(ctx context.Context, key string) error {
	return c.SetStatus(ctx, key, "", "", 0)
}

// ErrorCode is the JSON-RPC error code of err, or 0 when err is not an
// error reply from the session.
func ErrorCode(err error) int {
	var re *RPCError
	if errors.As(err, &re) {
		return re.Code
	}
	return 0
}

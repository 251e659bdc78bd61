package control

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/agentgrid/agentgrid/internal/oneline"
	"github.com/agentgrid/agentgrid/internal/rawio"
)

// MethodSessionAttach turns the connection into an attach stream: a client
// (agentgrid attach, the terminal that started the session) sends its size
// and terminal in AttachParams, the session answers with one JSON-RPC reply
// line, and from then on both sides speak attach frames (see AttachStream),
// not JSON-RPC. It must be the connection's first request.
const MethodSessionAttach = "session.attach"

// AttachParams say who attaches: the terminal's size and the environment
// that names its capabilities (TERM, COLORTERM, TERM_PROGRAM, TMUX ...),
// and whether the client may only look (agentgrid attach --read-only).
type AttachParams struct {
	Cols     int      `json:"cols"`
	Rows     int      `json:"rows"`
	Env      []string `json:"env,omitempty"`
	ReadOnly bool     `json:"read_only,omitempty"`
}

// AttachResult is the reply to session.attach, before the frames start.
type AttachResult struct {
	Session string `json:"session"`
}

// AttachEnv lists the environment variables a client sends in
// AttachParams.Env: what the session's frame writer needs to know of the
// client's terminal, nothing else.
var AttachEnv = []string{"TERM", "COLORTERM", "TERM_PROGRAM", "TMUX", "NO_COLOR", "LANG", "LC_ALL", "LC_CTYPE"}

// Attacher serves attached clients; the UI implements it. Attach runs
// until the client detaches or goes away, or the session ends; the stream
// is closed when it returns. Closing the Server does not end it: the
// Attacher ends its clients itself.
type Attacher interface {
	Attach(ctx context.Context, s *AttachStream, p AttachParams)
	// Clients is how many clients are attached now.
	Clients() int
}

// Attach frame types. A frame is one type byte, a big-endian uint32
// length and that many bytes.
const (
	// From the client.
	FrameInput  = 'i' // bytes typed in the client's terminal
	FrameResize = 'r' // the client's new size: cols and rows, uint16 each
	FrameDetach = 'd' // the client leaves; the session goes on
	// From the session.
	FrameOutput = 'o' // bytes for the client's terminal (drawn from cells)
	FrameExit   = 'x' // the client should exit: the reason, one line
)

// maxFrame bounds one frame's payload, so a client cannot make the session
// hold an unbounded amount of memory.
const maxFrame = 1 << 20

// ErrFrameTooLong reports a frame longer than the limit.
var ErrFrameTooLong = errors.New("attach frame too long")

// AttachStream is one side of an attach connection: frames in, frames out.
// Reads come from one goroutine; writes may come from several.
type AttachStream struct {
	c  net.Conn
	r  *bufio.Reader
	wm sync.Mutex
	// writeTimeout bounds each write: a client that stops reading is
	// dropped rather than holding the writer forever (0: none).
	writeTimeout time.Duration
	// shutRead, once reads wait in poll(2) (WakeOnInput), shuts the
	// reading side: closing the socket alone would not wake the poll.
	shutRead func()
	// rewait, once reads can wait in poll(2), interrupts a read waiting
	// in Go's poller so that it waits again (Rewait).
	rewait func()
	// uc and rc, where c is a Unix socket, serve the raw reads and writes
	// (writeNow, WakeOnInput); nil otherwise.
	uc *net.UnixConn
	rc syscall.RawConn
}

// NewAttachStream wraps c; r, when not nil, holds bytes already read from c.
func NewAttachStream(c net.Conn, r *bufio.Reader) *AttachStream {
	if r == nil {
		r = bufio.NewReaderSize(c, 64<<10)
	}
	s := &AttachStream{c: c, r: r}
	if uc, ok := c.(*net.UnixConn); ok {
		if rc, err := uc.SyscallConn(); err == nil {
			s.uc, s.rc = uc, rc
		}
	}
	return s
}

// ReadFrame returns the next frame; the payload is valid until the next call.
func (s *AttachStream) ReadFrame(buf []byte) (typ byte, payload []byte, err error) {
	var hdr [5]byte
	if _, err := io.ReadFull(s.r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > maxFrame {
		return 0, nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrFrameTooLong, n, maxFrame)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(s.r, buf); err != nil {
		return 0, nil, err
	}
	return hdr[0], buf, nil
}

// WriteFrame sends one frame.
func (s *AttachStream) WriteFrame(typ byte, payload []byte) error {
	for len(payload) > maxFrame {
		if err := s.WriteFrame(typ, payload[:maxFrame]); err != nil {
			return err
		}
		payload = payload[maxFrame:]
	}
	b := make([]byte, 5, 5+len(payload))
	b[0] = typ
	binary.BigEndian.PutUint32(b[1:], uint32(len(payload)))
	b = append(b, payload...)
	s.wm.Lock()
	defer s.wm.Unlock()
	b, err := s.writeNow(b)
	if err != nil {
		_ = s.Close()
		return err
	}
	if len(b) == 0 {
		return nil
	}
	if s.writeTimeout > 0 {
		_ = s.c.SetWriteDeadline(time.Now().Add(s.writeTimeout))
	}
	_, err = s.c.Write(b)
	if s.writeTimeout > 0 && err == nil {
		// The deadline guards this write only: left armed, its timer would
		// wake an idle session writeTimeout after its last frame.
		_ = s.c.SetWriteDeadline(time.Time{})
	}
	if err != nil {
		// A client that stopped reading for writeTimeout, or is gone: hang
		// up, so that both ends learn it and the client is let go.
		_ = s.Close()
	}
	return err
}

// writeNow writes what the socket takes at once, with one raw system call
// (see rawio), and returns the rest: nearly always nothing, so a frame
// neither arms the write deadline's timer nor wakes Go's monitor. Where
// the connection is no Unix socket it writes nothing here.
func (s *AttachStream) writeNow(b []byte) ([]byte, error) {
	if s.rc == nil {
		return b, nil
	}
	var n int
	var errno syscall.Errno
	if err := s.rc.Write(func(fd uintptr) bool {
		n, errno = rawio.Write(fd, b)
		return true // one attempt; the rest waits under the deadline
	}); err != nil {
		return nil, err
	}
	switch errno {
	case 0:
		return b[n:], nil
	case syscall.EAGAIN:
		return b, nil
	}
	return nil, errno
}

// Write sends p as one output frame: the stream is the io.Writer a
// session's client program draws on.
func (s *AttachStream) Write(p []byte) (int, error) {
	if err := s.WriteFrame(FrameOutput, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Resize sends the client's new size.
func (s *AttachStream) Resize(cols, rows int) error {
	var b [4]byte
	binary.BigEndian.PutUint16(b[:2], uint16(min(max(cols, 0), 0xffff)))
	binary.BigEndian.PutUint16(b[2:], uint16(min(max(rows, 0), 0xffff)))
	return s.WriteFrame(FrameResize, b[:])
}

// ParseResize decodes a resize frame's payload.
func ParseResize(p []byte) (cols, rows int, ok bool) {
	if len(p) != 4 {
		return 0, 0, false
	}
	return int(binary.BigEndian.Uint16(p[:2])), int(binary.BigEndian.Uint16(p[2:])), true
}

// Close hangs up.
func (s *AttachStream) Close() error {
	if s.shutRead != nil {
		s.shutRead()
	}
	return s.c.Close()
}

// isAttach reports whether line is a session.attach request, cheaply: the
// full checks run when it is handled.
func isAttach(line []byte) bool {
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(line, &m) == nil && m.Method == MethodSessionAttach
}

// attachWriteTimeout is how long a write to an attached client may block
// before the client counts as gone.
const attachWriteTimeout = 30 * time.Second

// serveAttach answers a session.attach request on the connection's first
// line and, when it is accepted, hands the connection to the Attacher for
// the rest of its life. A refusal is written as an error reply; the caller
// then closes the connection.
func (s *Server) serveAttach(ctx context.Context, st *connState, lr *LineReader, line []byte) {
	c := st.c
	reply := func(b []byte) {
		_ = c.SetWriteDeadline(time.Now().Add(writeTimeout))
		_, _ = c.Write(append(b, '\n'))
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Token  json.RawMessage `json:"token"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(line, &req); err != nil || !ValidID(req.ID) {
		reply(ErrorLine(nil, rpcErrorf(CodeInvalidRequest, "invalid request: session.attach needs an id")))
		return
	}
	refuse := func(e *RPCError) { reply(ErrorLine(req.ID, e)) }
	if s.o.Attach == nil {
		refuse(rpcErrorf(CodeServerError, "this session has no screen to attach to (it runs without a terminal UI)"))
		return
	}
	if st.reserved {
		refuse(errTooManyConns())
		return
	}
	if len(req.Token) > 0 && !isNull(req.Token) || peerFrom(ctx).Inside() {
		// Its own screen would show itself attaching, and its keys would
		// feed the pane it runs in.
		refuse(rpcErrorf(CodeForbidden, "refused: this process runs inside session %s, which cannot attach to itself; run agentgrid attach from another terminal", s.o.Session))
		return
	}
	if _, rerr := s.identify(ctx, MethodSessionAttach, nil); rerr != nil {
		refuse(rerr)
		return
	}
	var p AttachParams
	if e := decodeParams(req.Params, &p); e != nil {
		refuse(e)
		return
	}
	if p.Cols <= 0 || p.Rows <= 0 || p.Cols > 0xffff || p.Rows > 0xffff {
		refuse(rpcErrorf(CodeInvalidParams, "invalid params: cols and rows must be between 1 and 65535, not %dx%d", p.Cols, p.Rows))
		return
	}
	if len(p.Env) > 64 {
		p.Env = p.Env[:64]
	}
	res, _ := json.Marshal(AttachResult{Session: s.o.Session})
	reply(encodeResponse(&Response{JSONRPC: "2.0", ID: req.ID, Result: res}))
	// From here on the connection carries frames: no idle deadline, and a
	// client that stops reading is cut off after attachWriteTimeout.
	_ = c.SetReadDeadline(time.Time{})
	_ = c.SetWriteDeadline(time.Time{})
	stream := NewAttachStream(c, lr.r)
	stream.writeTimeout = attachWriteTimeout
	// The stream is the Attacher's from here: closing the socket (the
	// session's shutdown) neither closes it nor waits for it, so the
	// session can tell its clients why they were let go once it is done.
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	st.handedOver = true
	pid := peerFrom(ctx).PID()
	s.log.Info("client attached", "cols", p.Cols, "rows", p.Rows, "read_only", p.ReadOnly, "pid", pid)
	go func() {
		defer func() { _ = stream.Close() }()
		s.o.Attach.Attach(context.WithoutCancel(ctx), stream, p)
		s.log.Info("client left", "pid", pid)
	}()
}

// Attach connects to the session at path as an attached client: it sends
// p and returns the stream once the session accepted it. The connection
// carries no token: a process inside the session cannot attach to it.
func Attach(ctx context.Context, path string, p AttachParams) (*AttachStream, AttachResult, error) {
	c := &Client{path: path}
	cc, err := c.dial(ctx)
	if err != nil {
		return nil, AttachResult{}, err
	}
	_, line, err := c.request(MethodSessionAttach, json.RawMessage(strconv.Quote("attach")), p)
	if err != nil {
		_ = cc.c.Close()
		return nil, AttachResult{}, err
	}
	var res AttachResult
	stop := context.AfterFunc(ctx, func() { _ = cc.c.SetDeadline(time.Unix(1, 0)) })
	reply, ioErr := roundTrip(cc, line)
	if !stop() || ctx.Err() != nil {
		_ = cc.c.Close()
		return nil, res, fmt.Errorf("attach to %s: %w", sessionOfSocket(path), ctx.Err())
	}
	if ioErr != nil {
		_ = cc.c.Close()
		return nil, res, fmt.Errorf("attach to %s: the session did not answer: %w", sessionOfSocket(path), ioErr)
	}
	_ = cc.c.SetDeadline(time.Time{})
	var resp Response
	if err := json.Unmarshal(reply, &resp); err != nil {
		_ = cc.c.Close()
		return nil, res, fmt.Errorf("attach to %s: the session sent a reply that is not JSON-RPC: %w", sessionOfSocket(path), err)
	}
	if resp.Error != nil {
		_ = cc.c.Close()
		return nil, res, fmt.Errorf("attach to %s: %s", sessionOfSocket(path), oneline.Sanitize(resp.Error.Message, 1000))
	}
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		_ = cc.c.Close()
		return nil, res, fmt.Errorf("attach to %s: decode the reply: %w", sessionOfSocket(path), err)
	}
	return NewAttachStream(cc.c, cc.r.r), res, nil
}

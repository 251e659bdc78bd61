package control

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// echoAttacher answers every input frame with an output frame of the same
// bytes, upper-cased, and records how each client's stream ended.
type echoAttacher struct {
	clients atomic.Int32
	params  chan AttachParams
	ended   chan error
}

func (a *echoAttacher) Clients() int { return int(a.clients.Load()) }

func (a *echoAttacher) Attach(ctx context.Context, s *AttachStream, p AttachParams) {
	a.clients.Add(1)
	defer a.clients.Add(-1)
	a.params <- p
	var buf []byte
	for {
		typ, b, err := s.ReadFrame(buf)
		if err != nil {
			a.ended <- err
			return
		}
		switch typ {
		case FrameInput:
			_ = s.WriteFrame(FrameOutput, []byte(strings.ToUpper(string(b))))
		case FrameDetach:
			_ = s.WriteFrame(FrameExit, []byte("detached"))
			a.ended <- nil
			return
		}
	}
}

func startAttachServer(t *testing.T) (*Server, *echoAttacher) {
	t.Helper()
	a := &echoAttacher{params: make(chan AttachParams, 4), ended: make(chan error, 4)}
	path := filepath.Join(t.TempDir(), "run", "t.sock")
	s, err := StartServer(path, newSockBackend(), ServerOptions{Session: "test", Attach: a})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, a
}

// TestAttachStream: session.attach turns the connection into frames both
// ways; the parameters arrive; session.info counts the client; a detach
// frame ends it.
func TestAttachStream(t *testing.T) {
	s, a := startAttachServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, res, err := Attach(ctx, s.Path(), AttachParams{Cols: 90, Rows: 30, ReadOnly: true, Env: []string{"TERM=xterm"}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if res.Session != "test" {
		t.Errorf("session %q", res.Session)
	}
	p := sockRecv(t, a.params, "the attach parameters")
	if p.Cols != 90 || p.Rows != 30 || !p.ReadOnly || len(p.Env) != 1 {
		t.Errorf("params %+v", p)
	}
	if err := st.WriteFrame(FrameInput, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	typ, b, err := st.ReadFrame(nil)
	if err != nil || typ != FrameOutput || string(b) != "HELLO" {
		t.Fatalf("frame %q %q %v", typ, b, err)
	}
	c, err := Dial(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info, err := c.SessionInfo(ctx)
	if err != nil || info.Clients != 1 {
		t.Fatalf("session.info %+v %v, want 1 client", info, err)
	}
	if err := st.WriteFrame(FrameDetach, nil); err != nil {
		t.Fatal(err)
	}
	if typ, b, err := st.ReadFrame(nil); err != nil || typ != FrameExit || string(b) != "detached" {
		t.Fatalf("exit frame %q %q %v", typ, b, err)
	}
	if err := sockRecv(t, a.ended, "the client's end"); err != nil {
		t.Fatalf("ended with %v", err)
	}
}

// TestAttachGarbage: a frame announcing more than the limit ends that
// client's stream without reading it, and the session answers other
// connections as before; a session without screens and a request with a
// token are refused with a reason.
func TestAttachGarbage(t *testing.T) {
	s, a := startAttachServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, _, err := Attach(ctx, s.Path(), AttachParams{Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sockRecv(t, a.params, "the attach parameters")
	var hdr [5]byte
	hdr[0] = FrameInput
	binary.BigEndian.PutUint32(hdr[1:], 1<<31)
	if _, err := st.c.Write(hdr[:]); err != nil {
		t.Fatal(err)
	}
	if err := sockRecv(t, a.ended, "the garbage client's end"); !errors.Is(err, ErrFrameTooLong) {
		t.Fatalf("the stream ended with %v, want ErrFrameTooLong", err)
	}
	c, err := Dial(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.SessionInfo(ctx); err != nil {
		t.Fatalf("session.info after the garbage: %v", err)
	}

	// A request with a token comes from inside the session: refused.
	rc := dialSockConn(t, s.Path())
	rc.send(`{"jsonrpc":"2.0","id":1,"method":"session.attach","token":"x","params":{"cols":80,"rows":24}}`)
	if r := rc.recvResponse(); r.Error == nil || r.Error.Code != CodeForbidden || !strings.Contains(r.Error.Message, "cannot attach to itself") {
		t.Fatalf("attach with a token: %+v", r.Error)
	}
	// A size of 0 is refused.
	rc = dialSockConn(t, s.Path())
	rc.send(`{"jsonrpc":"2.0","id":1,"method":"session.attach","params":{"cols":0,"rows":24}}`)
	if r := rc.recvResponse(); r.Error == nil || r.Error.Code != CodeInvalidParams {
		t.Fatalf("attach at 0x24: %+v", r.Error)
	}

	// A session without an Attacher says so.
	plain, _ := startSockServer(t)
	if _, _, err := Attach(ctx, plain.Path(), AttachParams{Cols: 80, Rows: 24}); err == nil || !strings.Contains(err.Error(), "no screen to attach to") {
		t.Fatalf("attach to a session without screens: %v", err)
	}
}

// TestRemoveStaleSocket: a socket file nobody listens on is removed, a
// live one is left alone.
func TestRemoveStaleSocket(t *testing.T) {
	s, _ := startAttachServer(t)
	if removed, err := RemoveStaleSocket(s.Path()); removed || err == nil {
		t.Fatalf("a live socket: removed %v, err %v", removed, err)
	}
	dir := filepath.Dir(s.Path())
	stale := filepath.Join(dir, "stale.sock")
	ln, err := listenSocket(stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	_ = ln.Close()
	if removed, err := RemoveStaleSocket(stale); !removed || err != nil {
		t.Fatalf("a stale socket: removed %v, err %v", removed, err)
	}
}

// deadlineConn records the write deadlines set on a connection.
type deadlineConn struct {
	net.Conn
	mu    sync.Mutex
	sets  int
	armed time.Time // the deadline in force
}

func (c *deadlineConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	c.sets++
	c.armed = t
	c.mu.Unlock()
	return c.Conn.SetWriteDeadline(t)
}

// newDeadlineConn is one end of a pipe whose other end reads everything.
func newDeadlineConn(t *testing.T) *deadlineConn {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	go func() { _, _ = io.Copy(io.Discard, b) }()
	return &deadlineConn{Conn: a}
}

// wantWriteBoundedThenCleared fails unless a write deadline was set and
// none is armed now that what (a frame, a reply) is written.
func (c *deadlineConn) wantWriteBoundedThenCleared(t *testing.T, what string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sets == 0 {
		t.Fatalf("the %s was not bounded by a deadline", what)
	}
	if !c.armed.IsZero() {
		t.Errorf("a write deadline stays armed after the %s (%v from now)", what, time.Until(c.armed).Round(time.Second))
	}
}

// TestAttachWriteLeavesNoDeadline: a frame's write is bounded by the write
// timeout, and once it is written no deadline stays armed, so no timer
// wakes an idle session half a minute after its last frame.
func TestAttachWriteLeavesNoDeadline(t *testing.T) {
	dc := newDeadlineConn(t)
	s := NewAttachStream(dc, nil)
	s.writeTimeout = attachWriteTimeout
	if err := s.WriteFrame(FrameOutput, []byte("frame")); err != nil {
		t.Fatal(err)
	}
	dc.wantWriteBoundedThenCleared(t, "frame")
}

// TestAttachStuckClientIsHungUp: a client that stops reading its frames is
// still cut off once a frame's write has waited the write timeout, after
// frames that went out (and whose deadlines were cleared) as before.
func TestAttachStuckClientIsHungUp(t *testing.T) {
	srv, _ := unixPair(t)
	s := NewAttachStream(srv, nil)
	s.writeTimeout = 100 * time.Millisecond
	if err := s.WriteFrame(FrameOutput, []byte("first")); err != nil {
		t.Fatal(err)
	}
	// The client reads nothing: the socket fills, and a write waits.
	ended := make(chan error, 1)
	go func() {
		big := make([]byte, 64<<10)
		for {
			if err := s.WriteFrame(FrameOutput, big); err != nil {
				ended <- err
				return
			}
		}
	}()
	select {
	case err := <-ended:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("the stuck client's write ended with %v, want its deadline", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a client that reads nothing was never cut off")
	}
}

// TestReplyLeavesNoDeadline: a socket reply is written within the write
// timeout, and once it is out no deadline stays armed, so no timer wakes
// an idle session ten seconds after a client's last request.
func TestReplyLeavesNoDeadline(t *testing.T) {
	dc := newDeadlineConn(t)
	if err := sendLine(dc, bufio.NewWriter(dc), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)); err != nil {
		t.Fatal(err)
	}
	dc.wantWriteBoundedThenCleared(t, "reply")
}

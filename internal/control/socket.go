package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// Backend is what the control socket serves: the engine's commands and
// queries. The engine (package orchestrator) implements it, and
// Authorizer; tests use fakes.
type Backend interface {
	Spawn(req SpawnRequest) (AgentInfo, error)
	Close(id string) error
	Send(id string, data []byte) error
	List() []AgentInfo
	Agent(id string) (AgentInfo, bool)
	Capture(id string, escapes bool, scrollback int) (string, error)
	// Wait blocks until every agent in ids has finished or ctx is done.
	Wait(ctx context.Context, ids []string) ([]AgentInfo, error)
	// Signal applies a hook adapter's signal; source is the adapter's name
	// ("claude"), recorded by the engine as "hook:claude".
	Signal(id string, s agentstate.Signal, source string) error
	Explain(id string) (Explanation, error)
	Status() *hooks.StatusStore
}

// ServerOptions describe the session a Server answers for.
type ServerOptions struct {
	// Session is the session's name, reported by session.info.
	Session string
	// Version is the agentgrid version, reported by session.info.
	Version string
	// Logger receives connection and request problems; nil discards them.
	Logger *slog.Logger
	// Buffers serves session.paste (agentgrid paste); nil when the
	// session keeps none.
	Buffers *Buffers
	// Attach serves session.attach (the session's terminals); nil when
	// the session draws nothing.
	Attach Attacher
}

// writeTimeout bounds how long a response may wait for a client that does
// not read, so a stuck client costs one goroutine for a while, not forever.
const writeTimeout = 10 * time.Second

// pipelineDepth is how many requests of one connection may wait behind the
// one being handled before the server stops reading that connection.
const pipelineDepth = 16

// maxConns caps simultaneous connections so a runaway script cannot exhaust
// the session's descriptors. At the limit a new connection takes the place
// of the longest idle one; when none is idle it gets one of the reserveConns
// slots, and only when those are taken too is it answered with an error and
// closed. A variable so tests can lower it.
var maxConns = 512

// Server is the control socket server of one session: newline-delimited
// JSON-RPC 2.0 over a unix socket, each connection in its own goroutine,
// requests of one connection answered in order.
type Server struct {
	b       Backend
	o       ServerOptions
	log     *slog.Logger
	path    string
	ln      *net.UnixListener
	sock    os.FileInfo // the socket file we created, so Close removes only ours
	started time.Time
	owner   int

	ctx    context.Context // cancelled by Close: stops every in-flight request
	cancel context.CancelFunc

	mu     sync.Mutex
	conns  map[*net.UnixConn]*connState
	closed bool
	wg     sync.WaitGroup
}

// StartServer creates the socket at path (its directory private to the user,
// a stale socket of a dead session replaced), and serves b on it in the
// background until Close.
func StartServer(path string, b Backend, o ServerOptions) (*Server, error) {
	if b == nil {
		return nil, errors.New("start the control socket: no backend to serve")
	}
	ln, err := listenSocket(path)
	if err != nil {
		return nil, err
	}
	fi, _ := os.Lstat(path)
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		b: b, o: o, log: log, path: path, ln: ln, sock: fi,
		started: time.Now(), owner: os.Getuid(),
		ctx: ctx, cancel: cancel,
		conns: make(map[*net.UnixConn]*connState),
	}
	s.wg.Add(1)
	go s.acceptLoop()
	return s, nil
}

// Path is the socket's file name (what children get as AGENTGRID_SOCKET).
func (s *Server) Path() string { return s.path }

// Close stops accepting, cancels in-flight requests, closes every connection,
// waits for their goroutines and removes the socket file if it is still ours.
// It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	conns := make([]*net.UnixConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()

	s.cancel()
	err := s.ln.Close()
	for _, c := range conns {
		_ = c.Close()
	}
	s.wg.Wait()
	// Another session may have replaced a socket it judged stale; only
	// remove the file this server created.
	if fi, statErr := os.Lstat(s.path); statErr == nil && s.sock != nil && os.SameFile(fi, s.sock) {
		if rmErr := os.Remove(s.path); rmErr != nil && err == nil {
			err = fmt.Errorf("remove the control socket %s: %w", s.path, rmErr)
		}
	}
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

func (s *Server) acceptLoop() {
	defer s.wg.Done()
	var backoff time.Duration
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			if s.ctx.Err() != nil {
				return
			}
			// Running out of descriptors is temporary: back off instead of
			// spinning, and keep the session's socket alive.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn("control socket accept failed", "err", err, "retry_in", backoff)
			select {
			case <-time.After(backoff):
			case <-s.ctx.Done():
				return
			}
			continue
		}
		backoff = 0
		st, ok := s.track(c)
		if !ok {
			_ = c.Close()
			if s.ctx.Err() != nil {
				return
			}
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveConn(st)
			if !st.handedOver {
				s.untrack(c)
			}
		}()
	}
}

// track registers a new connection. At maxConns it evicts the longest idle
// connection to make room, or admits the new one to a reserved slot (quick
// requests only); it refuses it, telling the client why, when every slot is
// busy, and when the server is closing.
func (s *Server) track(c *net.UnixConn) (*connState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false
	}
	var normal, reserved int
	for _, st := range s.conns {
		if st.reserved {
			reserved++
		} else {
			normal++
		}
	}
	switch {
	case normal < maxConns:
		return s.admitLocked(c, false), true
	case s.evictIdleLocked(false):
		return s.admitLocked(c, false), true
	case reserved < reserveConns:
		return s.admitLocked(c, true), true
	case s.evictIdleLocked(true):
		return s.admitLocked(c, true), true
	}
	_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_, _ = c.Write(append(encodeResponse(errorResponse(nil, errTooManyConns())), '\n'))
	// Shut our side so the client reads the refusal (and EOF) even if its
	// request crossed it.
	_ = c.CloseWrite()
	s.log.Warn("control socket: connection limit reached", "limit", maxConns, "reserve", reserveConns)
	return nil, false
}

// admitLocked tracks a new connection. Once the server holds more than
// idleTimedFrom, every connection is timed while idle (see idleTimeout).
func (s *Server) admitLocked(c *net.UnixConn, reserved bool) *connState {
	timed := len(s.conns) >= idleTimedFrom
	st := newConnState(c, reserved, timed)
	if timed {
		for _, o := range s.conns {
			o.time()
		}
	}
	s.conns[c] = st
	return st
}

// evictIdleLocked closes the connection of the given kind that has been idle
// (no request in progress) the longest, and reports whether there was one.
func (s *Server) evictIdleLocked(reserved bool) bool {
	var victim *connState
	var since time.Time
	for _, st := range s.conns {
		if st.reserved != reserved {
			continue
		}
		if from, idle := st.idleSince(); idle && (victim == nil || from.Before(since)) {
			victim, since = st, from
		}
	}
	if victim == nil {
		return false
	}
	delete(s.conns, victim.c)
	_ = victim.c.Close()
	s.log.Debug("control socket: closed an idle connection to make room", "idle", time.Since(since))
	return true
}

func (s *Server) untrack(c *net.UnixConn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	_ = c.Close()
}

// inbound is one unit of work for a connection's worker: a request line,
// or the notice that the client sent a line longer than MaxMessageSize or
// stayed idle too long, after which the connection is closed.
type inbound struct {
	line    []byte
	tooLong bool
	idle    bool
}

// serveConn reads request lines and hands them to a worker that answers them
// in order. Reading continues while a request runs, and a hang-up is watched
// for even while the queue is full, so that a client which disconnects is
// noticed at once and its in-flight request (agent.wait) is cancelled.
func (s *Server) serveConn(st *connState) {
	c := st.c
	if uid, err := peerUID(c); err != nil {
		s.log.Warn("control socket: cannot identify the peer", "err", err)
		return
	} else if err := checkPeerUID(uid, s.owner); err != nil {
		s.log.Warn("control socket: connection refused", "err", err)
		return
	}

	ctx, cancel := context.WithCancel(withPeer(s.ctx, s.peerOf(c)))
	defer cancel()
	if st.reserved {
		ctx = context.WithValue(ctx, reservedKey{}, true)
	}
	work := make(chan inbound, pipelineDepth)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.work(ctx, cancel, st, work)
	}()

	lr := NewLineReader(c, MaxMessageSize)
	for first := true; ; first = false {
		line, err := lr.Next()
		if first && err == nil && isAttach(line) {
			// The connection becomes an attach stream for good: busy, so
			// it is never evicted as idle.
			st.start()
			close(work)
			<-done
			s.serveAttach(ctx, st, lr, line)
			return
		}
		if errors.Is(err, ErrLineTooLong) {
			// Answer in order after what is queued, then hang up without
			// reading the rest of the message.
			st.start()
			st.enqueue(ctx, cancel, work, inbound{tooLong: true})
			break
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// Only an idle connection has a read deadline: nothing is
			// queued, so the notice goes out at once.
			s.log.Debug("control socket: closing an idle connection", "timeout", idleTimeout)
			st.start()
			work <- inbound{idle: true}
			break
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				s.log.Debug("control socket read failed", "err", err)
			}
			// The client went away (or closed its side): stop what it is
			// waiting for. Requests already queued are still answered, which
			// serves clients that half-close after sending.
			cancel()
			break
		}
		st.start()
		st.enqueue(ctx, cancel, work, inbound{line: line})
	}
	close(work)
	<-done
}

// sendLine writes one reply line to c through w within writeTimeout. The
// deadline guards that write only: left armed, its timer fired
// writeTimeout after a connection's last reply, closed by then or not, and
// woke an idle session (a client that polled agentgrid list, say).
func sendLine(c interface{ SetWriteDeadline(time.Time) error }, w *bufio.Writer, line []byte) error {
	_ = c.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err := w.Write(append(line, '\n'))
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		_ = c.SetWriteDeadline(time.Time{})
	}
	return err
}

// work answers the requests of one connection, one at a time, in order.
func (s *Server) work(ctx context.Context, cancel context.CancelFunc, st *connState, work <-chan inbound) {
	c := st.c
	w := bufio.NewWriter(c)
	broken := false
	for in := range work {
		if broken {
			st.done()
			continue
		}
		var out []byte
		switch {
		case in.tooLong:
			out = encodeResponse(errorResponse(nil, rpcErrorf(CodeInvalidRequest,
				"message too long: the limit is %d bytes per line; the connection is closed", MaxMessageSize)))
		case in.idle:
			out = encodeResponse(errorResponse(nil, rpcErrorf(CodeInvalidRequest,
				"no complete request line within %s; the connection is closed", idleTimeout)))
		default:
			out = s.handleLine(ctx, in.line)
		}
		if out != nil {
			if err := sendLine(c, w, out); err != nil {
				s.log.Debug("control socket write failed", "err", err)
				broken = true
			}
		}
		if in.tooLong || in.idle {
			broken = true
		}
		if broken {
			cancel()
			_ = c.Close() // unblocks the reader
		}
		st.done()
	}
}

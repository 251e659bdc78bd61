package control

import (
	"context"
	"net"
	"sync"
	"time"
)

// idleTimeout is how long a connection with no request in progress may take
// to send a complete request line before the server closes it, so that idle
// or half-written connections cannot pile up. A connection whose request is
// running (a long-polling agent.wait or agent.events) is never idle. A
// variable so tests can shorten it.
var idleTimeout = 5 * time.Second

// idleTimedFrom is how many connections the server holds before it times
// idle ones: up to that many sit idle at no cost (an MCP server's or a
// script's pooled connection), while a pile-up of idle or half-written
// connections is closed as before. Timing one connection woke an idle
// session 5 s after each client's last request, and closing it took about
// 1.2 ms of CPU, ten times what the idle session used in 10 s otherwise.
// A variable so tests can change it.
var idleTimedFrom = 32

// reserveConns is how many connections the server admits beyond maxConns
// when every ordinary one is busy, for quick requests only: a session whose
// slots are all held by long polls still answers `agentgrid list` and
// `agentgrid close`. A variable so tests can change it.
var reserveConns = 16

// longPoll reports whether method may hold its connection for long; a
// reserved connection may not run one.
func longPoll(method string) bool {
	return method == MethodAgentWait || method == MethodAgentEvents || method == MethodAgentRewake
}

// errTooManyConns is the refusal a client gets when every connection slot
// is taken, or a long poll on a reserved connection.
func errTooManyConns() *RPCError {
	return rpcErrorf(CodeTooManyConnections,
		"too many connections to this session (%d busy); close some clients (agentgrid watch, agentgrid wait) and retry", maxConns)
}

type reservedKey struct{}

// onReservedConn reports whether ctx belongs to a request read from a
// reserved connection.
func onReservedConn(ctx context.Context) bool {
	r, _ := ctx.Value(reservedKey{}).(bool)
	return r
}

// connState is what the server tracks of one connection: whether it holds a
// reserved slot, and how many of its requests are read but not yet
// answered, which decides its read deadline and whether it may be evicted.
type connState struct {
	c        *net.UnixConn
	reserved bool

	mu       sync.Mutex
	busy     int       // requests read and not yet answered
	idleFrom time.Time // when busy last dropped to 0
	watching bool      // a hang-up watch owns the read deadline
	timed    bool      // while idle it has idleTimeout to complete a line

	// handedOver: the connection became an attach stream and belongs to
	// the Attacher, which closes it (set before serveConn returns).
	handedOver bool
}

func newConnState(c *net.UnixConn, reserved, timed bool) *connState {
	st := &connState{c: c, reserved: reserved, idleFrom: time.Now(), timed: timed}
	st.mu.Lock()
	st.applyDeadline()
	st.mu.Unlock()
	return st
}

// time gives the connection idleTimeout to complete a line whenever it is
// idle, from now on; one idle for longer already is closed at once.
func (st *connState) time() {
	st.mu.Lock()
	if !st.timed {
		st.timed = true
		st.applyDeadline()
	}
	st.mu.Unlock()
}

// applyDeadline gives an idle connection that is timed idleTimeout to
// complete a line, and any other no deadline. st.mu is held.
func (st *connState) applyDeadline() {
	if st.watching {
		return
	}
	if st.busy == 0 && st.timed {
		_ = st.c.SetReadDeadline(st.idleFrom.Add(idleTimeout))
	} else {
		_ = st.c.SetReadDeadline(time.Time{})
	}
}

// start records a request line handed to the worker.
func (st *connState) start() {
	st.mu.Lock()
	st.busy++
	if st.busy == 1 {
		st.applyDeadline()
	}
	st.mu.Unlock()
}

// done records that the worker finished a request (answered or not).
func (st *connState) done() {
	st.mu.Lock()
	st.busy--
	if st.busy == 0 {
		st.idleFrom = time.Now()
		st.applyDeadline()
	}
	st.mu.Unlock()
}

// idleSince reports whether no request of the connection is in progress,
// and since when.
func (st *connState) idleSince() (time.Time, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.idleFrom, st.busy == 0
}

// enqueue hands in to the worker. When the queue is full (requests pipelined
// behind a blocking one), it watches the connection meanwhile: if the client
// hangs up, cancel stops the blocking request, and everything queued then
// ends at once, so the connection is cleaned up instead of waiting for the
// blocking request to end on its own, which may be never.
func (st *connState) enqueue(ctx context.Context, cancel context.CancelFunc, work chan<- inbound, in inbound) {
	select {
	case work <- in:
		return
	default:
	}
	if ctx.Err() != nil {
		// Already cancelled: the worker drains the queue without waiting.
		work <- in
		return
	}
	st.mu.Lock()
	st.watching = true
	_ = st.c.SetReadDeadline(time.Time{})
	st.mu.Unlock()

	stop := make(chan struct{})
	hup := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		if waitHangUp(st.c, stop) {
			close(hup)
		}
	}()
	select {
	case work <- in:
	case <-hup:
		cancel()
		work <- in
	}
	close(stop)
	// Wake the watch from its wait for the socket to become readable.
	_ = st.c.SetReadDeadline(time.Unix(1, 0))
	<-watched
	st.mu.Lock()
	st.watching = false
	st.applyDeadline()
	st.mu.Unlock()
}

package orchestrator

import (
	"context"
	"net"
	"os"
	"sync"
)

// connPeer is what the server knows of the process at a connection's other
// end, used to tell the user's own shell from a process inside the session
// when a request carries no token.
type connPeer struct {
	pid       int // 0 when the system does not say
	isSession func(sid int) bool
	once      sync.Once
	in        bool
}

// newConnPeer starts finding out where the peer is at once, in the
// background: a client that sends one notification and exits (a hook) may be
// gone by the time its request is read, and a peer that cannot be looked up
// counts as inside.
func newConnPeer(c *net.UnixConn, isAgentSession func(sid int) bool) *connPeer {
	pid, err := peerPID(c)
	if err != nil {
		pid = 0
	}
	p := &connPeer{pid: pid, isSession: isAgentSession}
	go p.inside()
	return p
}

// inside reports whether the peer is part of the session: it descends from
// this process (an agent, or a process an agent started), or it still sits
// in an agent's terminal session after leaving the process tree (a double
// fork hands it to init). isSession tells the agents' session ids apart
// (each agent leads its own session). agentgrid itself (an in-process
// client) and processes elsewhere are outside. Looked up once per
// connection.
func (p *connPeer) inside() bool {
	if p == nil {
		return false
	}
	p.once.Do(func() {
		self := os.Getpid()
		if p.pid <= 0 || p.pid == self {
			return
		}
		sid := sessionOf(p.pid)
		p.in = descendsFrom(p.pid, self) || sid > 0 && p.isSession != nil && p.isSession(sid)
	})
	return p.in
}

type peerKey struct{}

func withPeer(ctx context.Context, p *connPeer) context.Context {
	return context.WithValue(ctx, peerKey{}, p)
}

func peerFrom(ctx context.Context) *connPeer {
	p, _ := ctx.Value(peerKey{}).(*connPeer)
	return p
}

type callerKey struct{}

func withCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// callerFrom is the caller of the request being handled; full control when
// none was recorded (a backend that does not tell callers apart).
func callerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}

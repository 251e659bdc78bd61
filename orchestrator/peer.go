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
	pid  int // 0 when the system does not say
	once sync.Once
	in   bool
}

func newConnPeer(c *net.UnixConn) *connPeer {
	pid, err := peerPID(c)
	if err != nil {
		pid = 0
	}
	return &connPeer{pid: pid}
}

// inside reports whether the peer descends from this process: an agent, or
// a process an agent started. agentgrid itself (an in-process client) and
// processes elsewhere are outside. Looked up once per connection, on its
// first request without a token.
func (p *connPeer) inside() bool {
	if p == nil {
		return false
	}
	p.once.Do(func() {
		self := os.Getpid()
		p.in = p.pid > 0 && p.pid != self && descendsFrom(p.pid, self)
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

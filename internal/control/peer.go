package control

import (
	"context"
	"net"
	"os"
	"sync"
)

// Peer is the process at a connection's other end, used to tell the user's
// own shell from a process inside the session when a request carries no
// token.
type Peer struct {
	pid       int // 0 when the system does not say
	isSession func(sid int) bool
	once      sync.Once
	in        bool
}

// newPeer starts finding out where the peer is at once, in the background:
// a client that sends one notification and exits (a hook) may be gone by the
// time its request is read, and a peer that cannot be looked up counts as
// inside.
func newPeer(c *net.UnixConn, isAgentSession func(sid int) bool) *Peer {
	pid, err := peerPID(c)
	if err != nil {
		pid = 0
	}
	p := &Peer{pid: pid, isSession: isAgentSession}
	go p.Inside()
	return p
}

// PID is the peer's process id, 0 when the system does not say.
func (p *Peer) PID() int {
	if p == nil {
		return 0
	}
	return p.pid
}

// Inside reports whether the peer is part of the session: it descends from
// this process (an agent, or a process an agent started), or it still sits
// in an agent's terminal session after leaving the process tree (a double
// fork hands it to init): the session's leader is a child of this process
// (each agent leads its own session), or the Authorizer's IsAgentSession
// knows the session id. The leader is asked first because the agents' list
// is published a moment after a start, and a process of a fresh agent that
// called in that moment was taken for the user's own shell. agentgrid
// itself (an in-process client) and processes elsewhere are outside.
// Looked up once per connection.
func (p *Peer) Inside() bool {
	if p == nil {
		return false
	}
	p.once.Do(func() {
		self := os.Getpid()
		if p.pid <= 0 || p.pid == self {
			return
		}
		sid := sessionOf(p.pid)
		p.in = descendsFrom(p.pid, self) || sid > 0 && (childOf(sid, self) || p.isSession != nil && p.isSession(sid))
	})
	return p.in
}

type peerKey struct{}

func withPeer(ctx context.Context, p *Peer) context.Context {
	return context.WithValue(ctx, peerKey{}, p)
}

func peerFrom(ctx context.Context) *Peer {
	p, _ := ctx.Value(peerKey{}).(*Peer)
	return p
}

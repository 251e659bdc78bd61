package control

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// setConnLimits changes the connection limits for one test; every
// connection is timed while idle, however few are open.
func setConnLimits(t *testing.T, conns, reserve int, idle time.Duration) {
	t.Helper()
	oldConns, oldReserve, oldIdle, oldTimed := maxConns, reserveConns, idleTimeout, idleTimedFrom
	maxConns, reserveConns, idleTimeout, idleTimedFrom = conns, reserve, idle, 0
	t.Cleanup(func() { maxConns, reserveConns, idleTimeout, idleTimedFrom = oldConns, oldReserve, oldIdle, oldTimed })
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // polling server state
	}
}

// waitingConn opens a connection whose agent.wait is running in the backend.
func waitingConn(t *testing.T, s *Server, fb *sockBackend, id string) *sockConn {
	t.Helper()
	rc := dialSockConn(t, s.Path())
	rc.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"agent.wait","params":{"ids":[%q]}}`, id))
	sockRecv(t, fb.waitEntered, "agent.wait to reach the backend")
	return rc
}

// 8.3: a client pipelines more requests than the queue holds behind a wait
// that never ends, then hangs up. The server must cancel the wait and free
// the connection at once, not when the agent exits.
func TestServerHangUpBehindFullQueueCancelsWait(t *testing.T) {
	s, fb := startSockServer(t)
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"sleep"}})
	rc := dialSockConn(t, s.Path())
	var b strings.Builder
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":0,"method":"agent.wait","params":{"ids":[%q]}}`+"\n", a.ID)
	for i := range pipelineDepth + 8 {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"agent.wait","params":{"ids":[%q]}}`+"\n", i+1, a.ID)
	}
	rc.send(strings.TrimSuffix(b.String(), "\n"))
	sockRecv(t, fb.waitEntered, "the first agent.wait to reach the backend")
	_ = rc.c.Close()
	if err := sockRecv(t, fb.waitEnded, "the first Wait to be cancelled"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait ended with %v, want context.Canceled", err)
	}
	waitFor(t, "the connection to be released", func() bool { return s.connCount() == 0 })
	fb.mu.Lock()
	state := fb.agents[a.ID].State
	fb.mu.Unlock()
	if state.Finished() {
		t.Fatal("the agent finished; the test must hang up while it runs")
	}
}

// 8.4: a connection that sends no complete line is closed after the idle
// timeout, with a reason; one whose request is running is not.
func TestServerClosesIdleConnections(t *testing.T) {
	setConnLimits(t, 512, 16, time.Second)
	s, fb := startSockServer(t)
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"sleep"}})
	busy := waitingConn(t, s, fb, a.ID)

	silent := dialSockConn(t, s.Path())
	partial := dialSockConn(t, s.Path())
	if _, err := partial.c.Write([]byte(`{"jsonrpc":"2.0","id":1,"meth`)); err != nil {
		t.Fatal(err)
	}
	for _, rc := range []*sockConn{silent, partial} {
		r := rc.recvResponse()
		if r.Error == nil || !strings.Contains(r.Error.Message, "no complete request line") {
			t.Fatalf("idle connection got %+v", r.Error)
		}
		_ = rc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := rc.r.ReadByte(); !errors.Is(err, io.EOF) {
			t.Fatalf("idle connection not closed: %v", err)
		}
	}
	// The idle ones were closed after at least one timeout; the waiting one
	// is still served.
	fb.finish(a.ID, 0)
	if r := busy.recvResponse(); r.Error != nil {
		t.Fatalf("wait on a busy connection: %+v", r.Error)
	}
	// And after its answer it is idle in turn, and closed.
	if r := busy.recvResponse(); r.Error == nil || !strings.Contains(r.Error.Message, "no complete request line") {
		t.Fatalf("connection idle after its answer got %+v", r.Error)
	}
}

// 8.4: a few idle connections are left alone (an idle session is not woken
// to close them); once the server holds more than idleTimedFrom, each of
// them, the old ones too, is closed after the idle timeout, with a reason.
func TestServerTimesIdleConnectionsOnlyWhenMany(t *testing.T) {
	setConnLimits(t, 512, 16, 300*time.Millisecond)
	idleTimedFrom = 2
	s, _ := startSockServer(t)
	quiet := []*sockConn{dialSockConn(t, s.Path()), dialSockConn(t, s.Path())}
	quiet[0].send(`{"jsonrpc":"2.0","id":1,"method":"session.info"}`)
	if r := quiet[0].recvResponse(); r.Error != nil {
		t.Fatalf("session.info: %+v", r.Error)
	}
	waitFor(t, "the server to take both connections", func() bool { return s.connCount() == 2 })
	s.mu.Lock()
	for _, st := range s.conns {
		st.mu.Lock()
		timed := st.timed
		st.mu.Unlock()
		if timed {
			t.Error("with 2 connections open, an idle one is timed")
		}
	}
	s.mu.Unlock()

	third := dialSockConn(t, s.Path())
	for i, rc := range append(quiet, third) {
		r := rc.recvResponse()
		if r.Error == nil || !strings.Contains(r.Error.Message, "no complete request line") {
			t.Fatalf("connection %d of 3 got %+v", i+1, r.Error)
		}
		_ = rc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := rc.r.ReadByte(); !errors.Is(err, io.EOF) {
			t.Fatalf("connection %d of 3 not closed: %v", i+1, err)
		}
	}
}

// 8.4: idle connections at the limit do not lock clients out: the longest
// idle one makes room.
func TestServerIdleConnectionsDoNotLockOut(t *testing.T) {
	setConnLimits(t, 4, 2, time.Hour)
	s, _ := startSockServer(t)
	var idle []net.Conn
	for range 20 {
		c, err := net.Dial("unix", s.Path())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		idle = append(idle, c)
	}
	waitFor(t, "the server to take every connection", func() bool { return s.connCount() == 4 })
	c := dialClientFor(t, s.Path())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 5 {
		if _, err := c.List(ctx); err != nil {
			t.Fatalf("list %d with %d idle connections open: %v", i, len(idle), err)
		}
	}
}

// 8.4: with every slot held by a long poll, quick commands still get in on a
// reserved slot; a long poll there, and a client beyond the reserve, are
// refused with "too many connections", which the client reports as such.
func TestServerReserveAndRefusal(t *testing.T) {
	setConnLimits(t, 2, 1, time.Hour)
	s, fb := startSockServer(t)
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"sleep"}})
	for range 2 {
		waitingConn(t, s, fb, a.ID)
	}
	c := dialClientFor(t, s.Path())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.List(ctx); err != nil {
		t.Fatalf("list with every slot busy: %v", err)
	}
	if err := c.CloseAgent(ctx, "a9"); err == nil || !strings.Contains(err.Error(), `no agent with id "a9"`) {
		t.Fatalf("close on a reserved slot: %v", err)
	}
	_, err := c.Wait(ctx, []string{a.ID}, time.Minute)
	if ErrorCode(err) != CodeTooManyConnections || !strings.Contains(err.Error(), "too many connections to session t;") {
		t.Fatalf("a long poll on a reserved slot: %v", err)
	}
}

// 8.4: a client beyond every busy slot reads the server's refusal and says
// "too many connections", never "broken pipe".
func TestServerRefusesBeyondBusySlots(t *testing.T) {
	setConnLimits(t, 2, 0, time.Hour)
	s, fb := startSockServer(t)
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"sleep"}})
	for range 2 {
		waitingConn(t, s, fb, a.ID)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 20 {
		c := dialClientFor(t, s.Path())
		_, err := c.List(ctx)
		if ErrorCode(err) != CodeTooManyConnections || !strings.Contains(err.Error(), "too many connections to session t;") {
			t.Fatalf("client %d beyond every slot got %v, want too many connections", i, err)
		}
	}
	// A raw client reads the same one-line refusal.
	rc := dialSockConn(t, s.Path())
	if r := rc.recvResponse(); r.Error == nil || r.Error.Code != CodeTooManyConnections {
		t.Fatalf("raw client beyond every slot got %+v", r.Error)
	}
}

func dialClientFor(t *testing.T, path string) *Client {
	t.Helper()
	c, err := Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// connCount is how many connections the server holds.
func (s *Server) connCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

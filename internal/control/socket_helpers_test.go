package control

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// sockBackend is an in-memory Backend that records what the socket asked of it.
type sockBackend struct {
	mu      sync.Mutex
	agents  map[string]AgentInfo
	order   []string
	next    int
	changed chan struct{} // closed and replaced on every change, so Wait can block on it
	status  *hooks.StatusStore

	spawned []SpawnRequest
	sent    map[string][]byte
	closed  []string
	signals []sockSignalCall

	// waitEntered gets one value each time Wait starts; waitEnded gets the
	// context error (or nil) each time Wait returns.
	waitEntered chan []string
	waitEnded   chan error
}

type sockSignalCall struct {
	ID, Source string
	Signal     agentstate.Signal
}

var sockUnknownAgent = func(id string) error { return fmt.Errorf("no agent with id %q", id) }

func newSockBackend() *sockBackend {
	return &sockBackend{
		agents:      map[string]AgentInfo{},
		changed:     make(chan struct{}),
		status:      hooks.NewStatusStore(time.Now),
		sent:        map[string][]byte{},
		waitEntered: make(chan []string, 100),
		waitEnded:   make(chan error, 100),
	}
}

func (f *sockBackend) pokeLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// finish marks an agent as exited with code.
func (f *sockBackend) finish(id string, code int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a := f.agents[id]
	a.State = agentstate.Done
	if code != 0 {
		a.State = agentstate.Failed
	}
	a.ExitCode = &code
	now := time.Now()
	a.Ended = &now
	a.Why = fmt.Sprintf("exited with code %d", code)
	f.agents[id] = a
	f.pokeLocked()
}

// note reports to a test without ever blocking the backend (the fuzz test
// calls Wait far more often than anyone reads).
func (f *sockBackend) note(ch chan []string, ids []string) {
	select {
	case ch <- ids:
	default:
	}
}

func (f *sockBackend) noteEnd(err error) {
	select {
	case f.waitEnded <- err:
	default:
	}
}

func (f *sockBackend) Spawn(req SpawnRequest) (AgentInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(req.Argv) > 0 && req.Argv[0] == "full" {
		return AgentInfo{}, fmt.Errorf("the queue is full (100 agents waiting); close some agents or raise agents.max_queued")
	}
	f.next++
	now := time.Now()
	a := AgentInfo{
		ID: fmt.Sprintf("a%d", f.next), Title: req.Title, Kind: req.Kind, Argv: req.Argv, Cwd: req.Cwd,
		State: agentstate.Running, Why: "process started", Source: "process",
		Since: now, Confirmed: now, Created: now, Started: &now, PID: 1000 + f.next, Visible: true, Number: f.next,
	}
	if a.Title == "" && len(req.Argv) > 0 {
		a.Title = req.Argv[0]
	}
	f.agents[a.ID] = a
	f.order = append(f.order, a.ID)
	f.spawned = append(f.spawned, req)
	f.pokeLocked()
	return a, nil
}

func (f *sockBackend) Close(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.agents[id]
	if !ok {
		return sockUnknownAgent(id)
	}
	a.State = agentstate.Killed
	f.agents[id] = a
	f.closed = append(f.closed, id)
	f.pokeLocked()
	return nil
}

func (f *sockBackend) Send(id string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.agents[id]; !ok {
		return sockUnknownAgent(id)
	}
	f.sent[id] = append(f.sent[id], data...)
	return nil
}

func (f *sockBackend) List() []AgentInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]AgentInfo, 0, len(f.order))
	for _, id := range f.order {
		out = append(out, f.agents[id])
	}
	return out
}

func (f *sockBackend) Agent(id string) (AgentInfo, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.agents[id]
	return a, ok
}

func (f *sockBackend) Capture(id string, escapes bool, scrollback int) (string, error) {
	if id == "boom" {
		panic("capture exploded")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.agents[id]; !ok {
		return "", sockUnknownAgent(id)
	}
	text := fmt.Sprintf("screen of %s\nscrollback=%d", id, scrollback)
	if escapes {
		text = "\x1b[1m" + text + "\x1b[0m"
	}
	return text, nil
}

func (f *sockBackend) Wait(ctx context.Context, ids []string) ([]AgentInfo, error) {
	f.note(f.waitEntered, ids)
	for {
		f.mu.Lock()
		ch := f.changed
		out := make([]AgentInfo, 0, len(ids))
		all := true
		for _, id := range ids {
			a, ok := f.agents[id]
			if !ok {
				f.mu.Unlock()
				f.noteEnd(nil)
				return nil, sockUnknownAgent(id)
			}
			all = all && a.State.Finished()
			out = append(out, a)
		}
		f.mu.Unlock()
		if all {
			f.noteEnd(nil)
			return out, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			f.noteEnd(ctx.Err())
			return out, ctx.Err()
		}
	}
}

func (f *sockBackend) Signal(id string, s agentstate.Signal, source string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.agents[id]; !ok {
		return sockUnknownAgent(id)
	}
	f.signals = append(f.signals, sockSignalCall{ID: id, Source: source, Signal: s})
	return nil
}

func (f *sockBackend) Explain(id string) (Explanation, error) {
	a, ok := f.Agent(id)
	if !ok {
		return Explanation{}, sockUnknownAgent(id)
	}
	return Explanation{
		Agent: a,
		History: []Transition{
			{Time: a.Created, From: agentstate.Pending, To: agentstate.Starting, Why: "starting the process", Source: "engine"},
			{Time: a.Created, From: agentstate.Starting, To: agentstate.Running, Why: "process started", Source: "process"},
		},
		Evidence: []Evidence{{Source: "hook:claude", Says: "running", Time: a.Created}},
	}, nil
}

func (f *sockBackend) Status() *hooks.StatusStore { return f.status }

// startSockServer serves a fresh fake backend on a socket in a temporary directory.
func startSockServer(t *testing.T) (*Server, *sockBackend) {
	t.Helper()
	fb := newSockBackend()
	path := filepath.Join(t.TempDir(), "run", "t.sock")
	s, err := StartServer(path, fb, ServerOptions{Session: "test", Version: "v0-test"})
	if err != nil {
		t.Fatalf("StartServer: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s, fb
}

// sockConn is a test client speaking raw lines to the server.
type sockConn struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func dialSockConn(t *testing.T, path string) *sockConn {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &sockConn{t: t, c: c, r: bufio.NewReaderSize(c, 1<<16)}
}

func (rc *sockConn) send(line string) {
	rc.t.Helper()
	_ = rc.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := rc.c.Write([]byte(line + "\n")); err != nil {
		rc.t.Fatalf("write %q: %v", line, err)
	}
}

// recv reads one reply line, failing the test after a deadline.
func (rc *sockConn) recv() string {
	rc.t.Helper()
	_ = rc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := rc.r.ReadString('\n')
	if err != nil {
		rc.t.Fatalf("read reply: %v (got %q)", err, line)
	}
	return strings.TrimSuffix(line, "\n")
}

// recvResponse reads and decodes one reply.
func (rc *sockConn) recvResponse() Response {
	rc.t.Helper()
	line := rc.recv()
	var r Response
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		rc.t.Fatalf("reply %q is not a JSON-RPC response: %v", line, err)
	}
	if r.JSONRPC != "2.0" {
		rc.t.Fatalf("reply %q: jsonrpc = %q, want 2.0", line, r.JSONRPC)
	}
	return r
}

// sockRecv receives from ch or fails after a deadline.
func sockRecv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

// unixPair returns both ends of a connected Unix socket.
func unixPair(t *testing.T) (server, client *net.UnixConn) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan *net.UnixConn, 1)
	go func() {
		c, err := l.AcceptUnix()
		if err != nil {
			got <- nil
			return
		}
		got <- c
	}()
	client, err = net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	server = <-got
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { _ = server.Close(); _ = client.Close() })
	return server, client
}

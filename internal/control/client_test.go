package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

func dialSockClient(t *testing.T, s *Server) *Client {
	t.Helper()
	c, err := Dial(s.Path())
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestClientEveryMethod(t *testing.T) {
	s, fb := startSockServer(t)
	c := dialSockClient(t, s)
	ctx := context.Background()

	info, err := c.SessionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Session != "test" || info.Version != "v0-test" || info.Socket != s.Path() || info.PID == 0 || info.Started.IsZero() {
		t.Errorf("session.info = %+v", info)
	}

	a, err := c.Spawn(ctx, SpawnParams{Title: "tests", Cwd: "/tmp", Kind: "shell", Prompt: "p", Argv: []string{"go", "test"}, Env: map[string]string{"A": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != "a1" || a.Title != "tests" {
		t.Errorf("spawn = %+v", a)
	}
	if got := fb.spawned[0]; got.Cwd != "/tmp" || got.Kind != "shell" || got.Prompt != "p" || got.Env["A"] != "1" || strings.Join(got.Argv, " ") != "go test" {
		t.Errorf("backend got spawn request %+v", got)
	}
	if _, err := c.Spawn(ctx, SpawnParams{Argv: []string{"full"}}); err == nil || ErrorCode(err) != CodeServerError || !strings.Contains(err.Error(), "queue is full") {
		t.Errorf("spawn into a full queue: %v (code %d)", err, ErrorCode(err))
	}

	list, err := c.List(ctx)
	if err != nil || len(list) != 1 || list[0].ID != "a1" {
		t.Errorf("list = %+v, %v", list, err)
	}
	if got, err := c.Agent(ctx, "a1"); err != nil || got.ID != "a1" {
		t.Errorf("agent.get = %+v, %v", got, err)
	}
	if _, err := c.Agent(ctx, "a99"); ErrorCode(err) != CodeNotFound {
		t.Errorf("agent.get a99: %v, want code %d", err, CodeNotFound)
	}

	if err := c.Send(ctx, "a1", "hello\r"); err != nil {
		t.Fatal(err)
	}
	if got := string(fb.sent["a1"]); got != "hello\r" {
		t.Errorf("backend got %q", got)
	}
	if err := c.Send(ctx, "a9", "x"); err == nil || !strings.Contains(err.Error(), `no agent with id "a9"`) {
		t.Errorf("send to a9: %v", err)
	}

	text, err := c.Capture(ctx, "a1", true, 50)
	if err != nil || text != "\x1b[1mscreen of a1\nscrollback=50\x1b[0m" {
		t.Errorf("capture = %q, %v", text, err)
	}

	ex, err := c.Explain(ctx, "a1")
	if err != nil || ex.Agent.ID != "a1" || len(ex.History) != 2 || ex.History[1].To != agentstate.Running {
		t.Errorf("explain = %+v, %v", ex, err)
	}

	sig := agentstate.Signal{Event: "PreToolUse", State: "running", Status: "Bash: go test", SubagentDelta: 1}
	if err := c.Signal(ctx, "a1", "claude", sig); err != nil {
		t.Fatal(err)
	}
	if got := fb.signals; len(got) != 1 || got[0].Source != "claude" || got[0].Signal != sig {
		t.Errorf("backend got signals %+v", got)
	}

	if err := c.SetStatus(ctx, "build", "✓ green", "a1", 30*time.Second); err != nil {
		t.Fatal(err)
	}
	e := fb.status.Entries()
	if len(e) != 1 || e[0].Text != "✓ green" || e[0].Agent != "a1" || e[0].TTL != 30*time.Second {
		t.Errorf("status entries = %+v", e)
	}
	if err := c.ClearStatus(ctx, "build"); err != nil {
		t.Fatal(err)
	}
	if e := fb.status.Entries(); len(e) != 0 {
		t.Errorf("status entries after clear = %+v", e)
	}

	// Wait with a timeout on a running agent: the current state, flagged.
	res, err := c.Wait(ctx, []string{"a1"}, 20*time.Millisecond)
	if err != nil || !res.TimedOut || len(res.Agents) != 1 || res.Agents[0].State != agentstate.Running {
		t.Errorf("wait with timeout = %+v, %v", res, err)
	}
	fb.finish("a1", 3)
	res, err = c.Wait(ctx, []string{"a1"}, time.Minute)
	if err != nil || res.TimedOut || res.Agents[0].State != agentstate.Failed || *res.Agents[0].ExitCode != 3 {
		t.Errorf("wait on a finished agent = %+v, %v", res, err)
	}
	if _, err := c.Wait(ctx, []string{"nope"}, 0); err == nil {
		t.Error("wait on an unknown agent succeeded")
	}

	if err := c.CloseAgent(ctx, "a1"); err != nil {
		t.Fatal(err)
	}
	if len(fb.closed) != 1 || fb.closed[0] != "a1" {
		t.Errorf("backend closed %v", fb.closed)
	}
}

func TestClientContextCancelStopsServerWait(t *testing.T) {
	s, fb := startSockServer(t)
	c := dialSockClient(t, s)
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"sleep"}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Wait(ctx, []string{a.ID}, 0)
		done <- err
	}()
	sockRecv(t, fb.waitEntered, "agent.wait to reach the backend")
	cancel()
	if err := sockRecv(t, done, "the client call to return"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait returned %v, want context.Canceled", err)
	}
	if err := sockRecv(t, fb.waitEnded, "the backend Wait to end"); !errors.Is(err, context.Canceled) {
		t.Fatalf("backend Wait ended with %v, want context.Canceled", err)
	}
	// The client is still usable.
	if _, err := c.List(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestClientDeadline(t *testing.T) {
	s, fb := startSockServer(t)
	c := dialSockClient(t, s)
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"sleep"}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err := c.Wait(ctx, []string{a.ID}, 0)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait returned %v, want context.DeadlineExceeded", err)
	}
}

func TestClientConcurrentCallsDuringWait(t *testing.T) {
	s, fb := startSockServer(t)
	c := dialSockClient(t, s)
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"sleep"}})
	waited := make(chan error, 1)
	go func() {
		_, err := c.Wait(context.Background(), []string{a.ID}, 0)
		waited <- err
	}()
	sockRecv(t, fb.waitEntered, "agent.wait to reach the backend")
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := c.Agent(ctx, a.ID); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	fb.finish(a.ID, 0)
	if err := sockRecv(t, waited, "the wait"); err != nil {
		t.Fatal(err)
	}
}

func TestDialErrors(t *testing.T) {
	t.Setenv(EnvSocket, "")
	if _, err := DialEnv(); !errors.Is(err, ErrNoSession) || !strings.Contains(err.Error(), "AGENTGRID_SOCKET is not set") {
		t.Errorf("DialEnv outside a session: %v", err)
	}
	path := t.TempDir() + "/none.sock"
	t.Setenv(EnvSocket, path)
	_, err := DialEnv()
	if err == nil || !strings.Contains(err.Error(), "no agentgrid session is listening on "+path) {
		t.Errorf("DialEnv to a missing socket: %v", err)
	}
	if _, err := Dial(""); err == nil {
		t.Error("Dial with an empty path succeeded")
	}
}

func TestClientAfterSessionEnds(t *testing.T) {
	fb := newSockBackend()
	s, err := StartServer(t.TempDir()+"/e.sock", fb, ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.List(ctx); err == nil {
		t.Fatal("List succeeded after the session ended")
	}
	if _, err := c.List(ctx); err == nil || !strings.Contains(err.Error(), "no agentgrid session is listening") {
		t.Fatalf("List on a fresh connection after the end: %v", err)
	}
}

func TestClientRefusesOversizedRequest(t *testing.T) {
	s, _ := startSockServer(t)
	c := dialSockClient(t, s)
	err := c.Send(context.Background(), "a1", strings.Repeat("x", MaxMessageSize))
	if err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("oversized send: %v", err)
	}
}

// A notification of a client with a token (an agent's hook) is written and
// forgotten: Notify returns without a reply, and the session still runs it
// after the client hung up. A session that is gone is an error that names
// the socket.
func TestClientNotify(t *testing.T) {
	s, fb := startSockServer(t)
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"sleep"}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Connect(ctx, s.Path(), "an-agents-token")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sig := agentstate.Signal{State: "waiting", Why: "permission: Bash"}
	if err := c.Notify(ctx, MethodAgentSignal, SignalParams{ID: a.ID, CLI: "claude", Signal: sig}); err != nil {
		t.Fatalf("notify: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		fb.mu.Lock()
		calls := slices.Clone(fb.signals)
		fb.mu.Unlock()
		if len(calls) == 1 {
			if calls[0].ID != a.ID || calls[0].Source != "claude" || calls[0].Signal != sig {
				t.Errorf("signal = %+v", calls[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the notified signal never reached the backend (%d calls)", len(calls))
		}
		time.Sleep(5 * time.Millisecond)
	}
	// A blocking method as a notification holds up nothing: the next call
	// answers at once.
	if err := c.Notify(ctx, MethodAgentWait, WaitParams{IDs: []string{a.ID}}); err != nil {
		t.Fatalf("notify agent.wait: %v", err)
	}
	if _, err := c.List(ctx); err != nil {
		t.Fatalf("list after a blocking notification: %v", err)
	}

	path := s.Path()
	_ = s.Close()
	if err := c.Notify(ctx, MethodAgentSignal, SignalParams{ID: a.ID, CLI: "claude", Signal: sig}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("notify a closed session: %v, want an error naming %s", err, path)
	}
}

// Without a token, Notify waits for the session's reply: the session looks
// the sender up to tell the user's shell from a process inside it, and a
// sender that wrote and exited before that counts as inside, so its request
// would be refused. The stand-in session replies only to requests with an
// id, after checking the line; the reply is what Notify returns on.
func TestClientNotifyWithoutTokenWaitsForTheReply(t *testing.T) {
	path := filepath.Join(t.TempDir(), "n.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan Request, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		line, err := bufio.NewReader(c).ReadBytes('\n')
		if err != nil {
			return
		}
		var req Request
		_ = json.Unmarshal(line, &req)
		got <- req
		if len(req.ID) > 0 {
			_, _ = c.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":null}` + "\n"))
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Connect(ctx, path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Notify(ctx, MethodAgentSignal, SignalParams{ID: "a1", CLI: "claude"}); err != nil {
		t.Fatalf("notify without a token: %v", err)
	}
	select {
	case req := <-got:
		if len(req.ID) == 0 || isNull(req.ID) {
			t.Errorf("a tokenless notification was sent without an id (%+v), so the client did not wait to be identified", req)
		}
	default:
		t.Fatal("Notify returned before the session read the request")
	}
}

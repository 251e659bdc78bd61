package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

func TestServerGarbageLines(t *testing.T) {
	s, _ := startSockServer(t)
	rc := dialSockConn(t, s.Path())
	for _, line := range []string{"hello", "{", `[1,2`, `{"jsonrpc":"2.0",}`, "\x00\x01\x02"} {
		rc.send(line)
		r := rc.recvResponse()
		if r.Error == nil || r.Error.Code != CodeParseError {
			t.Errorf("line %q: reply %+v, want parse error %d", line, r.Error, CodeParseError)
		}
		if string(r.ID) != "null" {
			t.Errorf("line %q: id = %s, want null", line, r.ID)
		}
	}
	// Blank lines are ignored; the connection still works.
	rc.send("")
	rc.send(`{"jsonrpc":"2.0","id":7,"method":"session.info"}`)
	r := rc.recvResponse()
	if r.Error != nil || string(r.ID) != "7" {
		t.Fatalf("after garbage: reply %+v id %s", r.Error, r.ID)
	}
}

func TestServerInvalidRequests(t *testing.T) {
	s, _ := startSockServer(t)
	rc := dialSockConn(t, s.Path())
	tests := []struct {
		line, id string
	}{
		{`42`, "null"},
		{`"agent.list"`, "null"},
		{`{"method":"agent.list","id":1}`, "1"},
		{`{"jsonrpc":"1.0","method":"agent.list","id":2}`, "2"},
		{`{"jsonrpc":2,"method":"agent.list","id":3}`, "3"},
		{`{"jsonrpc":"2.0","id":4}`, "4"},
		{`{"jsonrpc":"2.0","method":5,"id":5}`, "5"},
		{`{"jsonrpc":"2.0","method":"","id":6}`, "6"},
		{`{"jsonrpc":"2.0","method":"agent.list","id":{"x":1}}`, "null"},
		{`{"jsonrpc":"2.0","method":"agent.list","id":"s","params":"x"}`, `"s"`},
		{`[]`, "null"},
	}
	for _, tt := range tests {
		rc.send(tt.line)
		r := rc.recvResponse()
		if r.Error == nil || r.Error.Code != CodeInvalidRequest {
			t.Errorf("%s: error %+v, want %d", tt.line, r.Error, CodeInvalidRequest)
			continue
		}
		if string(r.ID) != tt.id {
			t.Errorf("%s: id = %s, want %s", tt.line, r.ID, tt.id)
		}
	}
}

func TestServerUnknownMethod(t *testing.T) {
	s, _ := startSockServer(t)
	rc := dialSockConn(t, s.Path())
	rc.send(`{"jsonrpc":"2.0","id":"x","method":"agent.explode"}`)
	r := rc.recvResponse()
	if r.Error == nil || r.Error.Code != CodeMethodNotFound || !strings.Contains(r.Error.Message, "agent.explode") {
		t.Fatalf("reply %+v, want method not found naming the method", r.Error)
	}
	if string(r.ID) != `"x"` {
		t.Errorf("id = %s", r.ID)
	}
}

func TestServerBadParams(t *testing.T) {
	s, fb := startSockServer(t)
	if _, err := fb.Spawn(SpawnRequest{Argv: []string{"sh"}}); err != nil {
		t.Fatal(err)
	}
	rc := dialSockConn(t, s.Path())
	tests := []struct {
		method, params, want string
	}{
		{"agent.get", `{}`, "id is required"},
		{"agent.get", `{"id":5}`, "id must be a string"},
		{"agent.get", `{"id":"a1","extra":1}`, `unknown field "extra"`},
		{"agent.get", `["a1"]`, "params must be an object"},
		{"agent.wait", `{"ids":"a1"}`, "ids must be an array"},
		{"agent.wait", `{"ids":[]}`, "ids must list at least one"},
		{"agent.wait", `{"ids":["a1",""]}`, "ids[1] is empty"},
		{"agent.wait", `{"ids":["a1"],"timeout_ms":-5}`, "timeout_ms must be between 0 and"},
		{"agent.wait", `{"ids":["a1"],"timeout_ms":"5s"}`, "timeout_ms must be an integer"},
		{"agent.spawn", `{"title":"x"}`, "argv is required"},
		{"agent.spawn", `{"argv":["sh"],"env":{"A=B":"c"}}`, "invalid variable name"},
		{"agent.send", `{"id":"a1"}`, "text is empty"},
		{"agent.capture", `{"id":"a1","scrollback":-1}`, "scrollback must be between 0 and"},
		{"agent.capture", `{"id":"a1","escapes":"yes"}`, "escapes must be true or false"},
		{"agent.signal", `{"id":"a1"}`, "cli is required"},
		{"agent.signal", `{"id":"a1","cli":"claude","signal":{"state":5}}`, "signal.state must be a string"},
		{"agent.signal", `{"id":"a1","cli":"claude","signal":[1]}`, "signal must be an object"},
		{"status.set", `{"text":"x"}`, "key is required"},
		{"status.set", `{"key":"k","text":"x","ttl_ms":-1}`, "ttl_ms must be between 0 and"},
		{"session.info", `{"x":1}`, `unknown field "x"`},
	}
	for i, tt := range tests {
		rc.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, i, tt.method, tt.params))
		r := rc.recvResponse()
		if r.Error == nil || r.Error.Code != CodeInvalidParams || !strings.Contains(r.Error.Message, tt.want) {
			t.Errorf("%s %s: error %+v, want %d containing %q", tt.method, tt.params, r.Error, CodeInvalidParams, tt.want)
		}
		if string(r.ID) != fmt.Sprint(i) {
			t.Errorf("%s %s: id %s, want %d", tt.method, tt.params, r.ID, i)
		}
	}
}

func TestServerNotificationGetsNoReply(t *testing.T) {
	s, fb := startSockServer(t)
	rc := dialSockConn(t, s.Path())
	rc.send(`{"jsonrpc":"2.0","method":"status.set","params":{"key":"build","text":"green"}}`)
	rc.send(`{"jsonrpc":"2.0","method":"no.such.method"}`)
	rc.send(`{"jsonrpc":"2.0","id":1,"method":"agent.list"}`)
	r := rc.recvResponse()
	if string(r.ID) != "1" || r.Error != nil {
		t.Fatalf("first reply is %s %+v, want the reply to id 1", r.ID, r.Error)
	}
	entries := fb.status.Entries()
	if len(entries) != 1 || entries[0].Key != "build" || entries[0].Text != "green" || entries[0].Source != "socket" {
		t.Fatalf("status entries = %+v", entries)
	}
}

func TestServerNullIDIsARequest(t *testing.T) {
	s, _ := startSockServer(t)
	rc := dialSockConn(t, s.Path())
	rc.send(`{"jsonrpc":"2.0","id":null,"method":"agent.list"}`)
	r := rc.recvResponse()
	if string(r.ID) != "null" || r.Error != nil || string(r.Result) != "[]" {
		t.Fatalf("reply id=%s err=%+v result=%s", r.ID, r.Error, r.Result)
	}
}

func TestServerBatch(t *testing.T) {
	s, _ := startSockServer(t)
	rc := dialSockConn(t, s.Path())
	rc.send(`[{"jsonrpc":"2.0","id":1,"method":"agent.list"},` +
		`{"jsonrpc":"2.0","method":"status.set","params":{"key":"k","text":"t"}},` +
		`{"jsonrpc":"2.0","id":2,"method":"nope"}, 5]`)
	var replies []Response
	if err := json.Unmarshal([]byte(rc.recv()), &replies); err != nil {
		t.Fatal(err)
	}
	if len(replies) != 3 {
		t.Fatalf("got %d replies, want 3 (the notification gets none): %+v", len(replies), replies)
	}
	if string(replies[0].ID) != "1" || replies[0].Error != nil {
		t.Errorf("reply 0 = %+v", replies[0])
	}
	if replies[1].Error == nil || replies[1].Error.Code != CodeMethodNotFound {
		t.Errorf("reply 1 = %+v", replies[1])
	}
	if replies[2].Error == nil || replies[2].Error.Code != CodeInvalidRequest {
		t.Errorf("reply 2 = %+v", replies[2])
	}
	// A batch of notifications only gets no reply at all.
	rc.send(`[{"jsonrpc":"2.0","method":"agent.list"}]`)
	rc.send(`{"jsonrpc":"2.0","id":3,"method":"agent.list"}`)
	if r := rc.recvResponse(); string(r.ID) != "3" {
		t.Fatalf("reply to id %s, want 3", r.ID)
	}
}

func TestServerOversizedMessage(t *testing.T) {
	s, _ := startSockServer(t)
	rc := dialSockConn(t, s.Path())
	writeErr := make(chan error, 1)
	go func() {
		big := make([]byte, 2<<20)
		for i := range big {
			big[i] = 'x'
		}
		big[len(big)-1] = '\n'
		_ = rc.c.SetWriteDeadline(time.Now().Add(10 * time.Second))
		_, err := rc.c.Write(big)
		writeErr <- err
	}()
	r := rc.recvResponse()
	if r.Error == nil || r.Error.Code != CodeInvalidRequest || !strings.Contains(r.Error.Message, "too long") {
		t.Fatalf("reply %+v, want 'message too long'", r.Error)
	}
	// The server hangs up instead of reading the rest.
	_ = rc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := rc.r.ReadByte(); err == nil {
		t.Fatal("connection still open after an oversized message")
	}
	if err := sockRecv(t, writeErr, "the writer to give up"); err == nil {
		t.Error("writing 2 MiB succeeded; the server read the whole message")
	}

	// The session carries on.
	c, err := Dial(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.List(context.Background()); err != nil {
		t.Fatalf("list after an oversized message: %v", err)
	}
}

func TestServerAcceptsMessageJustUnderLimit(t *testing.T) {
	s, fb := startSockServer(t)
	c, err := Dial(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	text := strings.Repeat("y", MaxMessageSize-200)
	if err := c.SetStatus(context.Background(), "big", text, "", 0); err != nil {
		t.Fatalf("status.set with a %d-byte text: %v", len(text), err)
	}
	if e := fb.status.Entries(); len(e) != 1 {
		t.Fatalf("entries = %d, want 1", len(e))
	}
}

func TestServerClientDisconnectCancelsWait(t *testing.T) {
	s, fb := startSockServer(t)
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"sleep", "100"}})
	rc := dialSockConn(t, s.Path())
	rc.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"agent.wait","params":{"ids":[%q]}}`, a.ID))
	sockRecv(t, fb.waitEntered, "agent.wait to reach the backend")
	_ = rc.c.Close()
	err := sockRecv(t, fb.waitEnded, "the backend's Wait to return")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait ended with %v, want context.Canceled", err)
	}
}

func TestServerHalfCloseStillAnswered(t *testing.T) {
	s, _ := startSockServer(t)
	rc := dialSockConn(t, s.Path())
	rc.send(`{"jsonrpc":"2.0","id":1,"method":"session.info"}`)
	if err := rc.c.(*net.UnixConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	r := rc.recvResponse()
	if r.Error != nil {
		t.Fatalf("session.info after half-close: %+v", r.Error)
	}
}

func TestServerCloseCancelsInFlightWait(t *testing.T) {
	fb := newSockBackend()
	s, err := StartServer(filepath.Join(t.TempDir(), "c.sock"), fb, ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"sleep"}})
	c, err := Dial(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	done := make(chan error, 1)
	go func() {
		_, err := c.Wait(context.Background(), []string{a.ID}, 0)
		done <- err
	}()
	sockRecv(t, fb.waitEntered, "agent.wait to reach the backend")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sockRecv(t, fb.waitEnded, "Wait to end"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait ended with %v, want context.Canceled", err)
	}
	if err := sockRecv(t, done, "the client's Wait to return"); err == nil {
		t.Fatal("client Wait returned no error after the session closed")
	}
}

func TestServerPanicBecomesInternalError(t *testing.T) {
	s, _ := startSockServer(t)
	rc := dialSockConn(t, s.Path())
	rc.send(`{"jsonrpc":"2.0","id":1,"method":"agent.capture","params":{"id":"boom"}}`)
	r := rc.recvResponse()
	if r.Error == nil || r.Error.Code != CodeInternalError {
		t.Fatalf("reply %+v, want internal error", r.Error)
	}
	rc.send(`{"jsonrpc":"2.0","id":2,"method":"agent.list"}`)
	if r := rc.recvResponse(); r.Error != nil {
		t.Fatalf("after a panic: %+v", r.Error)
	}
}

func TestServerPipelinedRepliesInOrder(t *testing.T) {
	s, _ := startSockServer(t)
	rc := dialSockConn(t, s.Path())
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"agent.list"}`+"\n", i)
	}
	if _, err := rc.c.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if r := rc.recvResponse(); string(r.ID) != fmt.Sprint(i) {
			t.Fatalf("reply %d has id %s", i, r.ID)
		}
	}
}

func TestServerConcurrentClients(t *testing.T) {
	s, fb := startSockServer(t)
	// A wait in flight on one connection must not hold up anyone else.
	blocker, _ := fb.Spawn(SpawnRequest{Argv: []string{"sleep"}})
	wc, err := Dial(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer wc.Close()
	waited := make(chan WaitResult, 1)
	go func() {
		res, _ := wc.Wait(context.Background(), []string{blocker.ID}, 0)
		waited <- res
	}()
	sockRecv(t, fb.waitEntered, "the blocking wait")

	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			c, err := Dial(s.Path())
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			a, err := c.Spawn(ctx, SpawnParams{Title: fmt.Sprintf("c%d", i), Argv: []string{"true"}})
			if err != nil {
				errs <- err
				return
			}
			got, err := c.Agent(ctx, a.ID)
			if err != nil || got.Title != fmt.Sprintf("c%d", i) {
				errs <- fmt.Errorf("agent.get %s = %+v, %v", a.ID, got, err)
				return
			}
			if err := c.SetStatus(ctx, fmt.Sprintf("k%02d", i), "v", a.ID, 0); err != nil {
				errs <- err
				return
			}
			if _, err := c.List(ctx); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := len(fb.List()); got != n+1 {
		t.Errorf("%d agents, want %d", got, n+1)
	}
	if got := len(fb.status.Entries()); got != n {
		t.Errorf("%d status entries, want %d", got, n)
	}
	fb.finish(blocker.ID, 0)
	res := sockRecv(t, waited, "the blocking wait to finish")
	if len(res.Agents) != 1 || res.Agents[0].State != agentstate.Done {
		t.Errorf("wait result %+v", res)
	}
}

func TestLineReader(t *testing.T) {
	in := "one\r\ntwo\n\nthree"
	lr := NewLineReader(strings.NewReader(in), 10)
	var got []string
	for {
		line, err := lr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		got = append(got, string(line))
	}
	if want := []string{"one", "two", "", "three"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("lines = %q, want %q", got, want)
	}

	lr = NewLineReader(strings.NewReader(strings.Repeat("z", 10)+"\n"+strings.Repeat("z", 11)+"\n"), 10)
	if line, err := lr.Next(); err != nil || len(line) != 10 {
		t.Errorf("a line of exactly the limit: %q, %v", line, err)
	}
	if _, err := lr.Next(); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("a line over the limit: err = %v, want ErrLineTooLong", err)
	}
	// Longer than the bufio buffer but within the limit.
	long := strings.Repeat("q", 200<<10)
	lr = NewLineReader(strings.NewReader(long+"\n"), 1<<20)
	if line, err := lr.Next(); err != nil || string(line) != long {
		t.Errorf("a 200 KiB line: len %d, err %v", len(line), err)
	}
}

func TestServerSignalToleratesNewFields(t *testing.T) {
	s, fb := startSockServer(t)
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"claude"}})
	rc := dialSockConn(t, s.Path())
	rc.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"agent.signal","params":{"id":%q,"cli":"claude","signal":{"event":"Stop","state":"idle","from_the_future":true}}}`, a.ID))
	if r := rc.recvResponse(); r.Error != nil {
		t.Fatalf("signal with an unknown field: %+v", r.Error)
	}
	if len(fb.signals) != 1 || fb.signals[0].Signal.State != "idle" || fb.signals[0].Source != "claude" {
		t.Fatalf("backend got %+v", fb.signals)
	}
}

// FuzzServerHandleLine feeds arbitrary lines to the request handler: it must
// never panic, and must answer with nothing or with valid JSON-RPC.
func FuzzServerHandleLine(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"agent.list"}`,
		`{"jsonrpc":"2.0","id":"x","method":"agent.wait","params":{"ids":["a1"],"timeout_ms":1}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"agent.get","params":{"id":"a1"}},{"jsonrpc":"2.0","method":"status.set","params":{"key":"k","text":"t"}}]`,
		`{"jsonrpc":"2.0","id":2,"method":"agent.signal","params":{"id":"a1","cli":"claude","signal":{"state":"waiting"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"agent.spawn","params":{"argv":["sh"],"env":{"A":"1"}}}`,
		`{"jsonrpc":"2.0","id":null}`, `[]`, `[[]]`, `null`, `{`, "\xff", `{"id":1e999}`,
	} {
		f.Add(seed)
	}
	fb := newSockBackend()
	_, _ = fb.Spawn(SpawnRequest{Argv: []string{"sh"}})
	fb.finish("a1", 0)
	s := &Server{b: fb, log: slog.New(slog.DiscardHandler), started: time.Now()}
	f.Fuzz(func(t *testing.T, line string) {
		// A wait in the input must not block the fuzzer.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		out := s.handleLine(ctx, []byte(line))
		if out == nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("reply to %q is not JSON: %q", line, out)
		}
		var one Response
		var many []Response
		if json.Unmarshal(out, &one) != nil && json.Unmarshal(out, &many) != nil {
			t.Fatalf("reply to %q is not a response: %q", line, out)
		}
	})
}

// TestServerNotificationThenHangUp is how `agentgrid hook` talks: one
// notification, then the connection closes at once. The signal must still
// be applied.
func TestServerNotificationThenHangUp(t *testing.T) {
	s, fb := startSockServer(t)
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"claude"}})
	for range 20 {
		c, err := net.Dial("unix", s.Path())
		if err != nil {
			t.Fatal(err)
		}
		_, err = fmt.Fprintf(c, `{"jsonrpc":"2.0","method":"agent.signal","params":{"id":%q,"cli":"claude","signal":{"state":"running"}}}`+"\n", a.ID)
		_ = c.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		fb.mu.Lock()
		n := len(fb.signals)
		fb.mu.Unlock()
		if n == 20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 20 signals applied", n)
		}
		time.Sleep(time.Millisecond) // polling the backend's record
	}
}

package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

// mcpPipe runs RunMCP over pipes, as `agentgrid mcp` runs over stdio, and
// returns the client's ends.
type mcpPipe struct {
	t    testing.TB
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func startMCPPipe(t testing.TB) *mcpPipe {
	t.Helper()
	srv, _ := startMCPSocket(t)
	client, err := control.Dial(srv.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &mcpPipe{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<16), done: make(chan error, 1)}
	go func() { p.done <- Run(context.Background(), client, inR, outW); _ = outW.Close() }()
	t.Cleanup(func() { _ = inW.Close(); _ = outR.Close() })
	return p
}

func (p *mcpPipe) send(line string) {
	p.t.Helper()
	errc := make(chan error, 1)
	go func() { _, err := io.WriteString(p.in, line+"\n"); errc <- err }()
	if err := sockRecv(p.t, errc, "the MCP server to read a line"); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

type mcpReply struct {
	ID     json.RawMessage   `json:"id"`
	Result json.RawMessage   `json:"result"`
	Error  *control.RPCError `json:"error"`
}

// recvLine reads one line the server wrote.
func (p *mcpPipe) recvLine() string {
	p.t.Helper()
	linec := make(chan string, 1)
	go func() { l, _ := p.out.ReadString('\n'); linec <- l }()
	return sockRecv(p.t, linec, "a reply from the MCP server")
}

func (p *mcpPipe) recv() mcpReply {
	p.t.Helper()
	line := p.recvLine()
	var r mcpReply
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		p.t.Fatalf("reply %q: %v", line, err)
	}
	return r
}

// 8.13: malformed lines get a JSON-RPC error and the server keeps serving.
func TestMCPSurvivesMalformedLines(t *testing.T) {
	p := startMCPPipe(t)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r := p.recv(); r.Error != nil || string(r.ID) != "1" {
		t.Fatalf("initialize: %+v", r)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	bad := []struct {
		line, id string
		code     int
	}{
		{"garbage \x1b[31m", "null", control.CodeParseError},
		{`[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`, "null", control.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"wait_agent","arguments":{"ids":["a1"],"timeout_seconds":NaN}}}`, "null", control.CodeParseError},
		{`{"jsonrpc":"2.0","id":"x` + strings.Repeat("y", maxMCPLine) + `"}`, "null", control.CodeInvalidRequest},
		{`"just a string"`, "null", control.CodeInvalidRequest},
		{`{"jsonrpc":"1.0","id":8,"method":"tools/list"}`, "8", control.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}`, "null", control.CodeInvalidRequest},
		{"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/li\xffst\"}", "9", control.CodeMethodNotFound},
	}
	for _, b := range bad {
		p.send(b.line)
		r := p.recv()
		if r.Error == nil || r.Error.Code != b.code || string(r.ID) != b.id {
			t.Errorf("%.60q: got id %s error %+v, want id %s code %d", b.line, r.ID, r.Error, b.id, b.code)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	r := p.recv()
	if r.Error != nil || string(r.ID) != "2" || !strings.Contains(string(r.Result), "spawn_agent") {
		t.Fatalf("tools/list after malformed lines: %+v", r)
	}
	select {
	case err := <-p.done:
		t.Fatalf("RunMCP ended: %v", err)
	default:
	}
	_ = p.in.Close()
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("RunMCP returned %v at the end of its input", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("RunMCP did not return at the end of its input")
	}
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

// TestMCPInitializeNegotiates: a client gets the protocol version it asks
// for when the server speaks it, else the newest the server speaks; the
// SDK-era methods a client may try first (server/discover) are unknown
// methods, which tells the client to fall back to initialize.
func TestMCPInitializeNegotiates(t *testing.T) {
	p := startMCPPipe(t)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`)
	if r := p.recv(); r.Error == nil || r.Error.Code != control.CodeMethodNotFound {
		t.Fatalf("server/discover: %+v", r)
	}
	for ask, want := range map[string]string{"2025-06-18": "2025-06-18", "2024-11-05": "2024-11-05", "2099-01-01": protocolVersions[0]} {
		p.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"` + ask + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		r := p.recv()
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
			Capabilities    struct {
				Tools *struct{} `json:"tools"`
			} `json:"capabilities"`
			ServerInfo struct{ Name string } `json:"serverInfo"`
		}
		if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res.ProtocolVersion != want || res.Capabilities.Tools == nil || res.ServerInfo.Name != "agentgrid" {
			t.Errorf("initialize asking %s: %+v %s, want version %s with tools", ask, r.Error, r.Result, want)
		}
	}
}

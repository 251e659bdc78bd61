package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMCPSurvivesMalformedLines sends the real `agentgrid mcp` lines that
// are not one valid message: each gets a JSON-RPC error, and the server
// keeps answering (before, the first one ended it and the orchestrator lost
// its tools).
func TestMCPSurvivesMalformedLines(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 40, "")
	h.startSession("--", "sh")

	cmd := exec.Command(binary, "mcp")
	cmd.Env = append(append([]string{}, h.env...), "AGENTGRID_SOCKET="+h.socketPath())
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = in.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	lines := make(chan string, 64)
	go func() {
		r := bufio.NewReaderSize(outPipe, 1<<16)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- l
		}
	}()
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(in, s+"\n"); err != nil {
			t.Fatalf("write to agentgrid mcp: %v", err)
		}
	}
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	recv := func(what string) reply {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("agentgrid mcp closed its output waiting for %s (exit: %v)", what, <-exited)
			}
			var r reply
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%s: %q is not JSON: %v", what, l, err)
			}
			return r
		case <-time.After(20 * time.Second):
			t.Fatalf("no reply for %s", what)
		}
		return reply{}
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	if r := recv("initialize"); r.Error != nil {
		t.Fatalf("initialize: %+v", r.Error)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, b := range []struct {
		name, line string
		code       int
	}{
		{"garbage", "this is not json", -32700},
		{"a batch", `[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`, -32600},
		{"NaN", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait_agent","arguments":{"ids":["a1"],"timeout_seconds":NaN}}}`, -32700},
		{"a 5 MiB line", `{"jsonrpc":"2.0","id":4,"method":"` + strings.Repeat("x", 5<<20) + `"}`, -32600},
	} {
		send(b.line)
		if r := recv(b.name); r.Error == nil || r.Error.Code != b.code || string(r.ID) != "null" {
			t.Errorf("%s: got id %s error %+v, want id null code %d", b.name, r.ID, r.Error, b.code)
		}
	}
	send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	if r := recv("tools/list"); r.Error != nil || string(r.ID) != "5" || !strings.Contains(string(r.Result), "spawn_agent") {
		t.Fatalf("tools/list after the malformed lines: id %s error %+v result %.200s", r.ID, r.Error, r.Result)
	}
}

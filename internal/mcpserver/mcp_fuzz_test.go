package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// FuzzMCPInput feeds arbitrary input to `agentgrid mcp`'s server, line by
// line as the MCP client would send it: the server must not panic, must
// answer only with JSON lines, and must still answer a valid request
// afterwards.
func FuzzMCPInput(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_agents","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait_agent","arguments":{"ids":["a9"],"timeout_seconds":1e-12}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_agent_output","arguments":{"id":"a1","scrollback":100000}}}`,
		`[{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"set_status","arguments":{"key":"k","text":"t","ttl":"99999999h"}}}`,
		"garbage\n{\"jsonrpc\":\"2.0\",\"id\":NaN}\n[]\n{}",
		`{"jsonrpc":"2.0","id":7,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		"\xff\xfe{\"jsonrpc\":\"2.0\"",
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"spawn_agent","arguments":{"argv":["sh"]}}}` + "\n" +
			`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"wait_agent","arguments":{"ids":["a1"]}}}`,
	} {
		f.Add(seed)
	}
	p := startMCPPipe(f)
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	probe := 0
	f.Fuzz(func(t *testing.T, input string) {
		p.t = t
		probe++
		id := fmt.Sprintf(`"probe-%d"`, probe)
		p.send(strings.ReplaceAll(input, "\r", "") + "\n" + `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		for {
			line := p.recvLine()
			var r mcpReply
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("after %q the server wrote a line that is not JSON: %q", input, line)
			}
			if string(r.ID) == id {
				if r.Error != nil {
					t.Fatalf("ping after %q: %+v", input, r.Error)
				}
				return
			}
		}
	})
}

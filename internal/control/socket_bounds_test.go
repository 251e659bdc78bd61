package control

import (
	"strings"
	"testing"
	"time"
)

// 8.8: every number on the socket has a range; out of range (or negative)
// is an invalid-params error, never an overflow.
func TestServerRejectsOutOfRangeNumbers(t *testing.T) {
	s, fb := startSockServer(t)
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"sleep"}})
	rc := dialSockConn(t, s.Path())
	cases := []struct {
		params, method, want string
	}{
		{`{"ids":["` + a.ID + `"],"timeout_ms":9223372036854775807}`, MethodAgentWait, "timeout_ms must be between 0 and"},
		{`{"ids":["` + a.ID + `"],"timeout_ms":2592000001}`, MethodAgentWait, "timeout_ms must be between 0 and"},
		{`{"ids":["` + a.ID + `"],"timeout_ms":-1}`, MethodAgentWait, "timeout_ms must be between 0 and"},
		{`{"ids":["` + a.ID + `"],"timeout_ms":1.5}`, MethodAgentWait, "timeout_ms must be an integer"},
		{`{"ids":["` + a.ID + `"],"timeout_ms":1e400}`, MethodAgentWait, "timeout_ms must be an integer"},
		{`{"key":"k","text":"t","ttl_ms":9223372036854775807}`, MethodStatusSet, "ttl_ms must be between 0 and"},
		{`{"key":"k","text":"t","ttl_ms":-5}`, MethodStatusSet, "ttl_ms must be between 0 and"},
		{`{"id":"` + a.ID + `","scrollback":4611686018427387904}`, MethodAgentCapture, "scrollback must be between 0 and"},
		{`{"id":"` + a.ID + `","scrollback":-1}`, MethodAgentCapture, "scrollback must be between 0 and"},
		{`{"id":"` + a.ID + `","cli":"claude","signal":{"subagent_delta":4611686018427387904}}`, MethodAgentSignal, "subagent_delta must be between"},
	}
	for _, tc := range cases {
		rc.send(`{"jsonrpc":"2.0","id":1,"method":"` + tc.method + `","params":` + tc.params + `}`)
		r := rc.recvResponse()
		if r.Error == nil || r.Error.Code != CodeInvalidParams || !strings.Contains(r.Error.Message, tc.want) {
			t.Errorf("%s %s: got %+v / %s, want invalid params %q", tc.method, tc.params, r.Error, r.Result, tc.want)
		}
	}
	rc.send(`{"jsonrpc":"2.0","id":1,"method":"agent.wait","params":{"ids":["` + a.ID + `"],"timeout_ms":NaN}}`)
	if r := rc.recvResponse(); r.Error == nil || r.Error.Code != CodeParseError {
		t.Errorf("NaN: got %+v, want a parse error", r.Error)
	}
	if es := fb.status.Entries(); len(es) != 0 {
		t.Errorf("a refused status.set left entries: %+v", es)
	}
	// The largest accepted ttl lives, and does not expire at once.
	rc.send(`{"jsonrpc":"2.0","id":1,"method":"status.set","params":{"key":"k","text":"t","ttl_ms":2592000000}}`)
	if r := rc.recvResponse(); r.Error != nil {
		t.Fatalf("ttl_ms of 30 days: %+v", r.Error)
	}
	if es := fb.status.Entries(); len(es) != 1 || es[0].TTL != 30*24*time.Hour {
		t.Errorf("entries = %+v", es)
	}
}

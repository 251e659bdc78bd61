package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

// answeringSession is a stand-in session socket: reply makes the response
// line for each request (nil: no reply). It records the requests.
func answeringSession(t *testing.T, reply func(req control.Request) *control.Response) (string, <-chan control.Request) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	reqs := make(chan control.Request, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					var req control.Request
					_ = json.Unmarshal(sc.Bytes(), &req)
					reqs <- req
					if resp := reply(req); resp != nil {
						b, _ := json.Marshal(resp)
						_, _ = c.Write(append(b, '\n'))
					}
				}
			}()
		}
	}()
	return path, reqs
}

const preToolWriteEnv = `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/p","tool_name":"Write","tool_input":{"file_path":"/p/.env"}}`

func TestRunHookPrintsTheSessionsAnswer(t *testing.T) {
	sock, reqs := answeringSession(t, func(req control.Request) *control.Response {
		if req.Method != control.MethodAgentDecide {
			return nil
		}
		res, _ := json.Marshal(map[string]string{"action": "block", "message": "no .env", "policy": "p"})
		return &control.Response{JSONRPC: "2.0", ID: req.ID, Result: res}
	})
	env := hookEnv(map[string]string{"AGENTGRID_SOCKET": sock, "AGENTGRID_AGENT_ID": "a4", "XDG_STATE_HOME": t.TempDir()})
	var out bytes.Buffer
	runHookTo([]string{"claude"}, strings.NewReader(preToolWriteEnv), &out, env, time.Now())
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no .env"}}` + "\n"
	if out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	req := <-reqs
	var p control.DecideParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		t.Fatal(err)
	}
	if p.ID != "a4" || p.CLI != "claude" || p.Ask.Point != "pre_tool" || p.Ask.Tool != "Write" || len(p.Ask.Paths) != 1 || p.Ask.Paths[0] != "/p/.env" || p.Signal.State != "running" {
		t.Errorf("agent.decide params %+v", p)
	}
}

// A session that does not answer in time: nothing printed, the miss logged,
// back within the budget (generous against a loaded machine).
func TestRunHookWithoutAnswerGoesAhead(t *testing.T) {
	sock, _ := answeringSession(t, func(control.Request) *control.Response { return nil })
	state := t.TempDir()
	if err := os.MkdirAll(filepath.Join(state, "agentgrid"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := hookEnv(map[string]string{"AGENTGRID_SOCKET": sock, "AGENTGRID_AGENT_ID": "a4", "XDG_STATE_HOME": state})
	var out bytes.Buffer
	start := time.Now()
	runHookTo([]string{"claude"}, strings.NewReader(preToolWriteEnv), &out, env, start)
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v with a session that never answers; the budget is %v", d, hookDecideBudget)
	}
	if out.Len() != 0 {
		t.Errorf("printed %q, want nothing", out.String())
	}
	logged, _ := os.ReadFile(filepath.Join(state, "agentgrid", "agentgrid.log"))
	if !strings.Contains(string(logged), "no decision at pre_tool, the agent goes ahead") {
		t.Errorf("log = %q, want the miss", logged)
	}
}

// A session from before agent.decide still gets the state.
func TestRunHookFallsBackToSignalOnAnOlderSession(t *testing.T) {
	sock, reqs := answeringSession(t, func(req control.Request) *control.Response {
		if req.Method == control.MethodAgentDecide {
			return &control.Response{JSONRPC: "2.0", ID: req.ID, Error: &control.RPCError{Code: control.CodeMethodNotFound, Message: "unknown method"}}
		}
		return nil
	})
	env := hookEnv(map[string]string{"AGENTGRID_SOCKET": sock, "AGENTGRID_AGENT_ID": "a4", "XDG_STATE_HOME": t.TempDir()})
	var out bytes.Buffer
	runHookTo([]string{"claude"}, strings.NewReader(preToolWriteEnv), &out, env, time.Now())
	if out.Len() != 0 {
		t.Errorf("printed %q", out.String())
	}
	var methods []string
	for len(methods) < 2 {
		select {
		case r := <-reqs:
			methods = append(methods, r.Method)
		case <-time.After(5 * time.Second):
			t.Fatalf("requests %v, want agent.decide then agent.signal", methods)
		}
	}
	if methods[0] != control.MethodAgentDecide || methods[1] != control.MethodAgentSignal {
		t.Errorf("requests %v, want agent.decide then agent.signal", methods)
	}
}

// An answer that carries notices about the agent's children is
// acknowledged once printed, so the session counts them delivered; one
// that carries none sends no acknowledgement.
func TestHookAcknowledgesNotices(t *testing.T) {
	for _, seq := range []int64{7, 0} {
		sock, reqs := answeringSession(t, func(req control.Request) *control.Response {
			var res json.RawMessage
			if req.Method == control.MethodAgentDecide {
				res, _ = json.Marshal(map[string]any{"action": "hint", "message": "agentgrid: a5 finished (exit 0)", "policy": "notices", "notices": seq})
			} else {
				res = json.RawMessage(`{"ok":true}`)
			}
			return &control.Response{JSONRPC: "2.0", ID: req.ID, Result: res}
		})
		env := hookEnv(map[string]string{"AGENTGRID_SOCKET": sock, "AGENTGRID_AGENT_ID": "main", "XDG_STATE_HOME": t.TempDir()})
		var out bytes.Buffer
		runHookTo([]string{"claude"}, strings.NewReader(`{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"next"}`), &out, env, time.Now())
		if !strings.Contains(out.String(), `"additionalContext":"agentgrid: a5 finished (exit 0)"`) {
			t.Errorf("printed %q, want the notice as context", out.String())
		}
		if r := <-reqs; r.Method != control.MethodAgentDecide {
			t.Fatalf("first request %s", r.Method)
		}
		select {
		case r := <-reqs:
			var p control.AckParams
			_ = json.Unmarshal(r.Params, &p)
			if seq == 0 || r.Method != control.MethodAgentAck || p.ID != "main" || p.Seq != seq {
				t.Errorf("after the answer (notices %d): %s %+v", seq, r.Method, p)
			}
		default:
			if seq != 0 {
				t.Errorf("no agent.ack after an answer carrying notices up to %d", seq)
			}
		}
	}
}

// A session slower than the default budget: with $AGENTGRID_HOOK_BUDGET
// raised, the hook waits for the decision and prints it. The stand-in
// answers only once twice the default budget has passed, so the default
// would have given up.
func TestRunHookWaitsTheBudgetFromTheEnvironment(t *testing.T) {
	sock, _ := answeringSession(t, func(req control.Request) *control.Response {
		if req.Method != control.MethodAgentDecide {
			return nil
		}
		time.Sleep(2 * hookDecideBudget) // the slow session under test
		res, _ := json.Marshal(map[string]string{"action": "block", "message": "no .env", "policy": "p"})
		return &control.Response{JSONRPC: "2.0", ID: req.ID, Result: res}
	})
	env := hookEnv(map[string]string{"AGENTGRID_SOCKET": sock, "AGENTGRID_AGENT_ID": "a4", "XDG_STATE_HOME": t.TempDir(),
		EnvHookBudget: "30s"})
	var out bytes.Buffer
	runHookTo([]string{"claude"}, strings.NewReader(preToolWriteEnv), &out, env, time.Now())
	if !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
		t.Errorf("printed %q with %s=30s and a session answering after %v; want the deny", out.String(), EnvHookBudget, 2*hookDecideBudget)
	}
}

func TestHookBudgetFromTheEnvironment(t *testing.T) {
	state := t.TempDir()
	if err := os.MkdirAll(filepath.Join(state, "agentgrid"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		value string
		want  time.Duration
	}{
		{"", hookDecideBudget},
		{"2s", 2 * time.Second},
		{" 750ms ", 750 * time.Millisecond},
		{"3h", maxHookBudget},
		{"0", hookDecideBudget},
		{"-1s", hookDecideBudget},
		{"soon", hookDecideBudget},
	} {
		env := hookEnv(map[string]string{EnvHookBudget: c.value, "XDG_STATE_HOME": state})
		if got := hookBudget(env, hookDecideBudget); got != c.want {
			t.Errorf("%s=%q: budget %v, want %v", EnvHookBudget, c.value, got, c.want)
		}
	}
	logged, _ := os.ReadFile(filepath.Join(state, "agentgrid", "agentgrid.log"))
	if !strings.Contains(string(logged), `AGENTGRID_HOOK_BUDGET=\"soon\" is not a duration`) {
		t.Errorf("log = %q, want the unusable value named", logged)
	}
}

package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

// runHook is runHookTo for an event whose answer the test does not read.
func runHook(args []string, stdin io.Reader, getenv func(string) string, start time.Time) {
	runHookTo(args, stdin, io.Discard, getenv, start)
}

// hookListener is a stand-in session socket that records the lines it gets.
func hookListener(t *testing.T) (string, <-chan string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	lines := make(chan string, 10)
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
					lines <- sc.Text()
				}
			}()
		}
	}()
	return path, lines
}

func hookEnv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestRunHookSendsSignal(t *testing.T) {
	sock, lines := hookListener(t)
	state := t.TempDir()
	// An agent's hook carries its token ...
	env := hookEnv(map[string]string{"AGENTGRID_SOCKET": sock, "AGENTGRID_AGENT_ID": "a4", "XDG_STATE_HOME": state, control.EnvToken: "a4-secret"})
	// ... so an event without an answer channel is a notification.
	payload := `{"hook_event_name":"PermissionRequest","session_id":"s","tool_name":"Bash","tool_input":{"command":"go test ./..."}}`
	runHook([]string{"claude"}, strings.NewReader(payload), env, time.Now())
	var line string
	select {
	case line = <-lines:
	case <-time.After(5 * time.Second):
		t.Fatal("no signal reached the session")
	}
	var req control.Request
	if err := json.Unmarshal([]byte(line), &req); err != nil {
		t.Fatal(err)
	}
	if req.JSONRPC != "2.0" || req.Method != control.MethodAgentSignal || req.ID != nil {
		t.Errorf("request = %s", line)
	}
	var p control.SignalParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		t.Fatal(err)
	}
	if p.ID != "a4" || p.CLI != "claude" || p.Signal.State != "waiting" || p.Signal.Status != "permission: Bash: go test ./..." {
		t.Errorf("params = %+v", p)
	}
	// The hook's start time orders signals that reach the session out of order.
	if p.Signal.At.IsZero() {
		t.Errorf("the signal carries no start time: %s", line)
	}

	// Codex passes the payload as the last argument.
	runHook([]string{"codex", `{"type":"agent-turn-complete","last-assistant-message":"ok"}`}, strings.NewReader(""), env, time.Now())
	select {
	case line = <-lines:
		if !strings.Contains(line, `"cli":"codex"`) || !strings.Contains(line, `"state":"idle"`) {
			t.Errorf("codex request = %s", line)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no codex signal reached the session")
	}
}

// Whatever goes wrong, runHook returns quickly, prints nothing and logs at most.
func TestRunHookNeverBlocksOrFails(t *testing.T) {
	state := t.TempDir()
	sock, lines := hookListener(t)
	neverClosed, w := io.Pipe()
	defer w.Close()
	cases := []struct {
		name  string
		args  []string
		stdin io.Reader
		env   map[string]string
		logs  string
	}{
		{"no session", []string{"claude"}, neverClosed, map[string]string{"XDG_STATE_HOME": state}, ""},
		{"no args", nil, strings.NewReader(""), map[string]string{"XDG_STATE_HOME": state}, "no agent CLI named"},
		{"unknown cli", []string{"vim"}, strings.NewReader("{}"), map[string]string{"XDG_STATE_HOME": state}, "unknown agent CLI"},
		{"garbage", []string{"claude"}, strings.NewReader("not json"), map[string]string{"AGENTGRID_SOCKET": sock, "AGENTGRID_AGENT_ID": "a1", "XDG_STATE_HOME": state}, "not a JSON object"},
		{"stdin never closes", []string{"gemini"}, neverClosed, map[string]string{"AGENTGRID_SOCKET": sock, "AGENTGRID_AGENT_ID": "a1", "XDG_STATE_HOME": state}, "no complete payload"},
		// With no session listening, stdin is not even read: an agent that
		// never closes it must not wait for the budget to run out.
		{"session gone", []string{"claude"}, unreadStdin{t}, map[string]string{"AGENTGRID_SOCKET": filepath.Join(state, "gone.sock"), "AGENTGRID_AGENT_ID": "a1", "XDG_STATE_HOME": state}, "reach the session"},
		{"unmapped event", []string{"claude"}, strings.NewReader(`{"hook_event_name":"Nope"}`), map[string]string{"AGENTGRID_SOCKET": sock, "AGENTGRID_AGENT_ID": "a1", "XDG_STATE_HOME": state}, ""},
	}
	logPath := filepath.Join(state, "agentgrid", "agentgrid.log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		_ = os.Remove(logPath)
		start := time.Now()
		runHook(tc.args, tc.stdin, hookEnv(tc.env), start)
		// Generous against CI noise; the budgets themselves are 250 ms each.
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("%s: took %v", tc.name, d)
		}
		logged, _ := os.ReadFile(logPath)
		if tc.logs == "" && len(logged) > 0 || tc.logs != "" && !strings.Contains(string(logged), tc.logs) {
			t.Errorf("%s: log = %q, want %q", tc.name, logged, tc.logs)
		}
	}
	select {
	case line := <-lines:
		t.Errorf("a signal was sent for a bad payload: %s", line)
	default:
	}
}

func TestReadBoundedRejectsOversizedPayload(t *testing.T) {
	big := strings.NewReader(strings.Repeat("x", 101))
	if _, ok := readBounded(big, 100, time.Now().Add(time.Second)); ok {
		t.Error("an oversized payload was accepted")
	}
	b, ok := readBounded(strings.NewReader("{}"), 100, time.Now().Add(time.Second))
	if !ok || string(b) != "{}" {
		t.Errorf("readBounded = %q %v", b, ok)
	}
}

// unreadStdin fails the test when read: runHook must not read stdin when it
// has nowhere to send the payload.
type unreadStdin struct{ t *testing.T }

func (u unreadStdin) Read([]byte) (int, error) {
	u.t.Error("stdin was read although no session was listening")
	return 0, io.EOF
}

// The hook talks to the session through the control client, which checks
// the socket before it sends anything: a socket in a directory that other
// users may write to could be anyone's, and the agent's secret must not go
// there.
func TestRunHookSendsNothingToAnUntrustedSocket(t *testing.T) {
	sock, lines := hookListener(t)
	if err := os.Chmod(filepath.Dir(sock), 0o777); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	logPath := filepath.Join(state, "agentgrid", "agentgrid.log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		t.Fatal(err)
	}
	env := hookEnv(map[string]string{"AGENTGRID_SOCKET": sock, "AGENTGRID_AGENT_ID": "a4", "AGENTGRID_TOKEN": "secret", "XDG_STATE_HOME": state})
	payload := `{"hook_event_name":"Notification","session_id":"s","message":"Claude needs your permission to use Bash"}`
	runHook([]string{"claude"}, strings.NewReader(payload), env, time.Now())
	select {
	case line := <-lines:
		t.Errorf("a line reached a socket in a world-writable directory: %s", line)
	case <-time.After(200 * time.Millisecond): // nothing arrives; a line would be here long before
	}
	if logged, _ := os.ReadFile(logPath); !strings.Contains(string(logged), "writable by other users") {
		t.Errorf("log = %q, want the reason the socket was refused", logged)
	}
}

// The hook's complaints go to the session's log file, in the one state
// directory every part of agentgrid uses: a relative XDG_STATE_HOME is
// ignored there, so it is ignored here too (it once sent them to a folder
// under the agent's working directory).
func TestHookLogUsesTheStateDirectory(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"XDG_STATE_HOME set", map[string]string{"XDG_STATE_HOME": filepath.Join(home, "xdg"), "HOME": home}, filepath.Join(home, "xdg", "agentgrid", "agentgrid.log")},
		{"XDG_STATE_HOME unset", map[string]string{"HOME": home}, filepath.Join(home, ".local", "state", "agentgrid", "agentgrid.log")},
		{"XDG_STATE_HOME relative", map[string]string{"XDG_STATE_HOME": "rel", "HOME": home}, filepath.Join(home, ".local", "state", "agentgrid", "agentgrid.log")},
	} {
		if err := os.MkdirAll(filepath.Dir(tc.want), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(cwd, "rel", "agentgrid"), 0o700); err != nil {
			t.Fatal(err)
		}
		_ = os.Remove(tc.want)
		runHook([]string{"vim"}, strings.NewReader("{}"), hookEnv(tc.env), time.Now())
		if logged, _ := os.ReadFile(tc.want); !strings.Contains(string(logged), "unknown agent CLI") {
			t.Errorf("%s: %s holds %q, want the hook's complaint", tc.name, tc.want, logged)
		}
		if stray, err := os.ReadFile(filepath.Join(cwd, "rel", "agentgrid", "agentgrid.log")); err == nil {
			t.Errorf("%s: the complaint went to the working directory: %q", tc.name, stray)
		}
	}
}

package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentcli/opencode"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes"
)

// noticeSession is a real engine whose main view (cat) hears notices, with
// its state folder where `agentgrid hook` looks for it; env is main's hook
// environment.
func noticeSession(t *testing.T) (e *orchestrator.Engine, sock string, env map[string]string) {
	t.Helper()
	cfg := config.Default()
	cfg.Layout = config.Layout{Name: "tiled", MinAgentWidth: 10, MinAgentHeight: 3}
	cfg.Agents.KillGrace = config.Duration{Duration: 200 * time.Millisecond}
	cfg.Kinds["orch"] = config.Kind{Command: []string{"cat"}, Hooks: "opencode"}
	cfg.Orchestrator.Kind = "orch"
	state := t.TempDir()
	session := "rewake-test"
	dir := filepath.Join(state, "agentgrid", session)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock = filepath.Join(t.TempDir(), "s.sock")
	e, err := orchestrator.New(cfg, orchestrator.Options{Session: session, Spawner: panes.PTYSpawner{},
		StateDir: dir, SocketPath: sock, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background(), []string{"cat"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = e.Shutdown(ctx)
	})
	e.Resize(120, 40)
	env = map[string]string{"AGENTGRID_SOCKET": sock, "AGENTGRID_AGENT_ID": control.MainID, "AGENTGRID_SESSION": session,
		control.EnvToken: e.AgentToken(control.MainID), "XDG_STATE_HOME": state}
	return e, sock, env
}

// spawnChild starts argv as a child of main and returns its id.
func spawnChild(t *testing.T, e *orchestrator.Engine, argv ...string) string {
	t.Helper()
	in, err := e.Spawn(control.SpawnRequest{Argv: argv, Parent: control.MainID})
	if err != nil {
		t.Fatal(err)
	}
	return in.ID
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func agentFinished(e *orchestrator.Engine, id string) bool {
	in, ok := e.Agent(id)
	return ok && in.State.Finished()
}

func claudePrompt(text string) string {
	return `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":` + mustJSON(text) + `}`
}

func claudeStop(said string) string {
	return `{"hook_event_name":"Stop","session_id":"s","stop_hook_active":false,"last_assistant_message":` + mustJSON(said) + `}`
}

func mustJSON(s string) string { b, _ := json.Marshal(s); return string(b) }

// hookOut runs `agentgrid hook claude` with payload and returns what it
// printed.
func hookOut(env map[string]string, payload string) string {
	var out bytes.Buffer
	runHookTo([]string{"claude"}, strings.NewReader(payload), &out, hookEnv(env), time.Now())
	return out.String()
}

// The rewake hook, started at an idle parent's Stop while its child runs,
// waits; when the child ends it prints the notice on stderr and exits 2
// (Claude Code then wakes the model with it). The parent's next hook does
// not repeat it, and explain shows how it went.
func TestRewakeHookWakesTheIdleParent(t *testing.T) {
	e, sock, env := noticeSession(t)
	child := spawnChild(t, e, "cat")
	waitUntil(t, child+" running", func() bool { in, ok := e.Agent(child); return ok && in.PID > 0 })
	hookOut(env, claudePrompt("start a worker"))
	if out := hookOut(env, claudeStop("Started a worker.")); out != "" {
		t.Fatalf("the Stop with a live child printed %q, want nothing", out)
	}
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- runRewake("claude", strings.NewReader(claudeStop("Started a worker.")), &stderr, hookEnv(env), time.Now(), 30*time.Second)
	}()
	waitUntil(t, "the rewake waiter", func() bool { ex, err := e.Explain(control.MainID); return err == nil && ex.RewakeWaiting })
	if err := e.Close(child); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-code:
		if want := "agentgrid: " + child + " was closed\n"; c != rewakeExitWake || stderr.String() != want {
			t.Fatalf("the rewake hook exited %d printing %q, want %d and %q", c, stderr.String(), rewakeExitWake, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the rewake hook did not return after the child ended")
	}
	if out := hookOut(env, claudePrompt("next")); out != "" {
		t.Errorf("the next prompt printed %q, want nothing: the rewake hook delivered the notice", out)
	}
	r := runCLI(t, "--socket", sock, "explain", control.MainID)
	r.want(t, 0)
	if !strings.Contains(r.stdout, "notices about the agents it started") || !strings.Contains(r.stdout, child+" was closed") ||
		!strings.Contains(r.stdout, "by the rewake hook") {
		t.Errorf("explain main =\n%s", r.stdout)
	}
}

// With nothing to wait for (no live child) the rewake hook exits 0 at
// once, and so does one that the parent's next turn sends away; neither
// prints anything.
func TestRewakeHookExitsQuietly(t *testing.T) {
	e, _, env := noticeSession(t)
	var stderr bytes.Buffer
	if c := runRewake("claude", strings.NewReader(claudeStop("done")), &stderr, hookEnv(env), time.Now(), 30*time.Second); c != 0 || stderr.Len() != 0 {
		t.Fatalf("with no child: exit %d, printed %q", c, stderr.String())
	}
	spawnChild(t, e, "cat")
	code := make(chan int, 1)
	go func() {
		code <- runRewake("claude", strings.NewReader(claudeStop("done")), &stderr, hookEnv(env), time.Now(), 30*time.Second)
	}()
	waitUntil(t, "the rewake waiter", func() bool { ex, err := e.Explain(control.MainID); return err == nil && ex.RewakeWaiting })
	hookOut(env, claudePrompt("the user types"))
	select {
	case c := <-code:
		if c != 0 || stderr.Len() != 0 {
			t.Fatalf("sent away by the next turn: exit %d, printed %q", c, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the rewake hook did not return when the next turn started")
	}
	// Outside a session: nothing at all.
	if c := runRewake("claude", strings.NewReader("{}"), &stderr, hookEnv(map[string]string{}), time.Now(), time.Second); c != 0 {
		t.Errorf("outside a session: exit %d", c)
	}
}

// ackDroppingProxy forwards a socket's lines to sock, except agent.ack
// requests, which it swallows: the acknowledgement is lost on the way.
func ackDroppingProxy(t *testing.T, sock string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "proxy.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("unix", sock)
			if err != nil {
				_ = c.Close()
				continue
			}
			wg.Add(2)
			go func() { defer wg.Done(); _, _ = io.Copy(c, up); _ = c.Close() }()
			go func() {
				defer wg.Done()
				defer up.Close()
				sc := bufio.NewScanner(c)
				sc.Buffer(make([]byte, 0, 64<<10), control.MaxMessageSize)
				for sc.Scan() {
					var req control.Request
					if json.Unmarshal(sc.Bytes(), &req) == nil && req.Method == control.MethodAgentAck {
						continue
					}
					if _, err := up.Write(append(sc.Bytes(), '\n')); err != nil {
						return
					}
				}
			}()
		}
	}()
	return path
}

// A hook prints a notice and its acknowledgement is lost: the next hook
// tells the session what was printed (from the agent's file beside the
// session) before it decides, so the notice is counted delivered and never
// printed again.
func TestLostAckDoesNotRepeatANotice(t *testing.T) {
	e, sock, env := noticeSession(t)
	child := spawnChild(t, e, "sh", "-c", "exit 3")
	waitUntil(t, child+" finished", func() bool { return agentFinished(e, child) })
	lossy := map[string]string{}
	for k, v := range env {
		lossy[k] = v
	}
	lossy["AGENTGRID_SOCKET"] = ackDroppingProxy(t, sock)
	want := "agentgrid: " + child + " failed (exit 3)"
	if out := hookOut(lossy, claudePrompt("first")); !strings.Contains(out, want) {
		t.Fatalf("the first prompt printed %q, want the notice %q", out, want)
	}
	if out := hookOut(env, claudePrompt("second")); strings.Contains(out, child) {
		t.Fatalf("the second prompt printed %q: the notice came twice", out)
	}
	ex, err := e.Explain(control.MainID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Notices) != 1 || ex.Notices[0].Delivered.IsZero() {
		t.Fatalf("explain's notices after the next hook = %+v, want the notice counted delivered", ex.Notices)
	}
}

// An answer that comes after the CLI stopped reading (the OpenCode
// plugin's deadline, or the timeout the settings give the hook) is not
// printed and not acknowledged, so the notices in it are offered again
// instead of being counted delivered to nobody.
func TestLateAnswerIsNotPrinted(t *testing.T) {
	if EnvHookDeadline != opencode.EnvHookDeadline {
		t.Fatalf("the hook reads %s, the plugin sets %s", EnvHookDeadline, opencode.EnvHookDeadline)
	}
	for _, c := range []struct {
		name     string
		deadline string
		start    time.Time
		printed  bool
	}{
		{"the plugin's deadline ahead", strconv.FormatInt(time.Now().Add(time.Minute).UnixMilli(), 10), time.Now(), true},
		{"the plugin's deadline passed", strconv.FormatInt(time.Now().Add(-time.Second).UnixMilli(), 10), time.Now(), false},
		{"within the settings' timeout", "", time.Now(), true},
		// Started 6 s ago, past the default 5 s, with a budget of 20 s:
		// the settings give the hook 25 s (TestAnswerDeadlineFollowsTheBudget).
		{"within a long budget's timeout", "", time.Now().Add(-6 * time.Second), true},
	} {
		sock, reqs := answeringSession(t, func(req control.Request) *control.Response {
			var res json.RawMessage
			if req.Method == control.MethodAgentDecide {
				res, _ = json.Marshal(map[string]any{"action": "hint", "message": "agentgrid: a5 finished (exit 0)", "policy": "notices", "notices": 3})
			} else {
				res = json.RawMessage(`{"ok":true}`)
			}
			return &control.Response{JSONRPC: "2.0", ID: req.ID, Result: res}
		})
		env := hookEnv(map[string]string{"AGENTGRID_SOCKET": sock, "AGENTGRID_AGENT_ID": "main", "XDG_STATE_HOME": t.TempDir(),
			EnvHookDeadline: c.deadline, EnvHookBudget: "20s"})
		var out bytes.Buffer
		runHookTo([]string{"claude"}, strings.NewReader(claudePrompt("next")), &out, env, c.start)
		if got := out.Len() > 0; got != c.printed {
			t.Errorf("%s: printed %q, want printed=%v", c.name, out.String(), c.printed)
		}
		select {
		case r := <-reqs:
			if r.Method != control.MethodAgentDecide {
				t.Fatalf("%s: first request %s", c.name, r.Method)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the hook did not ask the session", c.name)
		}
		select {
		case r := <-reqs:
			if !c.printed || r.Method != control.MethodAgentAck {
				t.Errorf("%s: then %s, want an ack only after a printed answer", c.name, r.Method)
			}
		default:
			if c.printed {
				t.Errorf("%s: no ack after the printed answer", c.name)
			}
		}
	}
}

// The hook stops printing when the CLI stops reading: the timeout the
// generated settings give it, which follows $AGENTGRID_HOOK_BUDGET as the
// hook's waits do (the budget plus 5 s), so a hook that waited its whole
// budget for the decision still prints it.
func TestAnswerDeadlineFollowsTheBudget(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		budget string
		want   time.Duration
	}{
		{"", 5 * time.Second},
		{"soon", 5 * time.Second},
		{"20s", 25 * time.Second},
		{"1m", 65 * time.Second},
		{"3h", 65 * time.Second}, // capped as the waits are
	} {
		env := hookEnv(map[string]string{EnvHookBudget: c.budget})
		if got := answerDeadline(env, start).Sub(start); got != c.want {
			t.Errorf("%s=%q: the answer's deadline is %v after the start, want %v", EnvHookBudget, c.budget, got, c.want)
		}
	}
}

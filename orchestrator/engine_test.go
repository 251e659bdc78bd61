package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/panes"
)

// newTestEngine starts an engine with a tiled layout of 10x3 panes and no
// main view unless mainArgv is given; it is shut down when the test ends.
func newTestEngine(t *testing.T, sp panes.Spawner, mainArgv []string, mutate func(*config.Config)) *Engine {
	t.Helper()
	return newClockedEngine(t, sp, nil, mainArgv, mutate)
}

// newClockedEngine is newTestEngine on the given clock (nil: the wall clock).
func newClockedEngine(t *testing.T, sp panes.Spawner, clock Clock, mainArgv []string, mutate func(*config.Config)) *Engine {
	t.Helper()
	cfg := config.Default()
	cfg.Layout = config.Layout{Name: "tiled", MinAgentWidth: 10, MinAgentHeight: 3}
	cfg.Agents.KillGrace = config.Duration{Duration: 200 * time.Millisecond}
	if mutate != nil {
		mutate(&cfg)
	}
	if sp == nil {
		sp = panes.PTYSpawner{}
	}
	e, err := New(cfg, Options{Session: "test", Spawner: sp, Clock: clock, StateDir: t.TempDir(), Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background(), mainArgv); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := e.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return e
}

func pollUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitAgent waits until the agent's info satisfies cond and returns it.
func waitAgent(t *testing.T, e *Engine, id, what string, cond func(control.AgentInfo) bool) control.AgentInfo {
	t.Helper()
	var in control.AgentInfo
	pollUntil(t, 15*time.Second, id+" "+what, func() bool {
		var ok bool
		in, ok = e.Agent(id)
		return ok && cond(in)
	})
	return in
}

func spawn(t *testing.T, e *Engine, argv ...string) control.AgentInfo {
	t.Helper()
	in, err := e.Spawn(control.SpawnRequest{Argv: argv})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func waitFinished(t *testing.T, e *Engine, id string) control.AgentInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	infos, err := e.Wait(ctx, []string{id})
	if err != nil {
		t.Fatalf("wait %s: %v", id, err)
	}
	return infos[0]
}

func groupGone(pid int) bool { return errors.Is(syscall.Kill(-pid, 0), syscall.ESRCH) }

func TestSpawnOutputExitCodeLogAndEnv(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	e.Resize(48, 10)
	in := spawn(t, e, "sh", "-c", `echo "id=$AGENTGRID_AGENT_ID session=$AGENTGRID_SESSION term=$TERM ct=$COLORTERM"; exit 3`)
	if in.ID != "a1" {
		t.Fatalf("id = %q", in.ID)
	}
	done := waitFinished(t, e, in.ID)
	if done.State != agentstate.Failed || done.ExitCode == nil || *done.ExitCode != 3 || done.Ended == nil || done.Started == nil {
		t.Fatalf("info = %+v", done)
	}
	if !done.Visible || done.Number != 1 {
		t.Fatalf("a finished pane must stay visible: %+v", done)
	}
	text, err := e.Capture(in.ID, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "id=a1 session=test term=xterm-256color ct=truecolor"
	b, _ := os.ReadFile(done.LogPath)
	if !strings.Contains(string(b), want) {
		t.Fatalf("log %s = %q, want %q", done.LogPath, b, want)
	}
	// The pane is 10 columns wide: the screen has the line wrapped.
	if !strings.Contains(strings.ReplaceAll(text, "\n", ""), want) {
		t.Fatalf("capture = %q", text)
	}
}

func TestStartFailuresShowInThePane(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	e.Resize(120, 10)
	bad := spawn(t, e, "agentgrid-no-such-command")
	got := waitFinished(t, e, bad.ID)
	if got.State != agentstate.Failed || got.Why != "command not found: agentgrid-no-such-command" || !got.Visible {
		t.Fatalf("info = %+v", got)
	}
	text, err := e.Capture(bad.ID, false, 0)
	if err != nil || !strings.Contains(strings.ReplaceAll(text, "\n", ""), "command not found") {
		t.Fatalf("capture = %q, %v", text, err)
	}
	in, err := e.Spawn(control.SpawnRequest{Argv: []string{"true"}, Cwd: "/nonexistent/agentgrid"})
	if err != nil {
		t.Fatal(err)
	}
	got = waitFinished(t, e, in.ID)
	if got.State != agentstate.Failed || got.Why != "cwd does not exist: /nonexistent/agentgrid" {
		t.Fatalf("info = %+v", got)
	}
	quick := spawn(t, e, "true")
	if got := waitFinished(t, e, quick.ID); got.State != agentstate.Done || *got.ExitCode != 0 {
		t.Fatalf("info = %+v", got)
	}
	if _, err := e.Spawn(control.SpawnRequest{}); err == nil {
		t.Fatal("a spawn without a command was accepted")
	}
	ex, err := e.Explain(bad.ID)
	if err != nil || len(ex.History) < 2 || ex.History[len(ex.History)-1].To != agentstate.Failed {
		t.Fatalf("explain = %+v, %v", ex, err)
	}
}

func TestFloodDoesNotBlockTheEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("flood")
	}
	e := newTestEngine(t, nil, nil, nil)
	e.Resize(48, 10)
	flood := spawn(t, e, "sh", "-c", "yes | head -c 50000000; echo; echo flood-end")
	other := spawn(t, e, "cat")
	waitAgent(t, e, other.ID, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	for i := range 20 {
		start := time.Now()
		e.List()
		if err := e.Input(other.ID, []byte(fmt.Sprintf("k%d", i))); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Capture(other.ID, false, 0); err != nil {
			t.Fatal(err)
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Fatalf("engine calls took %s during a flood", el)
		}
	}
	// Closing a flooding agent works and returns promptly too.
	if err := e.Close(flood.ID); err != nil {
		t.Fatal(err)
	}
	if got := waitFinished(t, e, flood.ID); !got.State.Finished() {
		t.Fatalf("flood agent = %+v", got)
	}
}

func TestCloseKillsAGroupThatIgnoresHUP(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	e.Resize(48, 10)
	in := spawn(t, e, "sh", "-c", "trap '' HUP; sleep 1000 & echo ready; wait")
	pollUntil(t, 10*time.Second, "ready", func() bool {
		s, _ := e.Capture(in.ID, false, 0)
		return strings.Contains(s, "ready")
	})
	in, _ = e.Agent(in.ID)
	if err := e.Close(in.ID); err != nil {
		t.Fatal(err)
	}
	got := waitFinished(t, e, in.ID)
	if got.State != agentstate.Killed || got.Visible || got.Why != "closed by the user" {
		t.Fatalf("info = %+v", got)
	}
	pollUntil(t, 5*time.Second, "the group to be gone", func() bool { return groupGone(in.PID) })
	if err := e.Close(in.ID); err != nil {
		t.Fatalf("closing twice: %v", err)
	}
	if err := e.Close("a99"); err == nil {
		t.Fatal("closing an unknown agent succeeded")
	}
}

func TestShutdownKillsEveryGroup(t *testing.T) {
	e := newTestEngine(t, nil, []string{"sh", "-c", "sleep 1000 & sleep 1000"}, func(c *config.Config) {
		c.Agents.StartOffscreen = true
	})
	e.Resize(24, 5)
	var pids []int
	for range 4 {
		in := spawn(t, e, "sh", "-c", "trap '' HUP TERM; sleep 1000 & sleep 1000 & wait")
		in = waitAgent(t, e, in.ID, "running", func(a control.AgentInfo) bool { return a.PID > 0 })
		pids = append(pids, in.PID)
	}
	m, _ := e.Agent(control.MainID)
	pids = append(pids, m.PID)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("shutdown took %s", el)
	}
	for _, pid := range pids {
		// Orphaned grandchildren are reaped by init a moment later.
		pollUntil(t, 5*time.Second, fmt.Sprintf("process group %d to be gone", pid), func() bool { return groupGone(pid) })
	}
	if err := e.Shutdown(ctx); err != nil {
		t.Fatalf("second shutdown: %v", err)
	}
	if _, err := e.Spawn(control.SpawnRequest{Argv: []string{"true"}}); err == nil {
		t.Fatal("spawn after shutdown succeeded")
	}
}

func TestMainViewExitKeepsTheSession(t *testing.T) {
	e := newTestEngine(t, nil, []string{"sh", "-c", "echo main-says-hi; exit 7"}, nil)
	e.Resize(80, 24)
	waitAgent(t, e, control.MainID, "exited", func(a control.AgentInfo) bool { return a.State.Finished() })
	m, _ := e.Agent(control.MainID)
	if m.State != agentstate.Failed || *m.ExitCode != 7 {
		t.Fatalf("main = %+v", m)
	}
	snap := e.Snapshot()
	if snap.Main == nil || !strings.Contains(paneText(snap.Main.Term), "main-says-hi") || snap.Main.Box.Empty() {
		t.Fatalf("main view = %+v", snap.Main)
	}
	if len(snap.Agents) != 0 {
		t.Fatalf("main must not be listed among agents: %+v", snap.Agents)
	}
	in := spawn(t, e, "true")
	if got := waitFinished(t, e, in.ID); got.State != agentstate.Done {
		t.Fatalf("spawn after main exited: %+v", got)
	}
}

func TestStateFromHooksInputBellAndActivity(t *testing.T) {
	clock := newFakeClock()
	idle := 5 * time.Second
	e := newClockedEngine(t, nil, clock, nil, func(c *config.Config) {
		c.Agents.IdleAfter = config.Duration{Duration: idle}
		c.Status.StaleAfter = config.Duration{Duration: time.Minute}
	})
	e.Resize(48, 10)
	events, cancel := e.Bus().Subscribe(256)
	defer cancel()
	in := spawn(t, e, "cat")
	started := waitAgent(t, e, in.ID, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	// cat prints nothing: idle_after after its start it is idle.
	clock.waitTimerAt(t, started.Started.Add(idle), "the idle timer")
	clock.Advance(idle)
	waitAgent(t, e, in.ID, "idle after quiet", func(a control.AgentInfo) bool {
		return a.State == agentstate.Idle && a.Source == sourceActivity
	})
	// Typing produces an echo: output activity makes it running again.
	if err := e.Input(in.ID, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, in.ID, "running on activity", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	// A hook says it waits for permission.
	if err := e.Signal(in.ID, agentstate.Signal{Event: "PermissionRequest", State: "waiting", Why: "permission: Bash: ls", Status: "Bash: ls"}, "claude"); err != nil {
		t.Fatal(err)
	}
	a := waitAgent(t, e, in.ID, "waiting", func(a control.AgentInfo) bool { return a.State == agentstate.Waiting })
	if a.Source != "hook:claude" || a.Why != "permission: Bash: ls" {
		t.Fatalf("waiting info = %+v", a)
	}
	if s := e.Status().ForAgent(in.ID); len(s) != 1 || s[0].Text != "Bash: ls" {
		t.Fatalf("status = %+v", s)
	}
	if snap := e.Snapshot(); snap.Counts.Waiting != 1 || snap.WaitSeq != 1 || snap.LastWaiting != in.ID {
		t.Fatalf("counts = %+v, wait seq %d by %q", snap.Counts, snap.WaitSeq, snap.LastWaiting)
	}
	// The user answers.
	if err := e.Input(in.ID, []byte("y")); err != nil {
		t.Fatal(err)
	}
	a = waitAgent(t, e, in.ID, "answered", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	if a.Why != "user answered" || a.Source != sourceInput {
		t.Fatalf("after input: %+v", a)
	}
	// What it waited for is no longer shown once the user answered.
	if s := e.Status().ForAgent(in.ID); len(s) != 0 {
		t.Fatalf("status after the answer = %+v, want none", s)
	}
	// Esc, then the Stop hook: interrupted.
	if err := e.Input(in.ID, []byte("\x1b")); err != nil {
		t.Fatal(err)
	}
	if err := e.Signal(in.ID, agentstate.Signal{Event: "Stop", State: "idle"}, "claude"); err != nil {
		t.Fatal(err)
	}
	a = waitAgent(t, e, in.ID, "idle", func(a control.AgentInfo) bool { return a.State == agentstate.Idle })
	if a.Why != "interrupted by user" || !a.Interrupted {
		t.Fatalf("after interrupt: %+v", a)
	}
	// Subagents never end the agent.
	_ = e.Signal(in.ID, agentstate.Signal{Event: "SubagentStart", SubagentDelta: 1}, "claude")
	_ = e.Signal(in.ID, agentstate.Signal{Event: "SubagentStop", SubagentDelta: -1, State: "idle"}, "claude")
	_ = e.Signal(in.ID, agentstate.Signal{Event: "SubagentStart", SubagentDelta: 1}, "claude")
	a, _ = e.Agent(in.ID)
	if a.Subagents != 1 || a.State.Finished() {
		t.Fatalf("subagents: %+v", a)
	}
	ex, err := e.Explain(in.ID)
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, h := range ex.History {
		sources = append(sources, h.Source)
	}
	joined := strings.Join(sources, ",")
	for _, want := range []string{sourceEngine, sourceProcess, sourceActivity, "hook:claude", sourceInput} {
		if !strings.Contains(joined, want) {
			t.Fatalf("history sources %s lack %s", joined, want)
		}
	}
	// A bell: a separate agent without hooks.
	bell := spawn(t, e, "sh", "-c", "printf 'question?\\a'; exec cat")
	a = waitAgent(t, e, bell.ID, "waiting on the bell", func(a control.AgentInfo) bool { return a.State == agentstate.Waiting })
	if a.Source != sourceTerminal {
		t.Fatalf("bell: %+v", a)
	}
	sawBell, sawState := false, false
	timeout := time.After(5 * time.Second)
	for !sawBell || !sawState {
		select {
		case ev := <-events:
			if ev.Type == hooks.EventBell && ev.Agent != nil && ev.Agent.ID == bell.ID {
				sawBell = true
			}
			if ev.Type == hooks.EventAgentState && ev.Agent != nil && ev.Agent.ID == bell.ID && ev.Agent.State == "waiting" {
				sawState = true
			}
		case <-timeout:
			t.Fatalf("bus events: bell %v state %v", sawBell, sawState)
		}
	}
}

func TestWaitTimesOutWithCurrentState(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	e.Resize(48, 10)
	in := spawn(t, e, "cat")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	infos, err := e.Wait(ctx, []string{in.ID})
	if !errors.Is(err, context.DeadlineExceeded) || len(infos) != 1 || infos[0].ID != in.ID {
		t.Fatalf("wait = %+v, %v", infos, err)
	}
	if _, err := e.Wait(context.Background(), []string{"nope"}); err == nil {
		t.Fatal("waiting for an unknown agent succeeded")
	}
}

func TestChangedIsPokedOnOutput(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	e.Resize(48, 10)
	in := spawn(t, e, "cat")
	waitAgent(t, e, in.ID, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	for len(e.Changed()) > 0 {
		<-e.Changed()
	}
	if err := e.Send(in.ID, []byte("ping")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-e.Changed():
	case <-time.After(5 * time.Second):
		t.Fatal("Changed was not poked by output")
	}
	styled, err := e.Capture(in.ID, true, 0)
	if err != nil || !strings.Contains(styled, "ping") || !strings.Contains(styled, "\x1b[") {
		t.Fatalf("styled capture = %q, %v", styled, err)
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestCaptureScrollbackAndStartupAgents(t *testing.T) {
	// Sized before Start: a startup agent runs in its box from the first
	// instant. (Resized after Start, seq could end at the offscreen 80x24
	// before the resize came, and its screen stayed 24 rows.)
	e := newSizedEngine(t, 48, 10, nil, func(c *config.Config) {
		c.Startup = []config.Startup{{Title: "counter", Command: []string{"sh", "-c", "seq 1 50"}, Env: map[string]string{"X": "1"}}}
	})
	list := e.List()
	if len(list) != 1 || list[0].Title != "counter" {
		t.Fatalf("startup agents = %+v", list)
	}
	waitFinished(t, e, list[0].ID)
	screen, err := e.Capture(list[0].ID, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	// One pane of 48x10 has 46x8 content: 44..50 and the cursor's empty row.
	if lines := strings.Split(strings.TrimSuffix(screen, "\n"), "\n"); len(lines) != 8 || lines[0] != "44" || lines[6] != "50" {
		t.Fatalf("screen = %q", screen)
	}
	withHistory, err := e.Capture(list[0].ID, false, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(withHistory, "39\n40\n41\n42\n43\n44\n") {
		t.Fatalf("capture with 5 lines of history = %q", withHistory)
	}
	in, err := e.Spawn(control.SpawnRequest{Argv: []string{"sh", "-c", "echo \"$GREETING\""}, Env: map[string]string{"GREETING": "hi-env"}})
	if err != nil {
		t.Fatal(err)
	}
	waitFinished(t, e, in.ID)
	if s, _ := e.Capture(in.ID, false, 0); !strings.Contains(s, "hi-env") {
		t.Fatalf("env not passed: %q", s)
	}
}

func TestConfiguredHookRunsAndSetsStatus(t *testing.T) {
	e := newTestEngine(t, nil, nil, func(c *config.Config) {
		c.Hooks = []config.Hook{{
			On:      []string{hooks.EventAgentExited},
			Run:     []string{"sh", "-c", `read ev; echo '{"set_status": {"key": "last", "text": "'"$AGENTGRID_AGENT_ID"' exited"}}'`},
			Timeout: config.Duration{Duration: 5 * time.Second},
		}}
	})
	e.Resize(48, 10)
	in := spawn(t, e, "true")
	waitFinished(t, e, in.ID)
	pollUntil(t, 10*time.Second, "the hook's status", func() bool {
		for _, s := range e.Status().Entries() {
			if s.Key == "last" && s.Text == in.ID+" exited" {
				return true
			}
		}
		return false
	})
}

func testLogger() *slog.Logger {
	if os.Getenv("AGENTGRID_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

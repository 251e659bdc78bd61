package orchestrator

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/panes"
)

// TestSocketAgainstRealEngine drives a real engine, with real processes in
// PTYs, through the control socket.
func TestSocketAgainstRealEngine(t *testing.T) {
	cfg := config.Default()
	cfg.Layout = config.Layout{Name: "tiled", MinAgentWidth: 10, MinAgentHeight: 3}
	cfg.Agents.KillGrace = config.Duration{Duration: 200 * time.Millisecond}
	sock := filepath.Join(t.TempDir(), "e.sock")
	e, err := New(cfg, Options{Session: "sock-e2e", Spawner: panes.PTYSpawner{}, StateDir: t.TempDir(),
		SocketPath: sock, Version: "test", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := e.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	e.Resize(80, 24)

	c, err := control.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	info, err := c.SessionInfo(ctx)
	if err != nil || info.Session != "sock-e2e" || info.Socket != sock {
		t.Fatalf("session.info = %+v, %v", info, err)
	}

	a, err := c.Spawn(ctx, control.SpawnParams{Title: "greeter", Argv: []string{"sh", "-c", "printf 'hello from the pane\\n'; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Wait(ctx, []string{a.ID}, 15*time.Second)
	if err != nil || res.TimedOut || len(res.Agents) != 1 {
		t.Fatalf("wait = %+v, %v", res, err)
	}
	if got := res.Agents[0]; got.State != agentstate.Failed || got.ExitCode == nil || *got.ExitCode != 3 {
		t.Fatalf("after wait: state %s exit %v, want failed with 3", got.State, got.ExitCode)
	}
	text, err := c.Capture(ctx, a.ID, false, 0)
	if err != nil || !strings.Contains(text, "hello from the pane") {
		t.Fatalf("capture = %q, %v", text, err)
	}
	list, err := c.List(ctx)
	if err != nil || len(list) != 1 || list[0].ID != a.ID {
		t.Fatalf("list = %+v, %v", list, err)
	}
	if ex, err := c.Explain(ctx, a.ID); err != nil || ex.Agent.ID != a.ID || len(ex.History) == 0 {
		t.Fatalf("explain = %+v, %v", ex, err)
	}

	// A long-running agent: typed input arrives, a timed wait reports it
	// still running, a hook signal is accepted, close ends it.
	cat, err := c.Spawn(ctx, control.SpawnParams{Title: "cat", Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send(ctx, cat.ID, "ping\r"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		text, err := c.Capture(ctx, cat.ID, false, 0)
		if err == nil && strings.Contains(text, "ping") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("typed text never reached the pane: %q, %v", text, err)
		}
		time.Sleep(5 * time.Millisecond) // polling the pane's screen
	}
	res, err = c.Wait(ctx, []string{cat.ID}, 30*time.Millisecond)
	if err != nil || !res.TimedOut || res.Agents[0].State.Finished() {
		t.Fatalf("timed wait on a running agent = %+v, %v", res, err)
	}
	if err := c.Signal(ctx, cat.ID, "claude", agentstate.Signal{Event: "Notification", State: "waiting", Why: "permission: Bash"}); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Agent(ctx, cat.ID); err != nil || got.State != agentstate.Waiting || got.Source != "hook:claude" {
		t.Fatalf("after a waiting hook signal: state %s source %q (%v), want waiting from hook:claude", got.State, got.Source, err)
	}
	if err := c.SetStatus(ctx, "build", "green", cat.ID, 0); err != nil {
		t.Fatal(err)
	}
	if got := e.Status().Entries(); len(got) != 1 || got[0].Text != "green" {
		t.Fatalf("status entries %+v", got)
	}
	if err := c.CloseAgent(ctx, cat.ID); err != nil {
		t.Fatal(err)
	}
	res, err = c.Wait(ctx, []string{cat.ID}, 15*time.Second)
	if err != nil || res.TimedOut || !res.Agents[0].State.Finished() {
		t.Fatalf("wait after close = %+v, %v", res, err)
	}
	if _, err := c.Agent(ctx, "a999"); control.ErrorCode(err) != control.CodeNotFound {
		t.Fatalf("agent.get a999: %v", err)
	}
}

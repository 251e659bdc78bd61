package orchestrator

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/panes"
)

// holdingWatcher is a watchdog that holds the engine inside the second
// process start it hears of (the start waits for Watch) until released.
type holdingWatcher struct {
	n       atomic.Int32
	holding chan struct{} // closed once the second start is held
	release chan struct{}
	once    sync.Once
}

func (w *holdingWatcher) Watch(int) {
	if w.n.Add(1) == 2 {
		close(w.holding)
		<-w.release
	}
}

func (w *holdingWatcher) Exited(int) {}

func (w *holdingWatcher) let() { w.once.Do(func() { close(w.release) }) }

// TestCaptureDoesNotWaitForTheEngine: a capture reads a started agent's
// terminal without a turn of the reconciler. Polling a new agent's screen
// (what a spawner does to see its first output) is answered while the
// reconciler is busy, often with that very output: before, each capture
// queued behind it.
func TestCaptureDoesNotWaitForTheEngine(t *testing.T) {
	cfg := config.Default()
	cfg.Layout = config.Layout{Name: "tiled", MinAgentWidth: 10, MinAgentHeight: 3}
	cfg.Agents.KillGrace = config.Duration{Duration: 200 * time.Millisecond}
	w := &holdingWatcher{holding: make(chan struct{}), release: make(chan struct{})}
	e, err := New(cfg, Options{Session: "test", Spawner: panes.PTYSpawner{}, StateDir: t.TempDir(), Logger: testLogger(), Watchdog: w})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.let()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := e.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	e.Resize(120, 30)
	a := spawn(t, e, "sh", "-c", "printf '%s-%s\\n' shown 1; exec sleep 100")
	deadline := time.Now().Add(10 * time.Second)
	for {
		text, err := e.Capture(a.ID, false, 0)
		if err == nil && strings.Contains(text, "shown-1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first agent's output never showed in its capture: %q, %v", text, err)
		}
		time.Sleep(5 * time.Millisecond) // polling the screen, as a spawner does
	}
	// The second spawn holds the reconciler inside its start.
	go func() { _, _ = e.Spawn(control.SpawnRequest{Argv: []string{"sh", "-c", "exec sleep 100"}}) }()
	select {
	case <-w.holding:
	case <-time.After(10 * time.Second):
		t.Fatal("the second start never reached the watchdog")
	}
	got := make(chan string, 1)
	go func() {
		text, err := e.Capture(a.ID, false, 0)
		if err != nil {
			text = err.Error()
		}
		got <- text
	}()
	select {
	case text := <-got:
		if !strings.Contains(text, "shown-1") {
			t.Fatalf("capture while the reconciler is busy = %q, want the agent's screen", text)
		}
	case <-time.After(startTimeout / 2):
		// The reconciler gives up on the held start after startTimeout.
		t.Fatal("a capture waited for the reconciler, busy with another agent's start")
	}
	w.let()
}

package orchestrator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/panes"
)

// earlyPokeWatcher is a watchdog that holds the engine inside a start (it
// is told the new process group before the start returns) until the new
// pane's first output poked AwaitedOutput, or for a while. A poke that
// comes then is checked against the published snapshot at that moment:
// the frame the UI draws for it could not show a pane the snapshot lacks.
type earlyPokeWatcher struct {
	e       *Engine
	marker  string
	hidden  chan bool // one answer per start: poked while the pane was not shown
	holdFor time.Duration
}

func (w *earlyPokeWatcher) Watch(int) {
	select {
	case <-w.e.AwaitedOutput():
		w.hidden <- !snapshotShows(w.e.Snapshot(), w.marker)
	case <-time.After(w.holdFor):
		w.hidden <- false
	}
}

func (w *earlyPokeWatcher) Exited(int) {}

// snapshotShows reports whether a pane of snap shows text.
func snapshotShows(snap Snapshot, text string) bool {
	for _, p := range snap.Panes {
		if p.Term != nil && strings.Contains(paneText(p.Term), text) {
			return true
		}
	}
	return false
}

// TestFirstOutputPokesOnceThePaneIsShown: a new agent's first output asks
// the UI for a frame at once (AwaitedOutput), but only once a published
// snapshot shows the pane. A child prints as soon as it runs, often before
// the engine has published the snapshot with its pane; the frame drawn for
// an earlier poke did not show the pane, and the frame that did waited for
// the frame budget (up to two intervals on the user's screen).
func TestFirstOutputPokesOnceThePaneIsShown(t *testing.T) {
	cfg := config.Default()
	cfg.Layout = config.Layout{Name: "tiled", MinAgentWidth: 10, MinAgentHeight: 3}
	cfg.Agents.KillGrace = config.Duration{Duration: 200 * time.Millisecond}
	w := &earlyPokeWatcher{marker: "first-1", hidden: make(chan bool, 1), holdFor: 2 * time.Second}
	e, err := New(cfg, Options{Session: "test", Spawner: panes.PTYSpawner{}, StateDir: t.TempDir(), Logger: testLogger(), Watchdog: w})
	if err != nil {
		t.Fatal(err)
	}
	w.e = e
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
	e.Resize(120, 30)
	spawn(t, e, "sh", "-c", "printf '%s-%s\\n' first 1; exec sleep 100")
	if <-w.hidden {
		t.Fatal("the first output poked AwaitedOutput while the published snapshot did not show the pane")
	}
	select {
	case <-e.AwaitedOutput():
	case <-time.After(10 * time.Second):
		t.Fatal("the first output never poked AwaitedOutput")
	}
	if !snapshotShows(e.Snapshot(), w.marker) {
		t.Fatal("after the poke the snapshot does not show the first output")
	}
}

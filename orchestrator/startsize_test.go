package orchestrator

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/panes"
)

// newSizedEngine is newTestEngine with its size given before Start, as the
// session server does with its first client's terminal.
func newSizedEngine(t *testing.T, cols, rows int, mainArgv []string, mutate func(*config.Config)) *Engine {
	t.Helper()
	cfg := config.Default()
	cfg.Layout = config.Layout{Name: "tiled", MinAgentWidth: 10, MinAgentHeight: 3}
	cfg.Agents.KillGrace = config.Duration{Duration: 200 * time.Millisecond}
	if mutate != nil {
		mutate(&cfg)
	}
	e, err := New(cfg, Options{Session: "test", Spawner: panes.PTYSpawner{}, StateDir: t.TempDir(), Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	e.Resize(cols, rows)
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

// TestMainViewStartsAtTheSizeGivenBeforeStart: the main program's terminal
// has its box's size from its first instant (it used to start at 80x24 and
// be resized a moment later, so what it drew first was for the wrong size).
func TestMainViewStartsAtTheSizeGivenBeforeStart(t *testing.T) {
	e := newSizedEngine(t, 60, 12, []string{"sh", "-c", "echo size=$(stty size); exec cat"}, nil)
	m := e.Snapshot().Main
	if m == nil || m.Box.Empty() {
		t.Fatal("the main view has no box after a start at 60x12: the size given before Start was lost")
	}
	want := "size=" + strconv.Itoa(m.Box.H-2) + " " + strconv.Itoa(m.Box.W-2)
	var screen string
	pollUntil(t, 15*time.Second, "the main view's first line", func() bool {
		screen, _ = e.Capture(control.MainID, false, 0)
		return strings.Contains(screen, "size=")
	})
	if !strings.Contains(screen, want) {
		t.Fatalf("main view's terminal at start: %q, want %q (its box %dx%d less the border)", firstLine(screen), want, m.Box.W, m.Box.H)
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

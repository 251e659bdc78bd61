package cli

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentgrid/agentgrid/panes"
)

// TestSessionServerFitsProcsToFloods: the session server runs one Go
// processor while no pane floods (panes.FitProcsToFloods gives it one more
// than the flood slots while they do). The server here stops at its config
// (a file that does not exist), after the setting.
func TestSessionServerFitsProcsToFloods(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
	runtime.GOMAXPROCS(panes.FloodSlots() + 1)
	missing := filepath.Join(t.TempDir(), "missing.toml")
	if err := startSessionCmd(t, serverCmdName, "--session", "procs", "--config", missing); err == nil {
		t.Fatal("a session server with a missing config file started")
	}
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("the idle session server runs %d Go processors, want 1", got)
	}
}

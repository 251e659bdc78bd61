package cli

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentgrid/agentgrid/panes"
)

// TestSessionServerKeepsAProcForInput: the session server runs one Go
// processor more than the panes' flood slots, so that a keystroke from an
// attached terminal is read while every slot parses a flood. The server
// here stops at its config (a file that does not exist), after the setting.
func TestSessionServerKeepsAProcForInput(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
	runtime.GOMAXPROCS(panes.FloodSlots())
	missing := filepath.Join(t.TempDir(), "missing.toml")
	if err := startSessionCmd(t, serverCmdName, "--session", "procs", "--config", missing); err == nil {
		t.Fatal("a session server with a missing config file started")
	}
	if got, want := runtime.GOMAXPROCS(0), panes.FloodSlots()+1; got != want {
		t.Fatalf("the session server runs %d Go processors with %d flood slots, want %d", got, panes.FloodSlots(), want)
	}
}

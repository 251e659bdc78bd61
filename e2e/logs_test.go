package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFullDiskIsShownAndTheAgentGoesOn points an agent's output log at
// /dev/full, where every write fails with ENOSPC exactly as on a full
// disk: the status line and agentgrid explain say so, and the pane keeps
// showing the agent's output.
func TestFullDiskIsShownAndTheAgentGoesOn(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	h := newHarness(t, 160, 40, "")
	dir := filepath.Join(h.home, ".state", "agentgrid", h.session)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/full", filepath.Join(dir, "a1.log")); err != nil {
		t.Fatal(err)
	}
	h.startSession("--", "sh")
	id := h.spawn("--title", "full", "--", "sh", "-c", "echo before-full; read x; echo after-$x; sleep 30")
	if id != "a1" {
		t.Fatalf("spawned %s, want a1", id)
	}
	h.waitFor(10*time.Second, func() bool {
		return strings.Contains(statusLine(h.capture()), "a1: output not logged: disk full")
	}, "the status line to show that a1's output is not logged")
	out := h.mustClient("explain", id)
	if !strings.Contains(out, "log stopped:") || !strings.Contains(out, "no space left on device") {
		t.Errorf("agentgrid explain %s does not say the log stopped:\n%s", id, out)
	}
	h.mustClient("send", id, "go", "--enter")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "after-go") },
		"the agent's output after the failure in its pane")
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/internal/control"
)

// TestAttachTargetSays: attach or watch with a session name that runs
// nowhere says so by name and points at agentgrid ls, not at a socket
// path; with two sessions running and no name, the hint is the command
// the user typed.
func TestAttachTargetSays(t *testing.T) {
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	if err := os.Mkdir(filepath.Join(runtime, "agentgrid"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, _, err := attachTarget("nosuch", "agentgrid attach")
	if err == nil || err.Error() != "no agentgrid session named nosuch is running; agentgrid ls lists the running ones" {
		t.Errorf("attach nosuch: %v", err)
	}
	for _, name := range []string{"one", "two"} {
		s, err := control.StartServer(control.SocketPath(name), newCLIBackend(), control.ServerOptions{Session: name})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
	}
	if path, name, err := attachTarget("one", "agentgrid attach"); err != nil || name != "one" || path != control.SocketPath("one") {
		t.Errorf("attach one: %q %q %v", path, name, err)
	}
	_, _, err = attachTarget("", "agentgrid watch")
	if err == nil || !strings.Contains(err.Error(), "2 sessions are running (one, two); name one: agentgrid watch NAME") {
		t.Errorf("watch with two sessions: %v", err)
	}
}

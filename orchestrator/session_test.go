package orchestrator

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/config"
)

// TestNewRejectsBadSessionName: the engine is an entry point of its own
// (the session name goes into hook events, the environment and the socket
// name), so it checks the name too.
func TestNewRejectsBadSessionName(t *testing.T) {
	for _, bad := range []string{"../../x", "a/b", "..", strings.Repeat("y", 65)} {
		dir := t.TempDir()
		e, err := New(config.Default(), Options{Session: bad, StateDir: filepath.Join(dir, "s"), SocketPath: filepath.Join(dir, "s.sock")})
		if err == nil {
			_ = e
			t.Errorf("New with session %q succeeded, want an error", bad)
		}
	}
}

package orchestrator

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
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

// An engine given no session name takes the same default as `agentgrid`
// started without --session.
func TestNewDefaultSessionName(t *testing.T) {
	dir := t.TempDir()
	e, err := New(config.Default(), Options{StateDir: filepath.Join(dir, "s"), SocketPath: filepath.Join(dir, "s.sock")})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Shutdown(context.Background()) }()
	if e.opts.Session != control.DefaultSessionName() {
		t.Errorf("the engine's default session is %q, want %q", e.opts.Session, control.DefaultSessionName())
	}
}

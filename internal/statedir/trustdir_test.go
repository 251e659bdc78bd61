package statedir

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
)

// The trust store shares the state directory with the sessions' folders;
// removing old session folders never takes it (which would untrust every
// project), and no session name can be its name.
func TestCleanStateDirsKeepsTheTrustStore(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	base := config.StateDir()
	if config.TrustDir() != filepath.Join(base, config.TrustDirName) {
		t.Fatalf("trust dir %s is not in the state base %s", config.TrustDir(), base)
	}
	if err := control.CheckSessionName(config.TrustDirName); err == nil {
		t.Errorf("a session may be named %q, the trust store's folder", config.TrustDirName)
	}
	f := filepath.Join(t.TempDir(), ".agentgrid.toml")
	if err := os.WriteFile(f, []byte("[ui]\nfps = 30\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Trust(f); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-365 * 24 * time.Hour)
	_ = filepath.Walk(config.TrustDir(), func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, old, old) })
	removed, err := Clean(base, "self", time.Hour, time.Now())
	if err != nil || len(removed) > 0 {
		t.Errorf("Clean removed %v (%v)", removed, err)
	}
	if files, err := config.TrustedFiles(); err != nil || len(files) != 1 {
		t.Errorf("trusted files after the clean-up: %v %v", files, err)
	}
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// config check and print say which project file they ignored and how to
// apply it; trust, trust --list and untrust change what they read.
func TestTrustCommands(t *testing.T) {
	wd := isolateConfig(t)
	local := filepath.Join(wd, ".agentgrid.toml")
	if err := os.WriteFile(local, []byte("[layout]\nname = \"tiled\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ignored := "ignored .agentgrid.toml (not trusted); to apply it: agentgrid trust"

	r := runCLI(t, "config", "check")
	r.want(t, 0)
	if !strings.Contains(r.stdout, ignored) || !strings.Contains(r.stdout, "config OK: no config files") {
		t.Errorf("config check of an untrusted file:\n%s", r.stdout)
	}
	r = runCLI(t, "config", "print")
	r.want(t, 0)
	if !strings.Contains(r.stderr, ignored) || strings.Contains(r.stdout, `"tiled"`) {
		t.Errorf("config print of an untrusted file: stdout has tiled=%v, stderr %q", strings.Contains(r.stdout, `"tiled"`), r.stderr)
	}

	r = runCLI(t, "trust")
	r.want(t, 0)
	if !strings.HasPrefix(r.stdout, "trusted "+local+" (sha256 ") {
		t.Errorf("trust printed %q", r.stdout)
	}
	r = runCLI(t, "config", "check")
	r.want(t, 0)
	if r.stdout != "config OK: .agentgrid.toml\n" {
		t.Errorf("config check of a trusted file: %q", r.stdout)
	}
	r = runCLI(t, "trust", "--list")
	r.want(t, 0)
	if r.stdout != local+"\ttrusted\n" {
		t.Errorf("trust --list: %q", r.stdout)
	}

	if err := os.WriteFile(local, []byte("[layout]\nname = \"even-vertical\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "trust", "--list")
	if r.stdout != local+"\tchanged since trusted\n" {
		t.Errorf("trust --list after a change: %q", r.stdout)
	}
	r = runCLI(t, "config", "check")
	if !strings.Contains(r.stdout, "ignored .agentgrid.toml (changed since trusted); to apply it: agentgrid trust") {
		t.Errorf("config check after a change: %q", r.stdout)
	}

	r = runCLI(t, "untrust")
	r.want(t, 0)
	if r.stdout != ".agentgrid.toml is no longer trusted\n" {
		t.Errorf("untrust: %q", r.stdout)
	}
	if r = runCLI(t, "trust", "--list"); r.stdout != "no trusted files\n" {
		t.Errorf("trust --list after untrust: %q", r.stdout)
	}

	if err := os.Chmod(local, 0o666); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "trust")
	r.want(t, 1)
	if !strings.Contains(r.stderr, "writable by group or others") || !strings.Contains(r.stderr, "chmod go-w .agentgrid.toml") {
		t.Errorf("trust of a world-writable file: %q", r.stderr)
	}
	r = runCLI(t, "trust", filepath.Join(wd, "missing.toml"))
	r.want(t, 1)
	if !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("trust of a missing file: %q", r.stderr)
	}
}

// TestTrustWithNoLocalFile: agentgrid trust in a folder without a
// .agentgrid.toml says there is nothing to trust there and what to do.
func TestTrustWithNoLocalFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	r := runCLI(t, "trust")
	r.want(t, 1)
	want := "agentgrid: there is no .agentgrid.toml in " + dir + " to trust; run agentgrid trust in the project's folder, or give the file's path\n"
	if r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/config"
)

// isolateConfig points the config search at empty directories.
func isolateConfig(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("HOME", home)
	wd := t.TempDir()
	t.Chdir(wd)
	return wd
}

func TestConfigCheckOK(t *testing.T) {
	isolateConfig(t)
	r := runCLI(t, "config", "check")
	r.want(t, 0)
	if !strings.HasPrefix(r.stdout, "config OK: no config files") {
		t.Errorf("stdout %q", r.stdout)
	}

	good := filepath.Join(t.TempDir(), "good.toml")
	if err := os.WriteFile(good, []byte("[layout]\nname = \"tiled\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "config", "check", "--config", good)
	r.want(t, 0)
	if r.stdout != "config OK: "+good+"\n" {
		t.Errorf("stdout %q", r.stdout)
	}
}

func TestConfigCheckReportsEveryProblem(t *testing.T) {
	wd := isolateConfig(t)
	if err := os.WriteFile(filepath.Join(wd, ".agentgrid.toml"), []byte("[layout]\nnmae = \"tiled\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runCLI(t, "trust").want(t, 0)
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("[layout]\nmain_size = 500\n\n[agents]\nbogus = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "config", "check", "--config", bad)
	r.want(t, 1)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) < 3 {
		t.Fatalf("want at least 3 diagnostics, got:\n%s", r.stdout)
	}
	for _, want := range []string{".agentgrid.toml:2:", bad + ":2:", bad + ":5:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "problems") {
		t.Errorf("stderr %q", r.stderr)
	}

	r = runCLI(t, "config", "check", "--config", filepath.Join(t.TempDir(), "missing.toml"))
	r.want(t, 1)
	if !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("stderr %q", r.stderr)
	}
}

func TestConfigPrint(t *testing.T) {
	isolateConfig(t)
	r := runCLI(t, "config", "print", "--default")
	r.want(t, 0)
	if r.stdout != config.ExampleTOML() {
		t.Error("config print --default differs from config.ExampleTOML()")
	}

	f := filepath.Join(t.TempDir(), "c.toml")
	if err := os.WriteFile(f, []byte("[layout]\nname = \"tiled\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "config", "print", "--config", f)
	r.want(t, 0)
	if !strings.Contains(r.stdout, `name = "tiled"`) {
		t.Errorf("effective config lacks the override:\n%s", r.stdout)
	}
	cfg, diags := config.Decode(config.Default(), "printed", []byte(r.stdout))
	if len(diags) > 0 || cfg.Layout.Name != "tiled" {
		t.Errorf("printed config does not read back: %v", diags)
	}

	if err := os.WriteFile(f, []byte("bogus = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "config", "print", "--config", f)
	r.want(t, 1)
	if !strings.Contains(r.stderr, f+":1:") {
		t.Errorf("stderr %q", r.stderr)
	}
}

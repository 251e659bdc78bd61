package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestNoTerminalSaysSoOnce runs the session and watch without a terminal on
// stdin: the message names what needs one under a single "agentgrid:"
// prefix, never "agentgrid: agentgrid needs a terminal".
func TestNoTerminalSaysSoOnce(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("AGENTGRID_SOCKET", "")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	stdin := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = stdin }()
	t.Chdir(t.TempDir())

	res := runRoot(t, "--session", "texts")
	if res.code != 1 || !strings.Contains(res.stderr, "agentgrid: a session needs a terminal on stdin and stdout") {
		t.Errorf("agentgrid without a terminal: exit %d, stderr %q", res.code, res.stderr)
	}
	res = runRoot(t, "watch", "--", filepath.Join(t.TempDir(), "some.sock"))
	if res.code != 1 || !strings.Contains(res.stderr, "agentgrid: watch needs a terminal on stdin and stdout") {
		t.Errorf("agentgrid watch without a terminal: exit %d, stderr %q", res.code, res.stderr)
	}
	for _, s := range []string{"agentgrid: agentgrid", "agentgrid: agentgrid watch"} {
		if strings.Contains(res.stderr, s) {
			t.Errorf("stderr %q repeats the program's name", res.stderr)
		}
	}
}

// TestCwdThatCannotBeEntered: spawn's --cwd names a directory the user
// may not enter as such, before asking the session. Root enters any
// directory, so as root the test runs itself again as the user nobody.
func TestCwdThatCannotBeEntered(t *testing.T) {
	if os.Geteuid() == 0 {
		if os.Getenv("AGENTGRID_TEST_AS_NOBODY") != "" {
			t.Fatal("still root after dropping to nobody")
		}
		dir, err := os.MkdirTemp("", "agentgrid-nobody-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		self, err := os.ReadFile(mustExecutable(t))
		if err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(dir, "cli.test")
		if err := os.WriteFile(bin, self, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-test.run=^TestCwdThatCannotBeEntered$", "-test.v")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "AGENTGRID_TEST_AS_NOBODY=1", "TMPDIR=/tmp", "HOME=/tmp")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestCwdThatCannotBeEntered") {
			t.Fatalf("as nobody: %v\n%s", err, out)
		}
		return
	}
	locked := filepath.Join(t.TempDir(), "locked")
	if err := os.Mkdir(locked, 0o000); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(locked, 0o700) })
	_, err := resolveCwd(locked)
	if err == nil || !strings.Contains(err.Error(), "--cwd "+locked+" cannot be entered") {
		t.Fatalf("resolveCwd(%s) = %v", locked, err)
	}
}

func mustExecutable(t *testing.T) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

package panes_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentgrid/agentgrid/panes"
)

// envAsNobody marks the copy of this test binary that runs without root.
const envAsNobody = "AGENTGRID_TEST_AS_NOBODY"

// TestUnreadableCwd starts a program in a directory the user may not enter:
// the error names the directory, not the program, whose exec would report
// a bare "permission denied". Root enters any directory, so as root the
// test runs itself again as the unprivileged user nobody.
func TestUnreadableCwd(t *testing.T) {
	if os.Geteuid() == 0 {
		rerunAsNobody(t, "TestUnreadableCwd")
		return
	}
	dir := filepath.Join(t.TempDir(), "locked")
	if err := os.Mkdir(dir, 0o000); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	s := spec("sh", "-c", "true")
	s.Dir = dir
	_, err := panes.Start(panes.PTYSpawner{}, s, panes.Options{})
	if err == nil || !strings.Contains(err.Error(), "cwd "+dir+" cannot be entered") || strings.HasPrefix(err.Error(), "start sh") {
		t.Fatalf("err = %v, want one naming the directory %s", err, dir)
	}
}

// rerunAsNobody runs test again in a copy of the test binary (the build
// directory is private to root) as uid and gid 65534, and fails t when it
// fails.
func rerunAsNobody(t *testing.T, test string) {
	t.Helper()
	if os.Getenv(envAsNobody) != "" {
		t.Fatal("still root after dropping to nobody")
	}
	dir, err := os.MkdirTemp("", "agentgrid-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "panes.test")
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+test+"$", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), envAsNobody+"=1", "TMPDIR=/tmp", "HOME=/tmp")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("%s as nobody: %v\n%s", test, err, out)
	}
}

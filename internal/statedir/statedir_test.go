package statedir

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
	"golang.org/x/sys/unix"
)

// makeStateDir creates base/name with one file, everything last changed at mtime.
func makeStateDir(t *testing.T, base, name string, mtime time.Time) string {
	t.Helper()
	dir := filepath.Join(base, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a1.log"), []byte("output\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	setTimes(t, dir, mtime)
	return dir
}

// setTimes sets the mtime of dir and of everything in it (not following symlinks).
func setTimes(t *testing.T, dir string, mtime time.Time) {
	t.Helper()
	ts := []unix.Timespec{unix.NsecToTimespec(mtime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
	_ = filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			if err := unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	})
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// TestCleanStateDirs: an old folder of an ended session goes; a fresh one,
// one whose session holds its lock, one whose socket answers, this
// session's own, a symlink and what a symlink inside points to stay.
func TestCleanStateDirs(t *testing.T) {
	base := t.TempDir()
	runtime, err := os.MkdirTemp("", "ag-gc-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(runtime) })
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	now := time.Now()
	old := now.Add(-8 * 24 * time.Hour)
	keep := 7 * 24 * time.Hour

	oldDead := makeStateDir(t, base, "old-dead", old)
	fresh := makeStateDir(t, base, "fresh", now.Add(-time.Hour))
	self := makeStateDir(t, base, "self", old)
	// A session that is running and holds its folder's lock.
	claimed, err := Claim(base, "running-lock")
	if err != nil {
		t.Fatal(err)
	}
	defer claimed.Release()
	if err := os.WriteFile(filepath.Join(claimed.Path, "a1.log"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	setTimes(t, claimed.Path, old)
	// A running session of an older agentgrid: no lock file, a live socket.
	runningSock := makeStateDir(t, base, "running-sock", old)
	if err := os.MkdirAll(filepath.Dir(control.SocketPath("running-sock")), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", control.SocketPath("running-sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// A dead session whose socket file was left behind counts as ended.
	staleSock := makeStateDir(t, base, "stale-sock", old)
	sln, err := net.ListenUnix("unix", &net.UnixAddr{Name: control.SocketPath("stale-sock"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	sln.SetUnlinkOnClose(false)
	_ = sln.Close()
	// Symlinks: one in place of a session folder, one inside an old folder.
	outside := t.TempDir()
	secret := filepath.Join(outside, "keep-me")
	if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	setTimes(t, outside, old)
	if err := os.Symlink(outside, filepath.Join(base, "linked")); err != nil {
		t.Fatal(err)
	}
	withLink := makeStateDir(t, base, "with-link", old)
	if err := os.Symlink(outside, filepath.Join(withLink, "out")); err != nil {
		t.Fatal(err)
	}
	setTimes(t, withLink, old)
	// Not session folders: a file and a folder whose name is no session name.
	if err := os.WriteFile(filepath.Join(base, "agentgrid.log"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	notSession := makeStateDir(t, base, "not a session", old)

	removed, err := Clean(base, "self", keep, now)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	want := []string{oldDead, staleSock, withLink}
	if !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, p := range want {
		if exists(p) {
			t.Errorf("%s is still there", p)
		}
	}
	for _, p := range []string{fresh, self, claimed.Path, runningSock, notSession, filepath.Join(base, "linked"), secret, filepath.Join(base, "agentgrid.log")} {
		if !exists(p) {
			t.Errorf("%s was removed", p)
		}
	}
	// keep 0 keeps everything.
	makeStateDir(t, base, "old-again", old)
	if removed, err := Clean(base, "self", 0, now); err != nil || len(removed) > 0 {
		t.Errorf("keep 0 removed %v, %v", removed, err)
	}
}

func TestClaimStateDir(t *testing.T) {
	base := t.TempDir()
	d, err := Claim(base, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(d.Path); err != nil || fi.Mode().Perm() != 0o700 || d.Path != filepath.Join(base, "s1") {
		t.Fatalf("state dir %s: %v %v", d.Path, fi, err)
	}
	if _, err := Claim(base, "s1"); err == nil || !strings.Contains(err.Error(), "another agentgrid session named s1 is running") {
		t.Errorf("second claim: %v", err)
	}
	d.Release()
	d2, err := Claim(base, "s1")
	if err != nil {
		t.Fatalf("claim after release: %v", err)
	}
	// A folder removed under its lock (by another session's clean-up) is
	// noticed, so a claim never ends up holding a deleted folder.
	if !d2.stillThere() {
		t.Errorf("a claimed folder does not count as there")
	}
	if err := os.RemoveAll(d2.Path); err != nil {
		t.Fatal(err)
	}
	if d2.stillThere() {
		t.Errorf("a removed folder counts as there")
	}
	d2.Release()
	if _, err := Claim(base, "../x"); err == nil || exists(filepath.Join(filepath.Dir(base), "x")) {
		t.Errorf("claimed ../x: %v", err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	if _, err := Claim(base, "link"); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("claimed a symlinked state dir: %v", err)
	}
}

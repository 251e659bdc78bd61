package e2e

import (
	"net"
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

// TestFloodLogStaysUnderTheCap: with [agents] log_max = "64KiB", an agent
// printing about 2.6 MB leaves at most 128 KiB on disk, ending with its
// last line.
func TestFloodLogStaysUnderTheCap(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 160, 40, "[agents]\nlog_max = \"64KiB\"\n")
	h.startSession("--", "sh")
	id := h.spawn("--", "seq", "1", "400000")
	h.waitAgent(id, 60*time.Second, func(a agent) bool { return a.State == "done" }, "the flood to finish")
	dir := filepath.Join(h.home, ".state", "agentgrid", h.session)
	var total int64
	files, _ := filepath.Glob(filepath.Join(dir, id+".log*"))
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > 64<<10 {
			t.Errorf("%s is %d bytes, over the 64KiB cap", f, fi.Size())
		}
		total += fi.Size()
	}
	if len(files) != 2 || total > 128<<10 {
		t.Errorf("log files %v hold %d bytes; want %s.log and %s.log.1, at most 128KiB", files, total, id, id)
	}
	b, err := os.ReadFile(filepath.Join(dir, id+".log"))
	if err != nil || !strings.HasSuffix(string(b), "399999\r\n400000\r\n") {
		n := min(len(b), 30)
		t.Errorf("the log does not end with the last line: ...%q, %v", b[len(b)-n:], err)
	}
}

// TestOldStateFoldersGoAtStart: a session that starts removes the state
// folder of a session that ended more than [agents] keep_state ago, and
// keeps a recent one and one whose session still answers on its socket.
func TestOldStateFoldersGoAtStart(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 160, 40, "[agents]\nkeep_state = \"7d\"\n")
	base := filepath.Join(h.home, ".state", "agentgrid")
	old := time.Now().Add(-8 * 24 * time.Hour)
	mk := func(name string, mtime time.Time) string {
		dir := filepath.Join(base, name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "a1.log"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{filepath.Join(dir, "a1.log"), dir} {
			if err := os.Chtimes(p, mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	gone := mk("ended-long-ago", old)
	recent := mk("ended-lately", time.Now().Add(-time.Hour))
	live := mk("still-running", old)
	sockDir := filepath.Join(h.runtime, "agentgrid")
	if err := os.MkdirAll(sockDir, 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(sockDir, "still-running.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()

	h.startSession("--", "sh")
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("%s is still there (%v)", gone, err)
	}
	for _, dir := range []string{recent, live, filepath.Join(base, h.session)} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was removed: %v", dir, err)
		}
	}
}

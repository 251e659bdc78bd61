package live

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stray is a process left running from a test's home.
type stray struct {
	pid     int
	cmdline string
}

// homeProcesses lists the processes whose environment has HOME=home: what
// a test started, however far it went from agentgrid (a daemon in its own
// session, which no process group or hang-up reaches).
func homeProcesses(home string) []stray {
	entries, _ := os.ReadDir("/proc")
	want := []byte("HOME=" + home + "\x00")
	var out []stray
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, want...)) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, stray{pid, strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))})
	}
	return out
}

// reapStrays runs after the test's tmux server is gone: it waits a while
// for the processes of the test's home to end on their own, then kills
// and reports the ones that outlived the session.
func (h *harness) reapStrays() {
	deadline := time.Now().Add(15 * time.Second)
	left := homeProcesses(h.home)
	for len(left) > 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		left = homeProcesses(h.home)
	}
	for _, s := range left {
		h.t.Logf("STRAY: pid %d (%s) outlived the session and its tmux server; killed", s.pid, s.cmdline)
		_ = syscall.Kill(s.pid, syscall.SIGKILL)
	}
}

// TestHomeProcessesFindsADaemon: a process that left for its own session
// is still found by its home, and only by its own.
func TestHomeProcessesFindsADaemon(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command("sleep", "600")
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	found := homeProcesses(home)
	if len(found) != 1 || found[0].pid != cmd.Process.Pid || found[0].cmdline != "sleep 600" {
		t.Fatalf("homeProcesses(%s) = %+v, want the sleep %d", home, found, cmd.Process.Pid)
	}
	if other := homeProcesses(home + "x"); len(other) != 0 {
		t.Fatalf("another home found %+v", other)
	}
}

// sessionServers are the pids of the agentgrid session servers of the
// harness's runtime folder (`agentgrid ls --json`).
func (h *harness) sessionServers() []int {
	ctx, cancel := context.WithTimeout(context.Background(), scaled(10*time.Second))
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "ls", "--json")
	cmd.Env = h.env
	out, err := cmd.Output()
	if err != nil {
		h.t.Logf("agentgrid ls --json: %v", err)
		return nil
	}
	var sessions []struct {
		PID int `json:"pid"`
	}
	if err := json.Unmarshal(out, &sessions); err != nil {
		h.t.Logf("agentgrid ls --json printed %q: %v", out, err)
		return nil
	}
	var pids []int
	for _, s := range sessions {
		if s.PID > 0 {
			pids = append(pids, s.PID)
		}
	}
	return pids
}

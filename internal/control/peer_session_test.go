//go:build linux || darwin

package control

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPeerInAFreshAgentsSessionIsInside: a process that left an agent's
// process tree by a double fork, while the agent is too new for the
// session's list of agents (IsAgentSession says no), is still inside: its
// session's leader is this process's child. It used to count as the user's
// own shell, with full control, until the list caught up.
func TestPeerInAFreshAgentsSessionIsInside(t *testing.T) {
	// The "agent": a child leading its own session, as every agent does.
	// It starts a process in its session that leaves the tree at once,
	// prints that process's pid, and stays.
	leader := exec.Command("sh", "-c", `(sh -c 'echo $$; exec sleep 60' &); exec sleep 60`)
	leader.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := leader.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := leader.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	orphan, aerr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || aerr != nil {
		t.Fatalf("the orphan's pid: %q, %v, %v", line, err, aerr)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(orphan, syscall.SIGKILL)
		_ = leader.Process.Kill()
		_ = leader.Wait()
	})
	self := os.Getpid()
	deadline := time.Now().Add(10 * time.Second)
	for descendsFrom(orphan, self) { // its subshell has yet to exit
		if time.Now().After(deadline) {
			t.Fatal("the orphan never left this process's tree")
		}
		time.Sleep(5 * time.Millisecond) // polling the process table
	}
	if sid := sessionOf(orphan); sid != leader.Process.Pid {
		t.Fatalf("the orphan's session is %d, want its leader's %d", sid, leader.Process.Pid)
	}

	fresh := &Peer{pid: orphan, isSession: func(int) bool { return false }}
	if !fresh.Inside() {
		t.Error("a process in the session of this process's child counts as outside while the agents' list does not show that child yet")
	}
	// A process whose session's leader is not our child stays outside: the
	// one that started this test.
	if parent := (&Peer{pid: os.Getppid(), isSession: func(int) bool { return false }}); parent.Inside() {
		t.Error("the process that started this test counts as inside")
	}
}

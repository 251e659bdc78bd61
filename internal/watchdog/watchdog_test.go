package watchdog

import (
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// startGroup starts a shell in a process group of its own whose child
// ignores SIGHUP, as an agent that outlives a hang-up would.
func startGroup(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", "trap '' HUP; sleep 300 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return cmd
}

// TestRunKillsRecordedGroupsAtEOF: when the session's end of the pipe
// closes, every recorded group dies, and Run returns.
func TestRunKillsRecordedGroupsAtEOF(t *testing.T) {
	cmd := startGroup(t)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	r, w := io.Pipe()
	done := make(chan struct{})
	go func() { Run(r); close(done) }()
	if _, err := fmt.Fprintf(w, "+%d\n", cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		t.Fatalf("the group died before the pipe closed: %v", err)
	default:
	}
	_ = w.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return 10 s after EOF")
	}
	select {
	case err := <-exited:
		ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("the group's leader ended with %v, want SIGKILL", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the recorded group is alive 10 s after EOF")
	}
	// The sleep, reparented, may stay a zombie until its new parent reaps
	// it; wait for the group to be gone.
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(-cmd.Process.Pid, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a process of the recorded group (the sleep) is alive 10 s after EOF")
		}
	}
}

// TestRunSparesUnrecordedGroups: a group never recorded is not touched at
// EOF, even when a leader's exit is reported for it or a line is garbled.
func TestRunSparesUnrecordedGroups(t *testing.T) {
	cmd := startGroup(t)
	r, w := io.Pipe()
	done := make(chan struct{})
	go func() { Run(r); close(done) }()
	if _, err := fmt.Fprintf(w, "-%d\n+\n+x%d\n+1\n", cmd.Process.Pid, cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return 10 s after EOF")
	}
	if err := syscall.Kill(-cmd.Process.Pid, 0); err != nil {
		t.Errorf("an unrecorded group was signalled: %v", err)
	}
}

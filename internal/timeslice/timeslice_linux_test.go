package timeslice

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// sliceOf is thread (or process) tid's time slice in ns; the kernel
// reports the default one too (e.g. 1.4 ms on two CPUs).
func sliceOf(t *testing.T, tid int) uint64 {
	t.Helper()
	a, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		t.Fatalf("sched_getattr(%d): %v", tid, err)
	}
	return a.Runtime
}

// needSlices skips the test on a kernel that keeps no slice per thread
// (before Linux 6.12): the calls succeed there and change nothing.
func needSlices(t *testing.T) {
	t.Helper()
	got := make(chan uint64)
	go func() {
		// A thread of its own: locked and left locked, it ends with the
		// goroutine.
		runtime.LockOSThread()
		_ = set(0, Short)
		got <- sliceOf(t, 0)
	}()
	if <-got != Short {
		t.Skip("this kernel keeps no time slice per thread (Linux 6.12 or later does)")
	}
}

// TestPromptShortensEveryThreadButNotChildren: after Prompt every thread
// of the process has the short slice and its old policy and nice value; a
// program it starts has the default slice; a flood's parse (Default) runs in
// the default slice and its thread gets the short one back after.
func TestPromptShortensEveryThreadButNotChildren(t *testing.T) {
	needSlices(t)
	before, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { on.Store(false) })
	if err := Prompt(); err != nil {
		t.Fatal(err)
	}
	tasks, _ := filepath.Glob("/proc/self/task/*")
	if len(tasks) < 2 {
		t.Fatalf("found %d threads, want the Go runtime's several", len(tasks))
	}
	for _, p := range tasks {
		tid, _ := strconv.Atoi(filepath.Base(p))
		a, err := unix.SchedGetAttr(tid, 0)
		if err != nil {
			continue // the thread ended meanwhile
		}
		if a.Runtime != Short {
			t.Errorf("thread %d has a slice of %d ns, want %d", tid, a.Runtime, Short)
		}
		if a.Policy != before.Policy || a.Nice != before.Nice {
			t.Errorf("thread %d: policy %d nice %d, want %d and %d as before", tid, a.Policy, a.Nice, before.Policy, before.Nice)
		}
	}

	// A program started in Default is not hurried along.
	cmd := exec.Command("sleep", "30")
	end := Default()
	err = cmd.Start()
	end()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if sl := sliceOf(t, cmd.Process.Pid); sl == Short {
		t.Errorf("a program started in Default has the short slice")
	}

	type slices struct{ during, after uint64 }
	got := make(chan slices)
	go func() {
		end := Default()
		during := sliceOf(t, 0)
		tid := unix.Gettid()
		end()
		// Default kept the goroutine on its thread; read that thread's slice.
		got <- slices{during, sliceOf(t, tid)}
	}()
	select {
	case s := <-got:
		if s.during == Short {
			t.Error("a flood's parse runs in the short slice")
		}
		if s.after != Short {
			t.Errorf("after the parse its thread has a slice of %d ns, want %d", s.after, Short)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Default did not return")
	}
}

// TestNothingChangesWithoutPrompt: in a process that did not ask for short
// slices (tests, the hook command), Default and Thread change nothing.
func TestNothingChangesWithoutPrompt(t *testing.T) {
	needSlices(t)
	got := make(chan [2]uint64)
	go func() {
		runtime.LockOSThread()
		before := sliceOf(t, 0)
		Thread()
		end := Default()
		end()
		got <- [2]uint64{before, sliceOf(t, 0)}
	}()
	if s := <-got; s[0] != s[1] {
		t.Fatalf("the thread's slice went from %d to %d ns without Prompt", s[0], s[1])
	}
}

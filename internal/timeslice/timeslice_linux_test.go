package timeslice

import (
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

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
		_, _ = set(0, Short)
		got <- sliceOf(t, 0)
	}()
	if <-got != Short {
		t.Skip("this kernel keeps no time slice per thread (Linux 6.12 or later does)")
	}
}

// TestPromptShortensEveryThread: after Prompt every thread of the process
// has the short slice and its old policy and nice value.
func TestPromptShortensEveryThread(t *testing.T) {
	needSlices(t)
	before, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		t.Fatal(err)
	}
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
}

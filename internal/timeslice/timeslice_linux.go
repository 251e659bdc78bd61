package timeslice

import (
	"os"
	"runtime"
	"strconv"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Short is the slice asked for: the least Linux accepts.
const Short = 100_000 // ns

// on is set once Prompt asked for short slices.
var on atomic.Bool

// set asks for a slice of ns for thread tid (0: the calling thread; 0 ns:
// the default slice). The thread keeps its policy and nice value. Threads
// and processes it starts inherit the slice.
func set(tid int, ns uint64) error {
	a, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return err
	}
	if a.Policy != unix.SCHED_NORMAL && a.Policy != unix.SCHED_BATCH {
		return nil // real-time or idle threads: not ours to change
	}
	a.Size, a.Runtime = unix.SizeofSchedAttr, ns
	return unix.SchedSetAttr(tid, a, 0)
}

// Prompt gives every thread of this process the short slice, and so every
// thread the Go runtime starts later. It reports the first thread it could
// not set.
func Prompt() error {
	on.Store(true)
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if err := set(tid, Short); err != nil && err != unix.ESRCH {
			return err
		}
	}
	return nil
}

// Default runs the calling goroutine on its thread with the default slice
// until the returned function is called (after Prompt; else it does
// nothing). A pane parses a flood in it: in short slices the parse would
// preempt the very threads they are for. A program is started in it: a
// child starts with the slice of the thread that forked it, and agents
// are not hurried along with the keys.
func Default() (end func()) {
	if !on.Load() {
		return func() {}
	}
	runtime.LockOSThread()
	_ = set(0, 0)
	return func() {
		_ = set(0, Short)
		runtime.UnlockOSThread()
	}
}

// Thread gives the calling thread the short slice, after Prompt (else it
// does nothing): for a thread that may have run a Default section when it
// was left early.
func Thread() {
	if on.Load() {
		_ = set(0, Short)
	}
}

package timeslice

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Short is the slice asked for: the least Linux accepts.
const Short = 100_000 // ns

// set asks for a slice of ns for thread tid (0: the calling thread). The
// thread keeps its policy and nice value. Threads and processes it starts
// inherit the slice.
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
// thread the Go runtime starts later, and every program it starts (the
// attach client starts none). It reports the first thread it could not
// set.
func Prompt() error {
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

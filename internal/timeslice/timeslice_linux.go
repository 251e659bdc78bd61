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
// inherit the slice. It reports whether it asked (the thread had another
// slice).
func set(tid int, ns uint64) (bool, error) {
	a, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return false, err
	}
	if a.Policy != unix.SCHED_NORMAL && a.Policy != unix.SCHED_BATCH {
		return false, nil // real-time or idle threads: not ours to change
	}
	if a.Runtime == ns {
		return false, nil
	}
	a.Size, a.Runtime = unix.SizeofSchedAttr, ns
	return true, unix.SchedSetAttr(tid, a, 0)
}

// promptPasses bounds Prompt's passes over the threads (on a kernel that
// keeps no slice per thread every pass finds them all to change).
const promptPasses = 4

// Prompt gives every thread of this process the short slice, and so every
// thread the Go runtime starts later, and every program it starts (the
// attach client starts none). A thread started during a pass by a thread
// the pass had not reached yet has the default slice: Prompt passes over
// the threads again until one pass changes none. It reports the first
// thread it could not set.
func Prompt() error {
	for range promptPasses {
		changed, err := promptPass()
		if err != nil || !changed {
			return err
		}
	}
	return nil
}

// promptPass sets the short slice on every thread listed now, and reports
// whether any had another.
func promptPass() (bool, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return false, err
	}
	changed := false
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		did, err := set(tid, Short)
		if err != nil && err != unix.ESRCH {
			return changed, err
		}
		changed = changed || did
	}
	return changed, nil
}

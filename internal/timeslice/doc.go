// Package timeslice asks the kernel to run a process's threads in short
// time slices, so that a thread woken by a keystroke or a frame runs at
// once even while floods keep every CPU busy. The attach client, which
// only relays keys and frames, asks for them; the session server does not
// (its threads parse the floods, and in short slices they were preempted
// so often that the session took a third more CPU to drain the same
// flood).
//
// Since Linux 6.12 the scheduler (EEVDF) takes a time slice per thread
// (sched_setattr's sched_runtime) and lets a waking thread whose slice is
// shorter than the running one's preempt it. A thread's share of the CPU
// stays what it was; only when it runs changes. Elsewhere, and on older
// kernels, Prompt does nothing.
package timeslice

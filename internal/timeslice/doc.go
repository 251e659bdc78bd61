// Package timeslice asks the kernel to run agentgrid's threads in short
// time slices, so that a thread woken by a keystroke or a frame runs at
// once even while floods keep every CPU busy, and gives the threads that
// parse a flood or start a program the default slice back while they do.
//
// Since Linux 6.12 the scheduler (EEVDF) takes a time slice per thread
// (sched_setattr's sched_runtime) and lets a waking thread whose slice is
// shorter than the running one's preempt it. A thread's share of the CPU
// stays what it was; only when it runs changes. Elsewhere, and on older
// kernels, every call here does nothing.
package timeslice

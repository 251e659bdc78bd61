package control

import (
	"bufio"
	"errors"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentgrid/agentgrid/internal/timeslice"
)

// TestWakeOnInputWaitsInAShortSlice: in a session that asked for short
// time slices, the thread waiting in poll(2) for a terminal's keys has
// one, even a thread started after the request (which gets the default).
func TestWakeOnInputWaitsInAShortSlice(t *testing.T) {
	if err := timeslice.Prompt(); err != nil {
		t.Skipf("no time slices here: %v", err)
	}
	srv, cli := unixPair(t)
	s := NewAttachStream(srv, bufio.NewReader(srv))
	s.WakeOnInput(t.Context())
	done := make(chan error, 1)
	go func() {
		// The reader's thread starts with the default slice, as one the
		// Go runtime starts later does.
		runtime.LockOSThread()
		if a, err := unix.SchedGetAttr(0, 0); err == nil {
			a.Size, a.Runtime = unix.SizeofSchedAttr, 0
			_ = unix.SchedSetAttr(0, a, 0)
			if b, _ := unix.SchedGetAttr(0, 0); b != nil && b.Runtime == timeslice.Short {
				done <- errNoSlices
				return
			}
		}
		_, _, err := s.ReadFrame(nil)
		done <- err
	}()
	tid := waitInPollTid(t)
	a, err := unix.SchedGetAttr(tid, 0)
	// The read is ended before any verdict: a failed test must not leave
	// a thread in poll.
	if _, werr := cli.Write(frameBytes(FrameInput, "k")); werr != nil {
		t.Fatal(werr)
	}
	select {
	case rerr := <-done:
		if rerr == errNoSlices {
			t.Skip("this kernel keeps no time slice per thread")
		}
		if rerr != nil {
			t.Fatal(rerr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the frame was not read within 10 s")
	}
	if err != nil {
		t.Fatal(err)
	}
	if a.Runtime != timeslice.Short {
		t.Fatalf("the thread waiting for keys has a slice of %d ns, want %d", a.Runtime, timeslice.Short)
	}
}

// errNoSlices says the kernel ignored a slice.
var errNoSlices = errors.New("no slices")

//go:build linux || darwin

package control

import (
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentgrid/agentgrid/internal/rawio"
)

const pollSupported = true

// pollReader reads a socket after waiting for it in poll(2) while busy
// says so, so that the waiting thread is the one the kernel wakes, and in
// Go's poller otherwise (see WakeOnInput).
type pollReader struct {
	rc   syscall.RawConn
	busy func() bool
	conn interface{ SetReadDeadline(time.Time) error }
}

func (r *pollReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, err := r.read(b)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// Rewait: the wait in Go's poller was cut short so that it
			// starts again, now perhaps in poll(2).
			_ = r.conn.SetReadDeadline(time.Time{})
			continue
		}
		return n, err
	}
}

func (r *pollReader) read(b []byte) (int, error) {
	var n int
	var errno syscall.Errno
	err := r.rc.Read(func(fd uintptr) bool {
		if r.busy() {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			for {
				if _, perr := unix.Poll(fds, -1); perr != unix.EINTR {
					break
				}
			}
		}
		// The socket is non-blocking, so the read returns at once: a raw
		// system call, which does not wake Go's monitor.
		n, errno = rawio.Read(fd, b)
		// Nothing to read (idle, or a spurious wake-up): Go's poller
		// waits for the next input.
		return errno != syscall.EAGAIN
	})
	return rawio.ReadResult(n, errno, err)
}

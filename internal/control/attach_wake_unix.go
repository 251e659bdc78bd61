//go:build linux || darwin

package control

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

const pollSupported = true

// pollReader reads a socket after waiting for it in poll(2), so that the
// waiting thread is the one the kernel wakes (see WakeOnInput).
type pollReader struct {
	rc syscall.RawConn
}

func (r *pollReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var rerr error
	err := r.rc.Read(func(fd uintptr) bool {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			if _, perr := unix.Poll(fds, -1); perr != unix.EINTR {
				break
			}
		}
		n, rerr = unix.Read(int(fd), b)
		// Readable yet nothing to read (a spurious wake-up): Go's poller
		// waits for the next input, as a plain read would.
		return rerr != unix.EAGAIN
	})
	switch {
	case err != nil:
		return 0, err
	case rerr != nil:
		return 0, rerr
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

//go:build linux || darwin

package control

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// sockopt reads a socket option of c with get; what names it in the error
// ("credentials", "process id").
func sockopt[T any](c *net.UnixConn, what string, get func(fd int) (T, error)) (T, error) {
	var v T
	raw, err := c.SyscallConn()
	if err != nil {
		return v, fmt.Errorf("read the peer's %s: %w", what, err)
	}
	var getErr error
	if err := raw.Control(func(fd uintptr) { v, getErr = get(int(fd)) }); err != nil {
		return v, fmt.Errorf("read the peer's %s: %w", what, err)
	}
	if getErr != nil {
		return v, fmt.Errorf("read the peer's %s: %w", what, getErr)
	}
	return v, nil
}

// sessionOf is pid's session id, or 0 when it cannot be read.
func sessionOf(pid int) int {
	sid, err := unix.Getsid(pid)
	if err != nil {
		return 0
	}
	return sid
}

// waitHangUp blocks until the client of c hangs up, even with unread
// requests waiting in the socket (true), or until stop is closed and c's
// read deadline expires (false). It reads nothing.
func waitHangUp(c *net.UnixConn, stop <-chan struct{}) bool {
	raw, err := c.SyscallConn()
	if err != nil {
		return false
	}
	hup := false
	_ = raw.Read(func(fd uintptr) bool {
		select {
		case <-stop:
			return true
		default:
		}
		// Called each time the socket signals readiness: new data or a
		// hang-up.
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN | pollWriteShut}}
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 &&
			fds[0].Revents&(pollWriteShut|unix.POLLHUP|unix.POLLERR) != 0 {
			hup = true
			return true
		}
		return false
	})
	return hup
}

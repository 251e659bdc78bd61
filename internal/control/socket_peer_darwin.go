//go:build darwin

package control

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peerUID is the user id of the process on the other end of c (LOCAL_PEERCRED).
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, fmt.Errorf("read the peer's credentials: %w", err)
	}
	var cred *unix.Xucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return -1, fmt.Errorf("read the peer's credentials: %w", err)
	}
	if credErr != nil {
		return -1, fmt.Errorf("read the peer's credentials: %w", credErr)
	}
	return int(cred.Uid), nil
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
		// poll reports POLLHUP once the peer can send no more (EV_EOF).
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 &&
			fds[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0 {
			hup = true
			return true
		}
		return false
	})
	return hup
}

//go:build linux

package control

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peerUID is the user id of the process on the other end of c (SO_PEERCRED).
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, fmt.Errorf("read the peer's credentials: %w", err)
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
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
		// Called each time the socket signals readiness: new data or a
		// hang-up. POLLRDHUP also reports a peer that only shut down its
		// writing side, which ends its blocking requests just as reading
		// EOF does.
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN | unix.POLLRDHUP}}
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 &&
			fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR) != 0 {
			hup = true
			return true
		}
		return false
	})
	return hup
}

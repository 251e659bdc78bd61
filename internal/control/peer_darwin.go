//go:build darwin

package control

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peerPID is the process id of the process that connected c (LOCAL_PEERPID).
func peerPID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("read the peer's process id: %w", err)
	}
	var pid int
	var pidErr error
	if err := raw.Control(func(fd uintptr) {
		pid, pidErr = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	}); err != nil {
		return 0, fmt.Errorf("read the peer's process id: %w", err)
	}
	if pidErr != nil {
		return 0, fmt.Errorf("read the peer's process id: %w", pidErr)
	}
	return pid, nil
}

// descendsFrom walks pid's parents (sysctl kern.proc.pid) up to ancestor. A
// process that cannot be read (it exited while we looked) counts as inside:
// the answer only matters for requests without a token, which are then
// refused.
func descendsFrom(pid, ancestor int) bool {
	for range 4096 {
		if pid == ancestor {
			return true
		}
		if pid <= 1 {
			return false
		}
		kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
		if err != nil || kp.Proc.P_pid != int32(pid) {
			return true
		}
		pid = int(kp.Eproc.Ppid)
	}
	return true
}

// sessionOf is pid's session id, or 0 when it cannot be read.
func sessionOf(pid int) int {
	sid, err := unix.Getsid(pid)
	if err != nil {
		return 0
	}
	return sid
}

//go:build darwin

package control

import (
	"net"

	"golang.org/x/sys/unix"
)

// pollWriteShut is nothing more here: poll reports POLLHUP once the peer
// can send no more (EV_EOF).
const pollWriteShut = 0

// peerPID is the process id of the process that connected c (LOCAL_PEERPID).
func peerPID(c *net.UnixConn) (int, error) {
	return sockopt(c, "process id", func(fd int) (int, error) {
		return unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	})
}

// peerUID is the user id of the process on the other end of c (LOCAL_PEERCRED).
func peerUID(c *net.UnixConn) (int, error) {
	cred, err := sockopt(c, "credentials", func(fd int) (*unix.Xucred, error) {
		return unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	})
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}

// childOf reports whether pid is alive (or not yet reaped) and parent's
// child; a process that cannot be read is not.
func childOf(pid, parent int) bool {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	return err == nil && kp.Proc.P_pid == int32(pid) && int(kp.Eproc.Ppid) == parent
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

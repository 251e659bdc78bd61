//go:build linux

package control

import (
	"net"
	"os"

	"golang.org/x/sys/unix"

	"github.com/agentgrid/agentgrid/internal/procstat"
)

// pollWriteShut is what poll reports, besides POLLHUP, for a peer that
// only shut down its writing side (POLLRDHUP), which ends its blocking
// requests just as reading EOF does.
const pollWriteShut = unix.POLLRDHUP

// peerCred is the credentials of the process that connected c (SO_PEERCRED).
func peerCred(c *net.UnixConn) (*unix.Ucred, error) {
	return sockopt(c, "credentials", func(fd int) (*unix.Ucred, error) {
		return unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	})
}

// peerPID is the process id of the process that connected c.
func peerPID(c *net.UnixConn) (int, error) {
	cred, err := peerCred(c)
	if err != nil {
		return 0, err
	}
	return int(cred.Pid), nil
}

// peerUID is the user id of the process on the other end of c.
func peerUID(c *net.UnixConn) (int, error) {
	cred, err := peerCred(c)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}

// descendsFrom walks pid's parents in /proc up to ancestor. A process that
// cannot be read (it exited while we looked) counts as inside: the answer
// only matters for requests without a token, which are then refused. A
// system without /proc cannot tell, and counts everything as outside.
func descendsFrom(pid, ancestor int) bool {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return false
	}
	for range 4096 {
		if pid == ancestor {
			return true
		}
		if pid <= 1 {
			return false
		}
		ppid, ok := parentPID(pid)
		if !ok {
			return true
		}
		pid = ppid
	}
	return true
}

// childOf reports whether pid is alive (or not yet reaped) and parent's
// child; a process that cannot be read is not.
func childOf(pid, parent int) bool {
	ppid, ok := parentPID(pid)
	return ok && ppid == parent
}

func parentPID(pid int) (int, bool) {
	st, ok := procstat.Read(pid)
	return st.PPID, ok
}

//go:build linux

package control

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// peerPID is the process id of the process that connected c (SO_PEERCRED).
func peerPID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("read the peer's credentials: %w", err)
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, fmt.Errorf("read the peer's credentials: %w", err)
	}
	if credErr != nil {
		return 0, fmt.Errorf("read the peer's credentials: %w", credErr)
	}
	return int(cred.Pid), nil
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

func parentPID(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name is in parentheses and may hold anything; the fields
	// after the last ')' are "state ppid ...".
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// sessionOf is pid's session id, or 0 when it cannot be read.
func sessionOf(pid int) int {
	sid, err := unix.Getsid(pid)
	if err != nil {
		return 0
	}
	return sid
}

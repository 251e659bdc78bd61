//go:build !linux && !darwin

package control

import (
	"errors"
	"net"
	"os"
)

// peerPID cannot ask this system who connected; requests without a token
// then count as coming from outside the session.
func peerPID(*net.UnixConn) (int, error) {
	return 0, errors.New("this system does not report the peer's process id")
}

func descendsFrom(int, int) bool { return false }

func sessionOf(int) int { return 0 }

func childOf(int, int) bool { return false }

// peerUID cannot ask this system for the peer's credentials; the socket's
// 0700 directory and 0600 mode are the protection here.
func peerUID(*net.UnixConn) (int, error) { return os.Getuid(), nil }

// waitHangUp cannot see a hang-up behind unread data on this system; it
// waits for stop. A hang-up is still noticed once the queue has room.
func waitHangUp(_ *net.UnixConn, stop <-chan struct{}) bool {
	<-stop
	return false
}

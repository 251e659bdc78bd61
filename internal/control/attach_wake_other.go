//go:build !linux && !darwin

package control

import (
	"errors"
	"syscall"
	"time"
)

const pollSupported = false

// pollReader is never built here (WakeOnInput does nothing).
type pollReader struct {
	rc   syscall.RawConn
	busy func() bool
	conn interface{ SetReadDeadline(time.Time) error }
}

func (r *pollReader) Read([]byte) (int, error) {
	return 0, errors.New("poll(2) is not supported on this platform")
}

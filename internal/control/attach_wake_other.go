//go:build !linux && !darwin

package control

import (
	"errors"
	"syscall"
)

const pollSupported = false

// pollReader is never built here (WakeOnInput does nothing).
type pollReader struct {
	rc syscall.RawConn
}

func (r *pollReader) Read([]byte) (int, error) {
	return 0, errors.New("poll(2) is not supported on this platform")
}

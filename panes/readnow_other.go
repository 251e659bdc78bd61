//go:build !linux

package panes

import "syscall"

// readNow reads what the non-blocking descriptor fd holds into b.
func readNow(fd uintptr, b []byte) int {
	if n, err := syscall.Read(int(fd), b); err == nil && n > 0 {
		return n
	}
	return 0
}

// Package rawio reads and writes non-blocking descriptors that Go's poller
// waits on, with raw system calls. A read or write through os.File or
// net.Conn tells Go's scheduler it may block, and that wakes Go's
// background monitor when it sleeps; the monitor then wakes every 20 µs to
// 10 ms for as long as any processor stays busy. On a non-blocking
// descriptor the call returns at once, so there is nothing to tell: a
// process that wakes only for a key or a frame then wakes nothing else.
package rawio

import (
	"io"
	"syscall"
	"unsafe"
)

// Read reads fd once: what is there, or an error (EAGAIN: nothing yet).
// An interrupted call is made again.
func Read(fd uintptr, b []byte) (int, syscall.Errno) { return call(syscall.SYS_READ, fd, b) }

// Write writes to fd once: what it takes, or an error (EAGAIN: no room
// yet). An interrupted call is made again.
func Write(fd uintptr, b []byte) (int, syscall.Errno) { return call(syscall.SYS_WRITE, fd, b) }

// call makes the read or write system call trap on fd and b, again while
// it is interrupted.
func call(trap, fd uintptr, b []byte) (int, syscall.Errno) {
	for {
		n, _, e := syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
		if e == 0 {
			return int(n), 0
		}
		if e != syscall.EINTR {
			return 0, e
		}
	}
}

// Reader reads RC: a read that finds nothing waits in Go's poller.
type Reader struct{ RC syscall.RawConn }

func (r Reader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := r.RC.Read(func(fd uintptr) bool {
		n, errno = Read(fd, b)
		return errno != syscall.EAGAIN
	})
	return ReadResult(n, errno, err)
}

// ReadResult is what a read through a RawConn returns as an io.Reader
// would: err (the RawConn's: closed, past its deadline), else the read's
// errno, else io.EOF for nothing read, else n.
func ReadResult(n int, errno syscall.Errno, err error) (int, error) {
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, errno
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Writer writes to RC: what the descriptor cannot take at once waits in
// Go's poller.
type Writer struct{ RC syscall.RawConn }

func (w Writer) Write(b []byte) (int, error) {
	done := 0
	for done < len(b) {
		var n int
		var errno syscall.Errno
		err := w.RC.Write(func(fd uintptr) bool {
			n, errno = Write(fd, b[done:])
			return errno != syscall.EAGAIN
		})
		if err != nil {
			return done, err
		}
		if errno != 0 {
			return done, errno
		}
		done += n
	}
	return done, nil
}

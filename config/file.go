package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxFileSize is the largest config file agentgrid reads. Real configs are
// a few kilobytes; the cap keeps a planted or mistaken file (a log, a
// device) from costing time and memory.
const MaxFileSize = 256 << 10

// UnsafeFileError reports a config file that agentgrid refuses to read
// because someone other than the user could have written it.
type UnsafeFileError struct {
	Path string
	// Why says what is wrong: "is writable by group or others".
	Why string
	// Fix is the command that makes the file usable, when there is one.
	Fix string
}

func (e *UnsafeFileError) Error() string {
	msg := fmt.Sprintf("config file %s %s, so agentgrid does not read it", e.Path, e.Why)
	if e.Fix != "" {
		msg += " (fix: " + e.Fix + ")"
	}
	return msg
}

// readConfigFile reads a config file that only the user can have written:
// a regular file, owned by the user, not writable by group or others. It
// reads at most MaxFileSize+1 bytes (the loader reports a longer file), and
// checks the file it opened, so the bytes returned are the bytes checked.
// A FIFO or device is refused without blocking on it.
func readConfigFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkOwnerMode(path, fi); err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(f, MaxFileSize+1))
}

// checkOwnerMode refuses a file that is not a regular file, not owned by
// the user, or writable by group or others.
func checkOwnerMode(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return &UnsafeFileError{Path: path, Why: "is not a regular file"}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return &UnsafeFileError{Path: path, Why: fmt.Sprintf("belongs to another user (uid %d)", st.Uid)}
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return &UnsafeFileError{Path: path, Why: "is writable by group or others", Fix: "chmod go-w " + path}
	}
	return nil
}

// isUnsafe reports whether err is an UnsafeFileError.
func isUnsafe(err error) (*UnsafeFileError, bool) {
	var ue *UnsafeFileError
	ok := errors.As(err, &ue)
	return ue, ok
}

package control

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// maxSocketPath is the longest socket path every supported system accepts
// (sun_path is 108 bytes on Linux, 104 on macOS, including the NUL).
const maxSocketPath = 103

// SocketPath is where the control socket of session lives:
// $XDG_RUNTIME_DIR/agentgrid/<session>.sock, or /tmp/agentgrid-<uid>/<session>.sock
// when XDG_RUNTIME_DIR is unset. Characters other than letters, digits, '.',
// '_' and '-' in the session name become '_' so the name stays one file.
func SocketPath(session string) string {
	return filepath.Join(SocketDir(), sanitizeSession(session)+".sock")
}

// SocketDir is the directory that holds this user's session sockets.
func SocketDir() string {
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "agentgrid")
	}
	return filepath.Join("/tmp", fmt.Sprintf("agentgrid-%d", os.Getuid()))
}

func sanitizeSession(s string) string {
	if s == "" {
		return "default"
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := b.String()
	if strings.Trim(out, ".") == "" {
		out = strings.ReplaceAll(out, ".", "_")
	}
	return out
}

// listenSocket prepares the private directory, replaces a stale socket and
// listens with mode 0600.
func listenSocket(path string) (*net.UnixListener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("the control socket path %s is %d bytes, longer than the %d the system allows; set XDG_RUNTIME_DIR to a shorter directory", path, len(path), maxSocketPath)
	}
	if err := ensurePrivateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if err := removeStaleSocket(path); err != nil {
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on the control socket %s: %w", path, err)
	}
	// Close removes the file itself, and only if it is still ours.
	ln.SetUnlinkOnClose(false)
	// The directory is already 0700, so the socket is never reachable by
	// others between Listen and this Chmod.
	if err := os.Chmod(path, 0o600); err != nil {
		_ = ln.Close()
		_ = os.Remove(path)
		return nil, fmt.Errorf("restrict the control socket %s to its owner: %w", path, err)
	}
	return ln, nil
}

// ensurePrivateDir creates dir with mode 0700, or checks that an existing one
// is a real directory owned by this user and tightens its mode. A directory
// under /tmp owned by someone else could let them replace our socket.
func ensurePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the socket directory %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check the socket directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("the socket directory %s is not a directory (a symlink?); remove it and start again", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("the socket directory %s belongs to uid %d, not to you (uid %d); remove it or set XDG_RUNTIME_DIR", dir, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("make the socket directory %s private: %w", dir, err)
		}
	}
	return nil
}

// removeStaleSocket removes a socket file left by a session that is gone. A
// socket that still answers belongs to a live session and is left alone.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check the control socket %s: %w", path, err)
	}
	if fi.Mode().Type() != os.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket; remove it or choose another session name", path)
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		_ = c.Close()
		return fmt.Errorf("another agentgrid session is running on %s; choose another session name with --session", path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("check whether the session on %s is alive: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the stale control socket %s: %w", path, err)
	}
	return nil
}

// checkPeerUID decides whether a connecting process may use the socket: the
// session's own user, or root (who could reach the session anyway).
func checkPeerUID(peer, owner int) error {
	if peer == owner || peer == 0 {
		return nil
	}
	return fmt.Errorf("uid %d may not use the control socket of uid %d", peer, owner)
}

// RemoveStaleSocket removes the socket at path when no session listens on
// it any more (its server crashed) and reports whether it did. A socket in
// a directory another user could write to is left alone.
func RemoveStaleSocket(path string) (bool, error) {
	if err := checkSocketDir(path); err != nil {
		return false, err
	}
	if _, err := os.Lstat(path); err != nil {
		return false, nil
	}
	if err := removeStaleSocket(path); err != nil {
		return false, err
	}
	_, err := os.Lstat(path)
	return errors.Is(err, os.ErrNotExist), nil
}

// Package statedir manages the sessions' state folders under agentgrid's
// state directory (<state dir>/<session>: agent logs, generated files):
// a session claims its folder with a lock held while it runs, and removes
// the folders of sessions that ended long ago.
package statedir

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

// stateLockName is the file in a session's state folder that the running
// session holds an exclusive flock(2) on, so that other sessions see it
// is in use whatever its socket directory.
const stateLockName = ".lock"

// Dir is a session's state folder (agent logs, generated files),
// held by this process until Release.
type Dir struct {
	Path string
	lock *os.File
}

// Claim creates base/session (mode 0700) and locks it for this
// process, so no other session uses or removes it while this one runs.
// The name is checked first; a symlink in its place is refused.
func Claim(base, session string) (*Dir, error) {
	if err := control.CheckSessionName(session); err != nil {
		return nil, err
	}
	// A session starting elsewhere may be removing this very folder as an
	// old one (it holds the lock while it does): if the folder went away
	// under the lock just taken, create it again once.
	d, err := claim(base, session)
	if err == nil && !d.stillThere() {
		d.Release()
		d, err = claim(base, session)
	}
	return d, err
}

// stillThere reports whether the lock file held is still the one in the folder.
func (d *Dir) stillThere() bool {
	held, err1 := d.lock.Stat()
	now, err2 := os.Lstat(filepath.Join(d.Path, stateLockName))
	return err1 == nil && err2 == nil && os.SameFile(held, now)
}

func claim(base, session string) (*Dir, error) {
	dir := filepath.Join(base, session)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the state directory %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("check the state directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("the state directory %s is not a directory (a symlink?); remove it and start again", dir)
	}
	path := filepath.Join(dir, stateLockName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the lock file %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("another agentgrid session named %s is running (it holds %s); choose another name with --session", session, path)
		}
		return nil, fmt.Errorf("lock the state directory %s: %w", dir, err)
	}
	return &Dir{Path: dir, lock: f}, nil
}

// Release lets other sessions use or remove the folder again.
func (d *Dir) Release() {
	if d != nil && d.lock != nil {
		_ = d.lock.Close()
		d.lock = nil
	}
}

// Clean removes the state folders under base of sessions that
// ended more than keep ago: a folder is removed only when its name is a
// session name other than self, it is a real directory (symlinks are never
// followed, neither in base nor inside the folder), no running session
// holds it (its lock is free and its control socket does not answer), and
// nothing in it changed for keep. keep <= 0 removes nothing. It returns the
// folders removed, and the first error of those it could not remove.
func Clean(base, self string, keep time.Duration, now time.Time) (removed []string, err error) {
	if keep <= 0 {
		return nil, nil
	}
	entries, rerr := os.ReadDir(base)
	if rerr != nil {
		if errors.Is(rerr, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("list the state directory %s: %w", base, rerr)
	}
	cutoff := now.Add(-keep)
	for _, ent := range entries {
		name := ent.Name()
		if name == self || control.CheckSessionName(name) != nil || ent.Type()&fs.ModeType != fs.ModeDir {
			continue
		}
		dir := filepath.Join(base, name)
		if !newestBefore(dir, cutoff) || socketAnswers(control.SocketPath(name)) {
			continue
		}
		unlock, held := lockIfFree(dir)
		if held {
			continue
		}
		rmErr := os.RemoveAll(dir)
		unlock()
		if rmErr != nil {
			if err == nil {
				err = fmt.Errorf("remove the old state directory %s: %w", dir, rmErr)
			}
			continue
		}
		removed = append(removed, dir)
	}
	return removed, err
}

// newestBefore reports whether dir and everything in it (symlinks
// themselves, not what they point to) last changed before cutoff.
func newestBefore(dir string, cutoff time.Time) bool {
	old := true
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			old = false // unreadable: keep it
			return filepath.SkipAll
		}
		fi, err := d.Info()
		if err != nil || !fi.ModTime().Before(cutoff) {
			old = false
			return filepath.SkipAll
		}
		return nil
	})
	return old
}

// socketAnswers reports whether a session listens on path. Anything but
// "no such socket" or "nobody listening" counts as an answer, so a
// session is never taken for dead by mistake.
func socketAnswers(path string) bool {
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		_ = c.Close()
		return true
	}
	return !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, fs.ErrNotExist)
}

// lockIfFree takes dir's session lock when no session holds it; held is
// true when a running session does. A folder without a lock file (a
// session of an older agentgrid) counts as free.
func lockIfFree(dir string) (unlock func(), held bool) {
	f, err := os.OpenFile(filepath.Join(dir, stateLockName), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return func() {}, false
	}
	if err != nil {
		return nil, true
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return nil, true
	}
	return func() { _ = f.Close() }, false
}

// Package panes runs one process in a pseudo-terminal and feeds its output
// to a vterm.Terminal: a Pane is what the UI draws and the engine manages.
// Every OS effect (start, PTY I/O, signals) goes through the small Proc and
// Spawner interfaces so that tests can substitute a fake.
package panes

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/creack/pty"

	"github.com/agentgrid/agentgrid/internal/envlist"
	"github.com/agentgrid/agentgrid/internal/rawio"
)

// StartSpec describes the process to start in a PTY.
type StartSpec struct {
	// Argv is the command and its arguments; Argv[0] is looked up in the
	// PATH of Env (not of agentgrid's own environment).
	Argv []string
	// Dir is the working directory; empty means agentgrid's own.
	Dir string
	// Env is the complete environment of the child; nil inherits agentgrid's.
	Env []string
	// Cols and Rows are the initial PTY size; values below 1 mean 80x24.
	Cols, Rows int
}

// Proc is one OS process group running in a PTY.
type Proc interface {
	io.Reader // PTY master: the child's output
	io.Writer // PTY master: the child's input
	// Resize changes the PTY's window size (the child gets SIGWINCH).
	Resize(cols, rows int) error
	// Signal sends sig to the whole process group.
	Signal(sig syscall.Signal) error
	// Wait blocks until the process exits and returns its exit code
	// (128+n when killed by signal n). It may be called more than once.
	Wait() (exitCode int, err error)
	// Pid is the process id, which is also its process group id.
	Pid() int
	// Close closes the PTY master.
	Close() error
}

// Spawner starts processes; PTYSpawner is the real one.
type Spawner interface {
	Start(spec StartSpec) (Proc, error)
}

// PTYSpawner starts real processes in real PTYs, each in its own session
// and process group with the PTY as its controlling terminal.
type PTYSpawner struct{}

// Start checks the command and the working directory first so that the
// common mistakes give a clear one-sentence error, then starts the process.
func (PTYSpawner) Start(spec StartSpec) (Proc, error) {
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return nil, errors.New("no command given")
	}
	resetIgnoredSignals()
	if spec.Dir != "" {
		st, err := os.Stat(spec.Dir)
		if err != nil {
			return nil, fmt.Errorf("cwd does not exist: %s", spec.Dir)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("cwd is not a directory: %s", spec.Dir)
		}
		// A directory the user may not enter fails the child's chdir, which
		// exec reports as the program's "permission denied": say which.
		if err := syscall.Access(spec.Dir, accessX); err != nil {
			return nil, fmt.Errorf("cwd %s cannot be entered (%v); fix its permissions or pick another directory", spec.Dir, err)
		}
	}
	pathEnv := envlist.Value(spec.Env, "PATH")
	if spec.Env == nil {
		pathEnv = os.Getenv("PATH") // a nil Env inherits agentgrid's own
	}
	path, err := lookPath(spec.Argv[0], pathEnv, spec.Dir)
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: path, Args: spec.Argv, Dir: spec.Dir, Env: spec.Env}
	cols, rows := spec.Cols, spec.Rows
	if cols < 1 || rows < 1 {
		cols, rows = 80, 24
	}
	ws := &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}
	master, err := pty.StartWithAttrs(cmd, ws, &syscall.SysProcAttr{Setsid: true, Setctty: true})
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.Argv[0], err)
	}
	f, err := pollable(master)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("start %s: %w", spec.Argv[0], err)
	}
	p := &ptyProc{f: f, cmd: cmd, done: make(chan struct{})}
	go p.wait()
	return p, nil
}

// accessX asks access(2) whether a directory may be entered (X_OK).
const accessX = 1

// pollable re-opens the PTY master in non-blocking mode so that reads go
// through Go's poller and Close interrupts a blocked Read; the pty package
// leaves the descriptor in blocking mode.
func pollable(master *os.File) (*os.File, error) {
	fd, err := syscall.Dup(int(master.Fd()))
	_ = master.Close()
	if err != nil {
		return nil, fmt.Errorf("duplicate the PTY descriptor: %w", err)
	}
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(fd)
		return nil, fmt.Errorf("make the PTY non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), nil
}

// lookPath finds file in the directories of pathEnv, the way a shell would,
// without consulting agentgrid's own PATH.
func lookPath(file, pathEnv, dir string) (string, error) {
	if strings.Contains(file, "/") {
		p := file
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		if isExecutable(p) {
			return file, nil
		}
		return "", fmt.Errorf("command not found: %s", file)
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, file)
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		if isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("command not found: %s", file)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// ptyProc is a Proc backed by a real process and PTY.
type ptyProc struct {
	f    *os.File
	rc   syscall.RawConn // f's, for ReadReady
	cmd  *exec.Cmd
	done chan struct{}
	code int
	err  error
	once sync.Once
}

func (p *ptyProc) wait() {
	err := p.cmd.Wait()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = nil
			code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				code = 128 + int(ws.Signal())
			}
		} else {
			code = -1
		}
	}
	p.code, p.err = code, err
	close(p.done)
}

func (p *ptyProc) Read(b []byte) (int, error)  { return p.f.Read(b) }
func (p *ptyProc) Write(b []byte) (int, error) { return p.f.Write(b) }

// readyReader is a Proc that can read without waiting.
type readyReader interface {
	// ReadReady reads what the child has already written into b, without
	// waiting: 0 when there is nothing (or an error, which the next Read
	// reports).
	ReadReady(b []byte) int
}

func (p *ptyProc) ReadReady(b []byte) int {
	if p.rc == nil { // only the pane's reader calls this
		rc, err := p.f.SyscallConn()
		if err != nil {
			return 0
		}
		p.rc = rc
	}
	n := 0
	_ = p.rc.Read(func(fd uintptr) bool {
		n = readNow(fd, b)
		return true // one attempt: never wait here
	})
	return n
}

// readNow reads what the non-blocking descriptor fd holds into b, 0 when
// nothing or an error. The read is a raw system call: under a flood a
// pane's reader makes one per few KiB, and as a plain system call each one
// that copied for more than 20 µs let Go's monitor hand the processor to
// another thread, which the read then had to wait to get back. (Under the
// 8-pane flood of make bench the floods drained about 7 % sooner.)
func readNow(fd uintptr, b []byte) int {
	n, errno := rawio.Read(fd, b)
	if errno != 0 {
		return 0
	}
	return n
}

func (p *ptyProc) Pid() int { return p.cmd.Process.Pid }

func (p *ptyProc) Wait() (int, error) {
	<-p.done
	return p.code, p.err
}

func (p *ptyProc) Signal(sig syscall.Signal) error {
	err := syscall.Kill(-p.cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil // the group is already gone
	}
	return err
}

func (p *ptyProc) Close() error {
	var err error
	p.once.Do(func() { err = p.f.Close() })
	return err
}

// Resize sets the window size through the poller-owned descriptor; using
// File.Fd would switch the descriptor back to blocking mode.
func (p *ptyProc) Resize(cols, rows int) error {
	if cols < 1 || rows < 1 {
		return nil
	}
	ws := struct{ Row, Col, X, Y uint16 }{Row: uint16(rows), Col: uint16(cols)}
	sc, err := p.f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	if cerr := sc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, uintptr(syscall.TIOCSWINSZ), uintptr(unsafe.Pointer(&ws)))
	}); cerr != nil {
		return cerr
	}
	if errno != 0 {
		return fmt.Errorf("resize the PTY: %w", errno)
	}
	return nil
}

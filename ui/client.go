package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/rawio"
)

// ErrConnectionLost is what AttachTerminal returns when the session's
// connection dropped without an exit message (the server was killed).
var ErrConnectionLost = errors.New("lost the connection to the session")

// terminalReset undoes every mode a session's program may have turned on
// in the client's terminal: what the client writes itself when the
// connection drops before the session sent its own teardown.
var terminalReset = strings.Join([]string{
	"\x1b[m",
	"\x1b[?1002l\x1b[?1003l\x1b[?1006l", // mouse
	ansi.ResetModeBracketedPaste,
	ansi.ResetModeFocusEvent,
	ansi.ResetModifyOtherKeys,
	ansi.PopKittyKeyboard(1),
	"\x1b[?2026l", // a synchronized update cut off midway
	"\x1b[?2031l", // colour scheme reports (theme = "auto")
	"\x1b[0 q",    // the cursor's shape
	"\x1b[?25h",   // the cursor
	ansi.ResetModeAltScreenSaveCursor,
}, "")

// TerminalEnv is the part of the environment a client sends when it
// attaches: what names its terminal's capabilities.
func TerminalEnv() []string {
	var env []string
	for _, k := range control.AttachEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// AttachTerminal runs this process's terminal as a client of the session
// behind s: raw mode, the keys to the session, the session's frames to the
// screen, resizes as they happen. It returns the session's exit reason
// (ExitDetached, ExitQuit, ExitEnded) once it sent one, or
// ErrConnectionLost when the connection dropped; the terminal is restored
// either way. SIGHUP, SIGTERM and SIGINT end the client only (a detach).
func AttachTerminal(ctx context.Context, s *control.AttachStream, in, out *os.File) (string, error) {
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	if term.IsTerminal(in.Fd()) {
		st, err := term.MakeRaw(in.Fd())
		if err != nil {
			return "", fmt.Errorf("put the terminal in raw mode: %w", err)
		}
		defer func() { _ = term.Restore(in.Fd(), st) }()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGWINCH, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	hangup := make(chan struct{})
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case sig := <-sigs:
				if sig == syscall.SIGWINCH {
					if w, h, err := term.GetSize(out.Fd()); err == nil {
						_ = s.Resize(w, h)
					}
					continue
				}
				// The terminal went away or the client was told to stop:
				// hanging up is a detach; the session goes on.
				close(hangup)
				_ = s.Close()
				return
			}
		}
	}()
	// The keys are read through a reader that can be interrupted: once the
	// session is over nothing here may read the terminal, or a line the
	// user types right after the exit message (the shell's by then) would
	// go to a dead connection. Deferred after the raw mode's restore, so it
	// runs first.
	// Frames are read in Go's poller with raw reads (never busy: this
	// process parses no flood), and written the same way to a description
	// of the terminal of its own: see rawio.
	s.WakeOnInput(ctx, func() bool { return false })
	screen := io.Writer(out)
	if f := reopenTerminal(out, os.O_WRONLY); f != nil {
		defer f.Close()
		if rc, err := f.SyscallConn(); err == nil {
			screen = rawio.Writer{RC: rc}
		}
	}
	cr, err := openKeys(in)
	if err != nil {
		return "", fmt.Errorf("read the terminal: %w", err)
	}
	readerDone := make(chan struct{})
	defer func() {
		if cr.Cancel() {
			select {
			case <-readerDone:
			case <-time.After(time.Second):
				// The read did not return although the cancel said it
				// would; giving the terminal back matters more.
			}
		}
		_ = cr.Close()
	}()
	go func() {
		defer close(readerDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := cr.Read(buf)
			if n > 0 {
				if s.WriteFrame(control.FrameInput, buf[:n]) != nil {
					return
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					_ = s.WriteFrame(control.FrameDetach, nil)
				}
				return
			}
		}
	}()
	var buf []byte
	for {
		typ, payload, err := s.ReadFrame(buf)
		if err != nil {
			select {
			case <-hangup:
				_, _ = io.WriteString(out, terminalReset)
				return ExitDetached, nil
			default:
			}
			_, _ = io.WriteString(out, terminalReset)
			return "", ErrConnectionLost
		}
		buf = payload[:0]
		switch typ {
		case control.FrameOutput:
			if _, err := screen.Write(payload); err != nil {
				_ = s.Close()
				return ExitDetached, nil
			}
		case control.FrameExit:
			_ = s.Close()
			return string(payload), nil
		}
	}
}

// keySource is where the client reads the keys: a reader that a cancel
// interrupts.
type keySource interface {
	io.Reader
	Cancel() bool
	Close() error
}

// openKeys reads the keys from a description of the terminal of its own
// (reopenTerminal), with raw reads waited on in Go's poller; where that
// cannot be done it falls back to a cancelable reader that waits in
// epoll_wait, a system call that keeps one of Go's processors until Go's
// monitor takes it back.
func openKeys(in *os.File) (keySource, error) {
	if f := reopenTerminal(in, os.O_RDONLY); f != nil {
		if rc, err := f.SyscallConn(); err == nil {
			return polledKeys{f: f, r: rawio.Reader{RC: rc}}, nil
		}
		_ = f.Close()
	}
	return uv.NewCancelReader(in)
}

// reopenTerminal opens the terminal behind f again, as a file description
// of its own that Go's poller waits on: making it non-blocking leaves the
// shell's description as it was. Nil where f is no terminal or it cannot
// be opened again (no /proc).
func reopenTerminal(f *os.File, flag int) *os.File {
	if !term.IsTerminal(f.Fd()) {
		return nil
	}
	g, err := os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), flag|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil
	}
	if g.SetDeadline(time.Time{}) != nil { // not in Go's poller
		_ = g.Close()
		return nil
	}
	return g
}

// polledKeys reads the terminal through Go's poller; a cancel is a read
// deadline in the past, which ends the waiting read at once.
type polledKeys struct {
	f *os.File
	r rawio.Reader
}

func (k polledKeys) Read(b []byte) (int, error) { return k.r.Read(b) }
func (k polledKeys) Cancel() bool               { return k.f.SetReadDeadline(time.Now()) == nil }
func (k polledKeys) Close() error               { return k.f.Close() }

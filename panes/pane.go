package panes

import (
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentgrid/agentgrid/panes/vterm"
)

const (
	// readBufSize is how much of the child's output one read takes.
	readBufSize = 32 << 10
	// maxPendingInput bounds the input queued for a child that does not read
	// its stdin; past it input is dropped so that the UI never blocks.
	maxPendingInput = 1 << 20
	// resizeDelay coalesces bursts of resizes into one ioctl, like tmux.
	resizeDelay = 30 * time.Millisecond
	// drainTimeout bounds the wait for the reader after the process exited;
	// a process outside the group may still hold the PTY open.
	drainTimeout = 2 * time.Second
	// killWait bounds the wait after SIGKILL.
	killWait = 5 * time.Second
)

// ErrExited is returned by Write once the process has exited.
var ErrExited = errors.New("the process has exited")

// ErrInputFull is returned by Write when the child has not read the input
// already queued for it (1 MiB); the new input is dropped.
var ErrInputFull = errors.New("input dropped: the process is not reading its input (1 MiB queued)")

// Options configures a Pane. Callbacks are called from the pane's reader
// goroutine and must not block for long.
type Options struct {
	// Scrollback is the number of history lines the vterm keeps.
	Scrollback int
	// LogPath, when set, receives every byte the child writes.
	LogPath string
	// LogMax caps the log: at the cap it is renamed to LogPath+".1" and a
	// new one is started. 0 means no cap.
	LogMax int64
	// OnLogError is called once when the log cannot be opened or written
	// (a full disk); output is no longer logged but the pane runs on.
	OnLogError func(error)
	// OnOutput is called after each chunk of output reached the vterm.
	OnOutput func()
	// OnBell is called on BEL.
	OnBell func()
	// OnTitle is called on OSC 0/2.
	OnTitle func(string)
	// OnNotify is called on OSC 9/777/99 notifications.
	OnNotify func(title, body string)
	// OnClipboard is called on OSC 52 clipboard writes (selection, base64
	// data); nil: the terminal ignores them.
	OnClipboard func(selection, data string)
	// OnExit is called once, after the process exited and its output was
	// drained into the vterm and the log.
	OnExit func(code int, err error)
	// Logger receives warnings; nil means slog.Default().
	Logger *slog.Logger
	// Colors are the default colours reported to a program that asks
	// (OSC 10/11); nil means white on black.
	Colors *vterm.DefaultColors
	// Now is the clock LastOutput reads; nil means time.Now. The engine
	// passes its own, so that its idle rule can run on a test's clock.
	Now func() time.Time
}

// Pane is a process in a PTY plus the terminal emulator that its output
// feeds.
type Pane struct {
	proc   Proc
	term   *vterm.Terminal
	opts   Options
	logger *slog.Logger

	log *outputLog // nil: no log asked for (one that cannot be opened reports it and drops output)

	lastOutput atomic.Int64 // unix nanoseconds
	readerDone chan struct{}
	done       chan struct{}
	exitCode   int
	exitErr    error

	inMu      sync.Mutex
	inQueue   [][]byte
	inPending int
	inNotify  chan struct{}
	dropped   bool

	rzMu    sync.Mutex
	rzCols  int
	rzRows  int
	rzTimer *time.Timer
}

// Start starts spec with sp and wires the process to a new vterm of the
// spec's size.
func Start(sp Spawner, spec StartSpec, o Options) (*Pane, error) {
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if spec.Cols < 1 || spec.Rows < 1 {
		spec.Cols, spec.Rows = 80, 24
	}
	p := &Pane{
		opts:       o,
		logger:     logger,
		readerDone: make(chan struct{}),
		done:       make(chan struct{}),
		inNotify:   make(chan struct{}, 1),
	}
	// The log's file is created a moment after the start, in the
	// background: creating a file costs about as much as starting the
	// process (0.6 ms, more on a busy machine), and a new agent's first
	// output should wait for neither (see outputLog).
	if o.LogPath != "" {
		p.log = newOutputLog(o.LogPath, o.LogMax, o.OnLogError, logger)
	}
	proc, err := sp.Start(spec)
	if err != nil {
		if p.log != nil {
			p.log.close()
		}
		return nil, err
	}
	p.proc = proc
	p.term = vterm.New(spec.Cols, spec.Rows,
		vterm.WithScrollback(o.Scrollback),
		vterm.WithReplyWriter(replyWriter{p}),
		vterm.WithCallbacks(vterm.Callbacks{Bell: o.OnBell, Title: o.OnTitle, Notify: o.OnNotify, Clipboard: o.OnClipboard}),
		vterm.WithClipboard(o.OnClipboard != nil),
		vterm.WithDefaultColors(o.Colors),
	)
	p.lastOutput.Store(o.Now().UnixNano())
	go p.readLoop()
	go p.writeLoop()
	go p.waitLoop()
	return p, nil
}

// Term is the pane's terminal emulator.
func (p *Pane) Term() *vterm.Terminal { return p.term }

// Done is closed once the process exited and its output was drained.
func (p *Pane) Done() <-chan struct{} { return p.done }

// ExitCode is the exit code once the process has exited.
func (p *Pane) ExitCode() (int, bool) {
	select {
	case <-p.done:
		return p.exitCode, true
	default:
		return 0, false
	}
}

// LastOutput is when the child last wrote something (start time before).
func (p *Pane) LastOutput() time.Time { return time.Unix(0, p.lastOutput.Load()) }

// Pid is the process (and process group) id.
func (p *Pane) Pid() int { return p.proc.Pid() }

// readLoop feeds the child's output to the terminal and the log (nil:
// none; waitLoop closes it once the reader is done).
func (p *Pane) readLoop() {
	defer close(p.readerDone)
	buf := make([]byte, readBufSize)
	// burst counts the bytes of output read back to back: each read
	// returning within burstGap of the previous chunk's end, or after a
	// full read (see fullRead). A PTY read returns at most what the line
	// discipline buffered (a few KiB), never a full buffer, so a flood
	// shows as a long burst, not as full reads.
	burst, largest := 0, 0
	var idleSince time.Time
	wasFull := false
	for {
		n, err := p.proc.Read(buf)
		if n > 0 {
			if wasFull || time.Since(idleSince) < burstGap.Load() {
				burst += n
			} else {
				burst = n
			}
			largest = max(largest, n)
			wasFull = n >= max(min(largest, ptyFill), fullRead)
			bulk := n == len(buf) || burst >= bulkBurst
			if bulk {
				p.takeFloodSlot()
				// Holding the slot, take what else the child wrote meanwhile
				// and parse it all at once.
				more := p.readMore(buf[n:])
				n += more
				burst += more
			} else {
				p.endEchoHold()
			}
			chunk := buf[:n]
			_, _ = p.term.Write(chunk)
			if bulk {
				<-bulkTokens
			}
			p.lastOutput.Store(p.opts.Now().UnixNano())
			if p.opts.OnOutput != nil {
				p.opts.OnOutput()
			}
			// The log comes after the screen, so that an echo never waits
			// for it.
			if p.log != nil {
				p.log.write(chunk)
				if bulk {
					// A flood's reads are not written one by one: a write to
					// the file per 4 KiB read cost a seventh of the flood's CPU.
					p.log.flushSoon()
				} else {
					p.log.flush()
				}
			}
			idleSince = time.Now()
		}
		if err != nil {
			return
		}
	}
}

func (p *Pane) waitLoop() {
	code, err := p.proc.Wait()
	// The leader is gone: whatever it left in its group (background jobs,
	// grandchildren) would become orphans, so end them now. This also lets
	// the reader see EOF once the last holder of the PTY has gone.
	_ = p.proc.Signal(syscall.SIGKILL)
	t := time.NewTimer(drainTimeout)
	select {
	case <-p.readerDone:
		t.Stop()
	case <-t.C:
		p.logger.Warn("the PTY is still held open after the process exited; closing it", "pid", p.proc.Pid())
	}
	_ = p.proc.Close()
	<-p.readerDone
	if p.log != nil {
		p.log.close()
	}
	p.exitCode, p.exitErr = code, err
	close(p.done)
	if p.opts.OnExit != nil {
		p.opts.OnExit(code, err)
	}
}

// Write queues input for the child. It never blocks on the child: input
// beyond 1 MiB that the child has not read yet is dropped with ErrInputFull.
func (p *Pane) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	select {
	case <-p.done:
		return 0, ErrExited
	default:
	}
	p.inMu.Lock()
	if p.inPending+len(b) > maxPendingInput {
		first := !p.dropped
		p.dropped = true
		p.inMu.Unlock()
		if first {
			p.logger.Warn("dropping input: the process is not reading its input", "pid", p.proc.Pid(), "pending", p.inPending)
		}
		return 0, ErrInputFull
	}
	p.dropped = false
	p.inQueue = append(p.inQueue, append([]byte(nil), b...))
	p.inPending += len(b)
	p.inMu.Unlock()
	select {
	case p.inNotify <- struct{}{}:
	default:
	}
	return len(b), nil
}

func (p *Pane) writeLoop() {
	for {
		select {
		case <-p.done:
			return
		case <-p.inNotify:
		}
		for {
			p.inMu.Lock()
			if len(p.inQueue) == 0 {
				p.inMu.Unlock()
				break
			}
			chunk := p.inQueue[0]
			p.inQueue[0] = nil
			p.inQueue = p.inQueue[1:]
			p.inMu.Unlock()
			_, err := p.proc.Write(chunk)
			p.inMu.Lock()
			p.inPending -= len(chunk)
			p.inMu.Unlock()
			if err != nil {
				// The PTY is closing; the exit path reports what happened.
				return
			}
		}
	}
}

// replyWriter sends the vterm's replies to the child through the input
// queue, so they are ordered with the user's keys and never block.
type replyWriter struct{ p *Pane }

func (w replyWriter) Write(b []byte) (int, error) {
	_, err := w.p.Write(b)
	return len(b), err
}

// Resize resizes the vterm at once and the PTY after a short delay, so that
// a burst of resizes sends the child one SIGWINCH with the final size.
func (p *Pane) Resize(cols, rows int) {
	if cols < 1 || rows < 1 {
		return
	}
	if c, r := p.term.Size(); c == cols && r == rows {
		p.rzMu.Lock()
		pending := p.rzTimer != nil
		p.rzMu.Unlock()
		if !pending {
			return
		}
	}
	p.term.Resize(cols, rows)
	p.rzMu.Lock()
	p.rzCols, p.rzRows = cols, rows
	if p.rzTimer == nil {
		p.rzTimer = time.AfterFunc(resizeDelay, p.applyResize)
	}
	p.rzMu.Unlock()
}

func (p *Pane) applyResize() {
	p.rzMu.Lock()
	cols, rows := p.rzCols, p.rzRows
	p.rzTimer = nil
	p.rzMu.Unlock()
	select {
	case <-p.done:
		return
	default:
	}
	if err := p.proc.Resize(cols, rows); err != nil {
		p.logger.Debug("resizing the PTY failed", "pid", p.proc.Pid(), "err", err)
	}
}

// Kill ends the process group: SIGHUP, then SIGTERM after grace, then
// SIGKILL after another grace. It returns once the process exited and its
// output was drained (or, for a process that survives SIGKILL, after a
// bounded wait).
func (p *Pane) Kill(grace time.Duration) {
	if grace <= 0 {
		grace = 100 * time.Millisecond
	}
	steps := []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGHUP, grace}, {syscall.SIGTERM, grace}, {syscall.SIGKILL, killWait}}
	for _, s := range steps {
		select {
		case <-p.done:
			return
		default:
		}
		_ = p.proc.Signal(s.sig)
		if s.sig != syscall.SIGKILL {
			// A stopped process only sees the signal once continued.
			_ = p.proc.Signal(syscall.SIGCONT)
		}
		t := time.NewTimer(s.wait)
		select {
		case <-p.done:
			t.Stop()
			return
		case <-t.C:
		}
	}
	p.logger.Warn("the process survived SIGKILL", "pid", p.proc.Pid())
}

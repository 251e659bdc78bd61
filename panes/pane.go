package panes

import (
	"errors"
	"log/slog"
	"runtime"
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

// bulkTokens bounds how many panes parse a flood of output at the same
// time. A read that fills the whole buffer, or a burst of back-to-back
// reads past bulkBurst, means the child writes faster than it is parsed;
// such panes take turns, one per CPU, and their children wait in the PTY
// meanwhile (like tmux, which stops reading a pane whose output its client
// has not drawn). A keystroke's echo is not queued behind megabytes of
// another pane: the echo hold pauses these panes until it is drawn. (With
// a CPU kept free of floods instead, on two CPUs one pane parsed at a
// time: the 8-pane flood drained no faster once its reads were all
// counted, and the echo's tail was longer.)
var bulkTokens = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))

// FloodSlots is how many panes parse a flood at the same time: one per CPU
// that Go ran on when the package was loaded. A program that runs panes
// gives Go one more processor than this (see KeepAProcForInput).
func FloodSlots() int { return cap(bulkTokens) }

// KeepAProcForInput raises GOMAXPROCS to one more than FloodSlots. While
// panes flood, each slot parses without a pause, so with as many Go
// processors as slots none goes idle, and Go then looks at its sockets
// and pipes only from its background monitor, every 10 ms: a keystroke
// from an attached terminal sat unread in the session's socket for up to
// that long (traced under an 8-pane flood: the client's write to the
// server's read was most of the tail of keystroke to echo). The session
// reads keys in a thread blocked in poll(2) instead (see
// control.AttachStream.WakeOnInput); the spare processor is the one that
// thread finds free when the kernel wakes it. It parses nothing, so
// floods get no more CPU than before.
func KeepAProcForInput() {
	if n := FloodSlots() + 1; runtime.GOMAXPROCS(0) < n {
		runtime.GOMAXPROCS(n)
	}
}

// bulkHold is when (unix nanoseconds) the current echo hold ends, and
// bulkHoldFor the pane whose echo it protects. While it lasts, other panes
// do not start parsing a full read: on a machine with few CPUs the flood
// otherwise competes with the chain that draws a keystroke's echo (the
// child's echo, this pane's reader, the UI's frame and its write), and the
// echo waits behind parse after parse. tmux behaves alike: it stops reading
// panes while the output already taken is not drawn.
var (
	bulkHold    atomic.Int64
	bulkHoldFor atomic.Pointer[Pane]
)

// maxEchoHold bounds how long one keystroke pauses other panes' floods.
const maxEchoHold = 40 * time.Millisecond

// echoDrawTime is how long the hold lasts once the echo was parsed: the
// UI's frame (drawn at once for an echo) and its write still have to run.
// Longer holds only slowed the other panes' floods: at 4 ms, 8 floods
// drained in 3.9 s instead of 3.0 s once echoes were drawn at once.
const echoDrawTime = 1500 * time.Microsecond

// PrioritizeEcho pauses the bulk parsing of every other pane until this
// pane's reply to input just written has been parsed and had time to be
// drawn, or maxEchoHold passed. The caller is the UI forwarding a
// keystroke; a flooding pane loses at most maxEchoHold per keystroke.
//
// A hold that ran out without an echo (a program that does not echo, keys
// held down) is not followed by another for maxEchoHold, so floods keep at
// least half the time whatever the keyboard does.
func (p *Pane) PrioritizeEcho() {
	now := time.Now().UnixNano()
	if end := bulkHold.Load(); !echoSeen.Load() && now < end+int64(maxEchoHold) {
		return
	}
	echoSeen.Store(false)
	bulkHoldFor.Store(p)
	bulkHold.Store(now + int64(maxEchoHold))
}

// echoSeen records that the last hold was ended by its pane's output.
var echoSeen atomic.Bool

// endEchoHold shortens a hold protecting p to echoDrawTime from now.
func (p *Pane) endEchoHold() {
	if bulkHoldFor.Load() != p {
		return
	}
	echoSeen.Store(true)
	end := time.Now().Add(echoDrawTime).UnixNano()
	for {
		cur := bulkHold.Load()
		if cur <= end || bulkHold.CompareAndSwap(cur, end) {
			return
		}
	}
}

// waitEchoHold blocks a bulk read of p while another pane's echo hold lasts.
func (p *Pane) waitEchoHold() {
	for bulkHoldFor.Load() != p {
		left := bulkHold.Load() - time.Now().UnixNano()
		if left <= 0 {
			return
		}
		// A timer, not a poke: the hold is short and ends on its own, and
		// the one pane that ends it early must not wake every reader.
		time.Sleep(min(time.Duration(left), maxEchoHold))
	}
}

// takeFloodSlot waits for a flood-parsing slot and for the end of any
// other pane's echo hold. A hold can begin while the pane is queued for a
// slot, as most flooding panes are at any time; such a pane gives the slot
// back and waits for the hold, or each queued pane would parse a read
// while the typed key's echo is on its way.
func (p *Pane) takeFloodSlot() {
	for {
		p.waitEchoHold()
		bulkTokens <- struct{}{}
		if bulkHoldFor.Load() == p || bulkHold.Load() <= time.Now().UnixNano() {
			return
		}
		<-bulkTokens
	}
}

// burstGap is the longest pause between two reads of one burst (a
// variable so that tests can make bursts independent of their timing).
var burstGap = func() *atomicDuration { var d atomicDuration; d.Store(time.Millisecond); return &d }()

// atomicDuration is a time.Duration read by every reader goroutine.
type atomicDuration struct{ v atomic.Int64 }

func (d *atomicDuration) Load() time.Duration   { return time.Duration(d.v.Load()) }
func (d *atomicDuration) Store(t time.Duration) { d.v.Store(int64(t)) }

const (
	// bulkBurst is how much back-to-back output makes a pane a flood: more
	// than a full-screen program's redraw, so interactive panes never wait
	// for a bulk token.
	bulkBurst = 64 << 10
	// A read is full when it took as much as the PTY hands over at once:
	// as much as the pane's largest read, at least fullRead, at most
	// ptyFill (Linux's line discipline gives 4095 bytes a read, more only
	// when output piled up while the reader waited). After a full read the
	// child still had output waiting, so a pause before the next read was
	// the scheduler's, not the child's, and the burst goes on. On a busy
	// machine a flooding child often waits longer than burstGap for a CPU;
	// counted on time alone, its burst kept starting over, and a third
	// (two thirds under load) of a flood's reads escaped the flood slots
	// and the echo hold.
	fullRead = 1 << 10
	ptyFill  = 4<<10 - 1
)

// readMore fills b with output the child has already written, without
// waiting for more: one read after another until the PTY has nothing,
// b is full, or another pane's echo hold begins. A flooding pane calls it
// while it holds a flood slot. Taking a flood in reads of 32 KiB instead
// of the PTY's 4 KiB cuts the flood slots' hand-overs eightfold, and with
// them the goroutine wake-ups that kept every Go processor and both CPUs
// busy: under an 8-pane flood, keystroke to echo p99 went from 1.3-1.7x
// tmux's to 0.7-1.2x (together with control.AttachStream.WakeOnInput),
// the floods draining about 8 % slower (bench workbench flood, three
// alternating runs each).
func (p *Pane) readMore(b []byte) int {
	r, ok := p.proc.(readyReader)
	if !ok {
		return 0
	}
	n := 0
	for n < len(b) {
		if bulkHoldFor.Load() != p && bulkHold.Load() > time.Now().UnixNano() {
			break
		}
		m := r.ReadReady(b[n:])
		if m <= 0 {
			break
		}
		n += m
	}
	return n
}

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

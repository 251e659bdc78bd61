package panes

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
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

// echoHold is one keystroke's pause of the other panes' floods. While it
// lasts, panes other than the one typed into do not start parsing a full
// read: on a machine with few CPUs the flood otherwise competes with the
// chain that draws the keystroke's echo (the child's echo, this pane's
// reader, the UI's frame and its write), and the echo waits behind parse
// after parse. tmux behaves alike: it stops reading panes while the output
// already taken is not drawn.
//
// The hold ends when the echo had time to be drawn or after maxEchoHold,
// whichever comes first, and its end wakes every pane waiting for it: a
// flood paused for longer than the echo needs leaves the CPUs idle (its
// child soon fills the PTY and waits too). Sleeping until the hold's
// longest end instead, under keys typed every 11 ms, made 8 floods drain
// in 4.0-4.1 s instead of 2.7-2.8 s (bench workbench flood, alternating
// runs).
type echoHold struct {
	pane   *Pane         // the pane typed into, whose echo is protected
	start  time.Time     // when the key was written
	echoed atomic.Bool   // the pane's reply was read
	over   chan struct{} // closed when the hold ends
	once   sync.Once
}

// end ends the hold and wakes the panes waiting for it.
func (h *echoHold) end() { h.once.Do(func() { close(h.over) }) }

// holds reports whether h pauses p's floods: it lasts and protects another
// pane. A nil hold holds nothing.
func (h *echoHold) holds(p *Pane) bool {
	if h == nil || h.pane == p {
		return false
	}
	select {
	case <-h.over:
		return false
	default:
		return true
	}
}

// curHold is the latest keystroke's hold (nil before the first).
var curHold atomic.Pointer[echoHold]

// maxEchoHold bounds how long one keystroke pauses other panes' floods (a
// variable so that tests can hold for longer than they run).
var maxEchoHold = newAtomicDuration(40 * time.Millisecond)

// echoDrawTime is how long the hold lasts once the echo was read: it is
// parsed, the UI's frame (drawn at once for an echo) and its write still
// have to run. Longer holds only slowed the other panes' floods: at 3 and
// 5 ms, 8 floods drained in 3.1-3.5 and 4.1-4.4 s instead of 2.7-2.8 s, and
// the echo was no faster.
const echoDrawTime = 1500 * time.Microsecond

// PrioritizeEcho pauses the bulk parsing of every other pane until this
// pane's reply to input just written has been read and had time to be
// drawn, or maxEchoHold passed. The caller is the UI forwarding a
// keystroke; a flooding pane loses at most maxEchoHold per keystroke.
//
// A hold that ran out without an echo (a program that does not echo, keys
// held down) is not followed by another for maxEchoHold, so floods keep at
// least half the time whatever the keyboard does.
func (p *Pane) PrioritizeEcho() {
	now := time.Now()
	longest := maxEchoHold.Load()
	old := curHold.Load()
	if old != nil && !old.echoed.Load() && now.Before(old.start.Add(2*longest)) {
		return
	}
	h := &echoHold{pane: p, start: now, over: make(chan struct{})}
	time.AfterFunc(longest, h.end)
	curHold.Store(h)
	if old != nil {
		// Its waiters move on to the new hold (or go on if it protects them).
		old.end()
	}
}

// endEchoHold ends a hold protecting p echoDrawTime from now: p's reply
// to the keystroke was just read.
func (p *Pane) endEchoHold() {
	h := curHold.Load()
	if h == nil || h.pane != p || h.echoed.Swap(true) {
		return
	}
	time.AfterFunc(echoDrawTime, h.end)
}

// waitEchoHold blocks a bulk read of p while another pane's echo hold lasts.
func (p *Pane) waitEchoHold() {
	for {
		h := curHold.Load()
		if !h.holds(p) {
			return
		}
		<-h.over
	}
}

// takeFloodSlot waits for a flood-parsing slot and for the end of any
// other pane's echo hold. A hold can begin while the pane is queued for a
// slot, as most flooding panes are at any time; such a pane gives the slot
// back and waits for the hold, or each queued pane would parse a read
// while the typed key's echo is on its way.
func (p *Pane) takeFloodSlot() {
	noteFlood()
	for {
		p.waitEchoHold()
		bulkTokens <- struct{}{}
		if !curHold.Load().holds(p) {
			return
		}
		<-bulkTokens
	}
}

// floodQuiet is how long after a pane last took a flood slot Flooding
// still says yes.
const floodQuiet = 250 * time.Millisecond

var (
	floodSeen    atomic.Int64 // when a pane last took a flood slot, UnixNano
	floodStartMu sync.Mutex
	floodStarts  = map[*func()]struct{}{}
)

// Flooding reports whether a pane parsed a flood in the last floodQuiet.
// The session server's key reader waits in poll(2) while it does (see
// control.AttachStream.WakeOnInput).
func Flooding() bool { return time.Now().UnixNano()-floodSeen.Load() < int64(floodQuiet) }

// OnFloodStart calls f, in the pane's reader, each time a flood begins
// after floodQuiet without one; stop ends that.
func OnFloodStart(f func()) (stop func()) {
	key := &f
	floodStartMu.Lock()
	floodStarts[key] = struct{}{}
	floodStartMu.Unlock()
	return func() {
		floodStartMu.Lock()
		delete(floodStarts, key)
		floodStartMu.Unlock()
	}
}

// noteFlood records that a pane takes a flood slot now, and tells the
// OnFloodStart callers when this begins a flood.
func noteFlood() {
	now := time.Now().UnixNano()
	if now-floodSeen.Swap(now) < int64(floodQuiet) {
		return
	}
	floodStartMu.Lock()
	defer floodStartMu.Unlock()
	for f := range floodStarts {
		(*f)()
	}
}

// burstGap is the longest pause between two reads of one burst (a
// variable so that tests can make bursts independent of their timing).
var burstGap = newAtomicDuration(time.Millisecond)

// atomicDuration is a time.Duration read by every reader goroutine.
type atomicDuration struct{ v atomic.Int64 }

func newAtomicDuration(t time.Duration) *atomicDuration {
	d := new(atomicDuration)
	d.Store(t)
	return d
}

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
		if curHold.Load().holds(p) {
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

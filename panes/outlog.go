package panes

import (
	"bufio"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// outputLog appends a child's output to its log file. With a cap it keeps
// the newest output: when the file reaches the cap it is renamed to
// path+".1" (replacing the older one) and a new file is started, so at most
// twice the cap is on disk. The first failure (a full disk, a removed
// directory) stops logging, is reported once through onErr, and never
// reaches the pane: the child's output is still shown.
//
// It is written by the pane's reader goroutine (and closed by waitLoop
// after the reader ended); its lock is for the timer of flushSoon and the
// file's open.
//
// The file is opened in the background, logOpenDelay after the start (or
// once logBufSize bytes wait, or at the end): creating a file costs about
// as much CPU as starting the process, and on a busy machine it competed
// with the child's exec and with the drawing of its first output. What
// the child prints meanwhile waits in memory; the reader waits only once
// that holds logBufSize bytes.
type outputLog struct {
	mu     sync.Mutex
	ready  *sync.Cond // broadcast once the file is open or could not be
	isOpen bool       // the open is over (failed or not)
	start  sync.Once  // starts the open
	later  *time.Timer
	// pending is the output written before the file was open.
	pending []byte
	path    string
	max     int64 // 0: no cap
	f       *os.File
	buf     *bufio.Writer
	size    int64 // bytes in the current file, buffered ones included
	rotate  bool  // the file is a regular file, so it can be rotated
	failed  bool
	onErr   func(error)
	logger  *slog.Logger
	closed  bool
	// timer flushes what flushSoon left in the buffer; armed while it runs.
	timer *time.Timer
	armed bool
}

// logFlushDelay is how long output read in a flood may stay in the buffer
// before it reaches the file (unless the buffer fills first).
const logFlushDelay = 20 * time.Millisecond

// logBufSize is how much output is gathered before a write to the file.
const logBufSize = 64 << 10

// logOpenDelay is how long after its pane's start a log is opened: past
// the moment a new agent's first output is drawn.
const logOpenDelay = 100 * time.Millisecond

// newOutputLog returns the log of path (appending to it), not open yet:
// openSoon opens it in the background. A failure to open it is reported
// through onErr; the pane then runs without a log.
func newOutputLog(path string, max int64, onErr func(error), logger *slog.Logger) *outputLog {
	l := &outputLog{path: path, max: max, onErr: onErr, logger: logger}
	l.ready = sync.NewCond(&l.mu)
	l.mu.Lock() // open reads it, maybe from the timer's goroutine
	l.later = time.AfterFunc(logOpenDelay, l.openSoon)
	l.mu.Unlock()
	return l
}

// openSoon starts the file's open, once.
func (l *outputLog) openSoon() {
	l.start.Do(func() { go l.open() })
}

// open opens the file and writes to it what waited.
func (l *outputLog) open() {
	f, err := openLogFile(l.path)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.later.Stop()
	l.isOpen = true
	l.ready.Broadcast()
	pending := l.pending
	l.pending = nil
	if err != nil {
		l.failed = true
		l.logger.Warn("the output log could not be opened; the agent's output is not logged", "path", l.path, "err", err)
		if l.onErr != nil {
			l.onErr(err)
		}
		return
	}
	l.f, l.buf = f, bufio.NewWriterSize(f, logBufSize)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		l.size, l.rotate = st.Size(), true
	}
	l.writeLocked(pending)
	l.flushLocked()
}

// openLogFile creates (or opens, appending) the log at path.
func openLogFile(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create the directory of the output log %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the output log: %w", err)
	}
	return f, nil
}

// write appends p, rotating the file at the cap. Before the file is open
// p waits in memory, up to logBufSize bytes; then write waits for the
// open.
func (l *outputLog) write(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for !l.isOpen && len(l.pending) >= logBufSize {
		l.openSoon()
		l.ready.Wait()
	}
	if !l.isOpen {
		l.pending = append(l.pending, p...)
		return
	}
	l.writeLocked(p)
}

func (l *outputLog) writeLocked(p []byte) {
	for len(p) > 0 && !l.failed {
		n := len(p)
		if l.max > 0 && l.rotate {
			if l.size >= l.max {
				l.rotateFile()
				continue
			}
			if room := l.max - l.size; int64(n) > room {
				n = int(room)
			}
		}
		if _, err := l.buf.Write(p[:n]); err != nil {
			l.fail(fmt.Errorf("write the output log: %w", err))
			return
		}
		l.size += int64(n)
		p = p[n:]
	}
}

// flush writes the buffered output to the file.
func (l *outputLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushLocked()
}

// flushSoon makes sure the buffered output reaches the file within
// logFlushDelay, without a write per call: a flood writes the file a
// buffer at a time, and its last output still reaches the file soon
// although no read follows it.
func (l *outputLog) flushSoon() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.armed || l.failed || l.closed {
		return
	}
	l.armed = true
	if l.timer == nil {
		l.timer = time.AfterFunc(logFlushDelay, l.timedFlush)
	} else {
		l.timer.Reset(logFlushDelay)
	}
}

func (l *outputLog) timedFlush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.armed = false
	if !l.closed {
		l.flushLocked()
	}
}

func (l *outputLog) flushLocked() {
	if l.failed || !l.isOpen {
		return // before the open, the output waits in pending
	}
	if err := l.buf.Flush(); err != nil {
		l.fail(fmt.Errorf("write the output log: %w", err))
	}
}

// close flushes and closes the file; a log not open yet is opened first
// (created, with what waited).
func (l *outputLog) close() {
	l.openSoon()
	l.mu.Lock()
	defer l.mu.Unlock()
	for !l.isOpen {
		l.ready.Wait()
	}
	l.flushLocked()
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
	}
	if l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
}

// rotateFile moves the full log to path.1 and starts a new one.
func (l *outputLog) rotateFile() {
	if err := l.buf.Flush(); err != nil {
		l.fail(fmt.Errorf("write the output log: %w", err))
		return
	}
	_ = l.f.Close()
	l.f = nil
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		l.fail(fmt.Errorf("rotate the output log: %w", err))
		return
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_TRUNC, 0o600)
	if err != nil {
		l.fail(fmt.Errorf("open the output log: %w", err))
		return
	}
	l.f, l.size = f, 0
	l.buf.Reset(f)
}

// fail stops logging and reports err once.
func (l *outputLog) fail(err error) {
	l.failed = true
	if l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
	l.logger.Warn("the output log stopped; the agent's further output is not logged", "path", l.path, "err", err)
	if l.onErr != nil {
		l.onErr(err)
	}
}

package control

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"time"
)

// WakeOnInput makes the stream's reads wait for input in a blocking
// poll(2) of their own thread, instead of in Go's network poller, while
// busy says so. The session server reads a terminal's keystrokes this way
// while panes flood: every Go processor can then stay busy for several
// milliseconds, and Go looks at its sockets only from its background
// monitor, about every 10 ms; a thread blocked in poll is woken by the
// kernel the moment a key arrives and needs only a free processor to go
// on (traced under an 8-pane flood: the key's wait in the socket fell from
// 8-9 ms to 2-3 ms at the 99th percentile).
//
// While busy says no, a read waits in Go's poller as usual, and reads with
// a raw system call: a thread blocked in a system call keeps a processor
// in it until the monitor takes it back 10 ms later, and the monitor wakes
// every 20 µs or so until then, which costs an idle session more than the
// frame it draws. A read already waiting in Go's poller when busy turns
// true goes on waiting there until Rewait is called; the flood's start
// calls it. A nil busy is always busy.
//
// Reads end when ctx does (the stream's reading side is shut, which wakes
// the poll), when the peer hangs up, or when the stream is closed. It is a
// no-op where the connection is not a Unix socket or the platform has no
// poll(2); reads then stay as they were. Call it before the first read.
func (s *AttachStream) WakeOnInput(ctx context.Context, busy func() bool) {
	uc, rc := s.uc, s.rc
	if rc == nil || !pollSupported {
		return
	}
	if busy == nil {
		busy = func() bool { return true }
	}
	// Bytes the line reader already took from the socket come first.
	var rest []byte
	if n := s.r.Buffered(); n > 0 {
		b, _ := s.r.Peek(n)
		rest = bytes.Clone(b)
	}
	s.r = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(rest), &pollReader{rc: rc, busy: busy, conn: uc}), 64<<10)
	s.rewait = func() { _ = uc.SetReadDeadline(time.Unix(1, 0)) }
	s.shutRead = func() { _ = uc.CloseRead() }
	context.AfterFunc(ctx, s.shutRead)
}

// Rewait makes a read that waits in Go's poller start its wait again, in
// poll(2) if busy now says so (see WakeOnInput). Safe from any goroutine;
// it does nothing before WakeOnInput.
func (s *AttachStream) Rewait() {
	if s.rewait != nil {
		s.rewait()
	}
}

package control

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
)

// WakeOnInput makes the stream's reads wait for input in a blocking
// poll(2) of their own thread instead of in Go's network poller. The
// session server reads a terminal's keystrokes this way: while panes
// flood, every Go processor can stay busy for several milliseconds, and Go
// then looks at its sockets only from its background monitor, about every
// 10 ms; a thread blocked in poll is woken by the kernel the moment a key
// arrives and needs only a free processor to go on (traced under an
// 8-pane flood: the key's wait in the socket fell from 8-9 ms to 2-3 ms
// at the 99th percentile).
//
// Reads end when ctx does (the stream's reading side is shut, which wakes
// the poll), when the peer hangs up, or when the stream is closed. It is a
// no-op where the connection is not a Unix socket or the platform has no
// poll(2); reads then stay as they were. Call it before the first read.
func (s *AttachStream) WakeOnInput(ctx context.Context) {
	uc, ok := s.c.(*net.UnixConn)
	if !ok || !pollSupported {
		return
	}
	rc, err := uc.SyscallConn()
	if err != nil {
		return
	}
	// Bytes the line reader already took from the socket come first.
	var rest []byte
	if n := s.r.Buffered(); n > 0 {
		b, _ := s.r.Peek(n)
		rest = bytes.Clone(b)
	}
	s.r = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(rest), &pollReader{rc: rc}), 64<<10)
	s.shutRead = func() { _ = uc.CloseRead() }
	context.AfterFunc(ctx, s.shutRead)
}

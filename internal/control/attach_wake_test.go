//go:build linux || darwin

package control

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"time"
)

func frameBytes(typ byte, payload string) []byte {
	b := make([]byte, 5, 5+len(payload))
	b[0] = typ
	binary.BigEndian.PutUint32(b[1:], uint32(len(payload)))
	return append(b, payload...)
}

// readFrameAsync reads one frame in a goroutine.
func readFrameAsync(s *AttachStream) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, _, err := s.ReadFrame(nil)
		done <- err
	}()
	return done
}

// TestWakeOnInputReadsFrames: with reads waiting in poll(2), frames come
// out whole and in order: one already buffered by the line reader before
// the switch, one whose header and payload arrive in separate writes, and
// one larger than the read buffer.
func TestWakeOnInputReadsFrames(t *testing.T) {
	srv, cli := unixPair(t)
	big := string(make([]byte, 200<<10))
	// The attach request line and the first frame arrive together, as a
	// client that types at once sends them.
	if _, err := cli.Write(append([]byte("{\"method\":\"session.attach\"}\n"), frameBytes(FrameInput, "first")...)); err != nil {
		t.Fatal(err)
	}
	lr := bufio.NewReader(srv)
	if _, err := lr.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	s := NewAttachStream(srv, lr)
	s.WakeOnInput(t.Context(), nil)

	want := []string{"first", "split", big}
	go func() {
		f := frameBytes(FrameInput, "split")
		_, _ = cli.Write(f[:3])
		_, _ = cli.Write(f[3:])
		_, _ = cli.Write(frameBytes(FrameInput, big))
	}()
	for i, w := range want {
		typ, p, err := s.ReadFrame(nil)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if typ != FrameInput || string(p) != w {
			t.Fatalf("frame %d: got type %d, %d bytes; want %d bytes", i, typ, len(p), len(w))
		}
	}
	// The peer hanging up ends the reads.
	_ = cli.Close()
	if _, _, err := s.ReadFrame(nil); !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("after the peer hung up: %v, want EOF", err)
	}
}

// TestWakeOnInputEndsWithItsContext: a read waiting in poll(2) returns once
// the stream's context ends, though nothing arrived and nobody closed the
// socket; a blocked poll is not woken by Go's poller, so this would hang
// if the reading side were not shut.
func TestWakeOnInputEndsWithItsContext(t *testing.T) {
	srv, _ := unixPair(t)
	ctx, cancel := context.WithCancel(t.Context())
	s := NewAttachStream(srv, nil)
	s.WakeOnInput(ctx, nil)
	done := readFrameAsync(s)
	waitInPoll(t)
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the read returned no error after its context ended")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read still waits 10 s after its context ended")
	}
}

// TestWakeOnInputEndsOnClose: closing the stream (as the server does when a
// client stops reading its frames) ends a read waiting in poll(2).
func TestWakeOnInputEndsOnClose(t *testing.T) {
	srv, _ := unixPair(t)
	s := NewAttachStream(srv, nil)
	s.WakeOnInput(t.Context(), nil)
	done := readFrameAsync(s)
	waitInPoll(t)
	_ = s.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the read returned no error after the stream was closed")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read still waits 10 s after the stream was closed")
	}
}

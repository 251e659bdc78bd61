//go:build linux || darwin

package control

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestWakeOnInputWaitsInPollOnlyWhileBusy: while busy says no, a read
// waits in Go's poller (it asked busy, found nothing, and waits without a
// thread in poll(2)); Rewait, once busy says yes, moves the waiting read
// into poll(2); frames come out whole either way.
func TestWakeOnInputWaitsInPollOnlyWhileBusy(t *testing.T) {
	srv, cli := unixPair(t)
	s := NewAttachStream(srv, nil)
	var busy atomic.Bool
	asked := make(chan bool, 16)
	s.WakeOnInput(t.Context(), func() bool {
		b := busy.Load()
		asked <- b
		return b
	})
	wantAsked := func(want bool) {
		t.Helper()
		select {
		case got := <-asked:
			if got != want {
				t.Fatalf("the read asked busy and got %v, want %v", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the read did not ask busy within 10 s")
		}
	}

	// Idle: the read asks, finds nothing, and waits in Go's poller; a
	// frame wakes it there.
	done := readFrameAsync(s)
	wantAsked(false)
	if _, err := cli.Write(frameBytes(FrameInput, "idle")); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the frame sent while idle: %v", err)
	}
	for len(asked) > 0 { // the read may have asked again when woken
		if <-asked {
			t.Fatal("the read asked busy and got true while idle")
		}
	}

	// A flood begins while the next read waits in Go's poller: Rewait
	// makes it wait again, now in poll(2).
	got := make(chan string, 1)
	go func() {
		_, p, err := s.ReadFrame(nil)
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(p)
	}()
	wantAsked(false)
	busy.Store(true)
	s.Rewait()
	wantAsked(true)
	waitInPoll(t)
	if _, err := cli.Write(frameBytes(FrameInput, "busy")); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-got:
		if p != "busy" {
			t.Fatalf("the frame sent during the flood read as %q, want %q", p, "busy")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the frame sent during the flood was not read within 10 s")
	}
}

// TestWriteFrameLargerThanTheSocketTakes: a frame the socket cannot take
// at once (the peer reads it slowly) is written partly at once and the
// rest under the write deadline, whole and in order.
func TestWriteFrameLargerThanTheSocketTakes(t *testing.T) {
	srv, cli := unixPair(t)
	s := NewAttachStream(srv, nil)
	s.writeTimeout = 30 * time.Second
	big := make([]byte, 4<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	errs := make(chan error, 1)
	go func() { errs <- s.WriteFrame(FrameOutput, big) }()
	r := NewAttachStream(cli, nil)
	var p []byte
	for len(p) < len(big) { // frames of maxFrame at most
		typ, f, err := r.ReadFrame(nil)
		if err != nil {
			t.Fatal(err)
		}
		if typ != FrameOutput {
			t.Fatalf("got a frame of type %d, want %d", typ, FrameOutput)
		}
		p = append(p, f...)
	}
	if len(p) != len(big) {
		t.Fatalf("got %d bytes, want %d", len(p), len(big))
	}
	for i := range p {
		if p[i] != big[i] {
			t.Fatalf("byte %d is %d, want %d", i, p[i], big[i])
		}
	}
	if err := <-errs; err != nil {
		t.Fatalf("WriteFrame: %v", err)
	}
}

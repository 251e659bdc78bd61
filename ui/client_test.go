package ui

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/agentgrid/agentgrid/internal/control"
)

// TestAttachTerminalConnectionLost: when the session's connection drops
// without an exit message (its server was killed), the client writes the
// teardown itself (alternate screen left, cursor shown, mouse, paste and
// keyboard modes off) and says the connection was lost; an exit message
// is returned as the reason, with nothing added.
func TestAttachTerminalConnectionLost(t *testing.T) {
	run := func(server func(s *control.AttachStream)) (string, string, error) {
		srv, cli := net.Pipe()
		inR, inW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer inW.Close()
		outR, outW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() { b, _ := io.ReadAll(outR); got <- string(b) }()
		go server(control.NewAttachStream(srv, nil))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		reason, err := AttachTerminal(ctx, control.NewAttachStream(cli, nil), inR, outW)
		_ = outW.Close()
		return reason, <-got, err
	}
	_, out, err := run(func(s *control.AttachStream) {
		_ = s.WriteFrame(control.FrameOutput, []byte("\x1b[?1049h\x1b[?1002hframe"))
		_ = s.Close()
	})
	if !errors.Is(err, ErrConnectionLost) {
		t.Fatalf("a dropped connection: %v", err)
	}
	if !strings.HasPrefix(out, "\x1b[?1049h\x1b[?1002hframe") || !strings.HasSuffix(out, terminalReset) {
		t.Fatalf("output %q: want the frame, then the reset", out)
	}
	for _, seq := range []string{"\x1b[?1049l", "\x1b[?25h", "\x1b[?1002l", "\x1b[?2004l", "\x1b[<1u"} {
		if !strings.Contains(terminalReset, seq) {
			t.Errorf("the reset lacks %q", seq)
		}
	}
	reason, out, err := run(func(s *control.AttachStream) {
		_ = s.WriteFrame(control.FrameOutput, []byte("bye"))
		_ = s.WriteFrame(control.FrameExit, []byte(ExitDetached))
	})
	if err != nil || reason != ExitDetached || out != "bye" {
		t.Fatalf("a detach: reason %q, output %q, err %v", reason, out, err)
	}
}

// TestAttachTerminalLeavesTypeAheadToTheShell: once AttachTerminal
// returns (the session quit), nothing of the client reads the terminal any
// more, so a line typed right after the quit message reaches the shell
// instead of a dead connection. A real PTY; the server waits for one key
// so the client's reader is known to be reading when the session quits.
func TestAttachTerminalLeavesTypeAheadToTheShell(t *testing.T) {
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptm.Close()
	defer tty.Close()
	srv, cli := net.Pipe()
	go func() {
		s := control.NewAttachStream(srv, nil)
		var buf []byte
		for {
			typ, _, err := s.ReadFrame(buf)
			if err != nil {
				return
			}
			if typ == control.FrameInput {
				_ = s.WriteFrame(control.FrameExit, []byte(ExitQuit))
				return
			}
		}
	}()
	go func() { _, _ = io.Copy(io.Discard, ptm) }() // the terminal's screen
	if _, err := ptm.Write([]byte("k")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	reason, err := AttachTerminal(ctx, control.NewAttachStream(cli, nil), tty, tty)
	if err != nil || reason != ExitQuit {
		t.Fatalf("AttachTerminal: %q, %v; want the quit", reason, err)
	}
	// The shell's turn: the terminal is in cooked mode again.
	if _, err := ptm.Write([]byte("typed-ahead\n")); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		b := make([]byte, 64)
		n, _ := tty.Read(b)
		got <- string(b[:n])
	}()
	select {
	case line := <-got:
		if line != "typed-ahead\n" {
			t.Errorf("the shell read %q, want the typed line", line)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the line typed after the session quit never reached the shell: the client's reader took it")
	}
}

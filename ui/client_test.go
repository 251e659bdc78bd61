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

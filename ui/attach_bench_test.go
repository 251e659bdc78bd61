package ui

import (
	"bytes"
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

// BenchmarkAttachFirstFrame is the session's side of agentgrid attach:
// from a client's attach (a 120x40 terminal) to its first frame with the
// panes' borders, over an in-memory connection, with the real engine. The
// median per attach is reported as µs/first-frame; ns/op also counts the
// detach.
func BenchmarkAttachFirstFrame(b *testing.B) {
	h, _, _ := startHubEngine(b, "ready-1")
	firsts := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		srv, cli := net.Pipe()
		s := control.NewAttachStream(cli, nil)
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.Attach(context.Background(), control.NewAttachStream(srv, nil), control.AttachParams{Cols: 120, Rows: 40, Env: []string{"TERM=xterm-256color"}})
		}()
		var buf []byte
		for {
			typ, p, err := s.ReadFrame(buf)
			if err != nil {
				b.Fatal(err)
			}
			buf = p[:0]
			if typ == control.FrameOutput && bytes.Contains(p, []byte("┌")) {
				break
			}
		}
		firsts = append(firsts, time.Since(start))
		_ = s.WriteFrame(control.FrameDetach, nil)
		go func() { // the exit frame
			for {
				if _, _, err := s.ReadFrame(nil); err != nil {
					return
				}
			}
		}()
		<-done
		_ = cli.Close()
		_ = srv.Close()
	}
	b.StopTimer()
	slices.Sort(firsts)
	b.ReportMetric(float64(firsts[len(firsts)/2])/float64(time.Microsecond), "µs/first-frame")
}

package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/internal/control"
)

func TestMirrorNextFrame(t *testing.T) {
	m := NewMirror()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if f, err := m.NextFrame(ctx, 0); !errors.Is(err, context.DeadlineExceeded) || f.Seq != 0 {
		t.Fatalf("before any frame: %+v, %v; want a wait that ends with the context", f, err)
	}
	m.publish(cvOf("ab", "cd"), nil)
	f, err := m.NextFrame(context.Background(), 0)
	if err != nil || f.Seq != 1 || strings.Join(f.Lines, "|") != "ab|cd" || f.Cols != 2 || f.Rows != 2 || f.Cursor != nil {
		t.Fatalf("first frame = %+v, %v", f, err)
	}
	got := make(chan control.ScreenFrame, 1)
	go func() {
		f, _ := m.NextFrame(context.Background(), 1)
		got <- f
	}()
	m.publish(cvOf("xy", "zw"), nil)
	select {
	case f := <-got:
		if f.Seq != 2 || f.Lines[0] != "xy" {
			t.Fatalf("second frame = %+v", f)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a wait for a newer frame did not end when one came")
	}
}

// TestRunPublishesToMirror checks that what the session draws is what a
// watcher gets.
func TestRunPublishesToMirror(t *testing.T) {
	mirror := NewMirror()
	ctx, cancel := context.WithCancel(context.Background())
	_, out, done := startRun(t, ctx, WithMirror(mirror))
	defer func() {
		cancel()
		<-done
	}()
	waitFor(t, "the first frame", func() bool { return strings.Contains(ansi.Strip(out.String()), "a1-title") })
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	f, err := mirror.NextFrame(wctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Cols != 80 || f.Rows != 24 || len(f.Lines) != 24 || !strings.Contains(ansi.Strip(strings.Join(f.Lines, "\n")), "a1-title") {
		t.Fatalf("mirrored frame %dx%d with %d lines:\n%s", f.Cols, f.Rows, len(f.Lines), strings.Join(f.Lines, "\n"))
	}
}

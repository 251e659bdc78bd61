package ui

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/panes/vterm"
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

func TestWatchView(t *testing.T) {
	f := &control.ScreenFrame{Seq: 1, Cols: 20, Rows: 3, Lines: []string{
		"\x1b[31mred\x1b[m" + strings.Repeat("x", 17), strings.Repeat("y", 20), strings.Repeat("z", 20),
	}, Cursor: &control.ScreenCursor{X: 2, Y: 1}}

	// Smaller than the session: cropped, and the bottom line says so.
	v := watchView(f, "pair", 10, 3)
	checkWidths(t, v.Canvas, 10, 3)
	rows := strings.Split(v.Canvas.String(), "\n")
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	for i, r := range rows {
		if w := ansi.StringWidth(r); w != 10 {
			t.Errorf("row %d is %d cells wide, want 10: %q", i, w, r)
		}
	}
	if got := ansi.Strip(rows[0]); got != "redxxxxxxx" {
		t.Errorf("row 0 = %q", got)
	}
	if v.Canvas.Row(0)[0].Fg != vterm.IndexedColor(1) || v.Canvas.Row(0)[3].Fg != 0 {
		t.Error("colours were lost")
	}
	if v.Cursor == nil || v.Cursor.X != 2 || v.Cursor.Y != 1 {
		t.Errorf("cursor = %+v, want 2,1", v.Cursor)
	}
	if full := ansi.Strip(watchView(f, "pair", 200, 2).Canvas.String()); !strings.Contains(full, "cropped: enlarge this terminal to 20x3") {
		t.Errorf("a view a row short does not say it is cropped:\n%s", full)
	}

	// Larger: padded, all of it shown, no cropping notice.
	v = watchView(f, "pair", 30, 6)
	plain := ansi.Strip(v.Canvas.String())
	rows = strings.Split(plain, "\n")
	if len(rows) != 6 || !strings.HasPrefix(rows[2], strings.Repeat("z", 20)) || strings.TrimSpace(rows[4]) != "" {
		t.Fatalf("view:\n%s", plain)
	}
	if strings.Contains(plain, "cropped") || !strings.Contains(rows[5], "watching pair, read-only") {
		t.Errorf("bottom line = %q", rows[5])
	}

	// Before the first frame, and a cursor outside the view.
	if v := ansi.Strip(watchView(nil, "pair", 60, 4).Canvas.String()); !strings.Contains(v, "waiting for the first frame of pair") {
		t.Errorf("no frame yet:\n%s", v)
	}
	f.Cursor = &control.ScreenCursor{X: 15, Y: 0}
	if v := watchView(f, "pair", 10, 3); v.Cursor != nil {
		t.Errorf("a cursor outside the view is shown at %+v", v.Cursor)
	}
}

// TestWatchAtTheSessionsSize watches a session from a terminal of its own
// size: nothing is cropped, so the view does not say so, and the session's
// bottom row (its status line) is on the bottom line after the watcher's
// label. A larger session's size hint survives a 100-column terminal.
func TestWatchAtTheSessionsSize(t *testing.T) {
	for _, w := range []int{30, 70} {
		f := &control.ScreenFrame{Seq: 1, Cols: w, Rows: 3, Lines: []string{
			"top", "middle", "● 2 running · a1 build",
		}}
		v := ansi.Strip(watchView(f, "pair", w, 3).Canvas.String())
		rows := strings.Split(v, "\n")
		if strings.Contains(v, "cropped") || !strings.HasPrefix(rows[0], "top") || !strings.HasPrefix(rows[1], "middle") ||
			!strings.HasPrefix(rows[2], "● 2 running · a1 build") || (w == 30 && !strings.HasSuffix(rows[2], " q ")) ||
			(w == 70 && !strings.Contains(rows[2], "watching pair, read-only · q to stop")) {
			t.Errorf("a watcher of the session's own size %dx3:\n%s", w, v)
		}
	}

	big := &control.ScreenFrame{Seq: 1, Cols: 250, Rows: 60, Lines: []string{"x"}}
	v := ansi.Strip(watchView(big, "agentgrid-123456", 100, 30).Canvas.String())
	if !strings.Contains(v, "enlarge this terminal to 250x60") {
		t.Errorf("the size hint is cut at 100 columns:\n%s", v)
	}
}

// TestWatchShowsFramesUntilQ runs Watch over pipes: frames are drawn as they
// come, keys other than q do nothing, q ends it.
func TestWatchShowsFramesUntilQ(t *testing.T) {
	frames := make(chan control.ScreenFrame)
	next := func(ctx context.Context, after uint64) (control.ScreenFrame, error) {
		select {
		case f := <-frames:
			return f, nil
		case <-ctx.Done():
			return control.ScreenFrame{}, ctx.Err()
		}
	}
	inR, inW := io.Pipe()
	defer inW.Close()
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- Watch(context.Background(), "pair", next, WithIO(inR, &out), WithSize(40, 6), WithEnv([]string{"TERM=xterm-256color"}))
	}()
	waitFor(t, "the waiting line", func() bool { return strings.Contains(ansi.Strip(out.String()), "waiting for the first frame") })
	frames <- control.ScreenFrame{Seq: 1, Cols: 20, Rows: 2, Lines: []string{"first frame", "row two"}}
	waitFor(t, "the first frame", func() bool { return strings.Contains(ansi.Strip(out.String()), "first frame") })
	if _, err := inW.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	frames <- control.ScreenFrame{Seq: 2, Cols: 20, Rows: 2, Lines: []string{"second frame", "row two"}}
	waitFor(t, "the second frame", func() bool { return strings.Contains(ansi.Strip(out.String()), "second frame") })
	if _, err := inW.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Watch returned %v after q", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not return after q")
	}
	if got := out.String(); !strings.HasSuffix(got, "\x1b[?1049l") {
		t.Errorf("the terminal was not given back: output ends %q", got[max(len(got)-80, 0):])
	}
}

func TestWatchEndsWithTheSession(t *testing.T) {
	next := func(ctx context.Context, after uint64) (control.ScreenFrame, error) {
		return control.ScreenFrame{}, errors.New("connection reset")
	}
	inR, inW := io.Pipe()
	defer inW.Close()
	var out syncBuffer
	err := Watch(context.Background(), "pair", next, WithIO(inR, &out), WithSize(40, 6), WithEnv([]string{"TERM=xterm-256color"}))
	if !errors.Is(err, ErrSessionEnded) || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("Watch = %v, want ErrSessionEnded with the cause", err)
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

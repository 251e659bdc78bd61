package ui

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// syncBuffer is a goroutine-safe output sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRunDrawsAndQuits runs the real event loop over pipes: the terminal
// is set up, the first frame comes from an engine poke, ctrl+b q y quits,
// and everything set up is undone in reverse order.
func TestRunDrawsAndQuits(t *testing.T) {
	inW, out, done := startRun(t, context.Background())
	waitFor(t, "the first frame", func() bool { return strings.Contains(ansi.Strip(out.String()), "a1-title") })
	if _, err := inW.Write([]byte("\x02q")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the quit question", func() bool { return strings.Contains(ansi.Strip(out.String()), "Quit agentgrid?") })
	if _, err := inW.Write([]byte("y")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after quitting")
	}
	got := out.String()
	setup := []string{"\x1b[?1049h", "\x1b[?25l", "\x1b[?2004h", "\x1b[?1004h", "\x1b]2;agentgrid\a", "\x1b[>4;2m", "\x1b[>5u"}
	teardown := []string{"\x1b[<1u", "\x1b[>4m", "\x1b]2;\a", "\x1b[?1002l", "\x1b[?1004l", "\x1b[?2004l", "\x1b[?25h", "\x1b[?1049l"}
	checkOrder(t, got, setup)
	checkOrder(t, got[strings.LastIndex(got, "Quit agentgrid?"):], teardown)
	if !strings.Contains(got, "\x1b[?1002h\x1b[?1006h") {
		t.Error("the mouse was not turned on")
	}
	if !strings.HasSuffix(got, "\x1b[?1049l") {
		t.Errorf("output does not end leaving the alternate screen: %q", got[max(len(got)-200, 0):])
	}
}

// startRun runs the real event loop at 80x24 over a fake engine showing
// testSnapshot, with its input from a pipe and its output to a buffer, and
// pokes the engine for the first frame. done receives what run returns.
func startRun(t *testing.T, ctx context.Context, opts ...Option) (in io.WriteCloser, out *syncBuffer, done chan error) {
	t.Helper()
	eng := newFakeEngine(testSnapshot(), time.Now)
	cfg := testConfig()
	m := newModel(eng, cfg, testStyles(), time.Now)
	inR, inW := io.Pipe()
	t.Cleanup(func() { inW.Close() })
	out = &syncBuffer{}
	done = make(chan error, 1)
	go func() {
		done <- run(ctx, eng, m, cfg, append([]Option{WithIO(inR, out), WithSize(80, 24), WithEnv([]string{"TERM=xterm-256color"})}, opts...)...)
	}()
	eng.changed <- struct{}{}
	return inW, out, done
}

// checkOrder checks that seqs appear in s in that order.
func checkOrder(t *testing.T, s string, seqs []string) {
	t.Helper()
	at := 0
	for _, q := range seqs {
		i := strings.Index(s[at:], q)
		if i < 0 {
			t.Errorf("%q missing or out of order", q)
			continue
		}
		at += i + len(q)
	}
}

// TestRunEndsWithContext checks that cancelling the context ends Run
// without an error.
func TestRunEndsWithContext(t *testing.T) {
	eng := newFakeEngine(testSnapshot(), time.Now)
	cfg := testConfig()
	m := newModel(eng, cfg, testStyles(), time.Now)
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, eng, m, cfg, WithIO(inR, io.Discard), WithSize(80, 24), WithEnv([]string{"TERM=xterm"}))
	}()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end with its context")
	}
}

// TestRunRestoresTerminalOnPanic makes the model panic inside the program:
// Run restores the terminal (leaves the alternate screen), reports the
// crash, and re-raises the panic.
func TestRunRestoresTerminalOnPanic(t *testing.T) {
	eng := newFakeEngine(testSnapshot(), time.Now)
	cfg := testConfig()
	m := newModel(eng, cfg, testStyles(), time.Now)
	inR, inW := io.Pipe()
	defer inW.Close()
	var out, errOut syncBuffer
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		_ = run(context.Background(), eng, m, cfg, WithIO(inR, &out), WithSize(80, 24),
			WithEnv([]string{"TERM=xterm-256color"}), func(o *runOptions) { o.rt.Stderr = &errOut })
	}()
	eng.changed <- struct{}{}
	waitFor(t, "the first frame", func() bool { return strings.Contains(ansi.Strip(out.String()), "a1-title") })
	eng.mu.Lock()
	eng.panicOnSnapshot = true
	eng.mu.Unlock()
	eng.changed <- struct{}{}
	select {
	case r := <-done:
		if r == nil || !strings.Contains(fmt.Sprint(r), "snapshot exploded") {
			t.Fatalf("recovered %v, want the re-raised panic", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end after a panic")
	}
	if !strings.Contains(out.String(), "\x1b[?1049l") {
		t.Error("the alternate screen was not left")
	}
	if !strings.Contains(errOut.String(), "internal error, terminal restored: snapshot exploded") {
		t.Errorf("crash report = %q", errOut.String())
	}
}

// TestRedrawKeyRepaintsEverything checks prefix r: the screen is cleared
// and every row of the frame is sent again, though nothing changed.
func TestRedrawKeyRepaintsEverything(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	inW, out, done := startRun(t, ctx)
	defer func() {
		cancel()
		<-done
	}()
	waitFor(t, "the first frame", func() bool { return strings.Contains(ansi.Strip(out.String()), "building") })
	mark := len(out.String())
	if _, err := inW.Write([]byte("\x02r")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the redrawn frame", func() bool {
		after := out.String()[mark:]
		plain := ansi.Strip(after)
		return strings.Contains(after, "\x1b[2J") && strings.Contains(plain, "a1-title") &&
			strings.Contains(plain, "building") && strings.Contains(plain, "done?")
	})
}

// TestRunAsksTheTerminalsColours: with WithOuterColors the terminal is asked
// for its foreground and background after set-up, and its answers, which
// arrive as input whenever the terminal sends them, are handed on.
func TestRunAsksTheTerminalsColours(t *testing.T) {
	type answer struct{ fg, bg color.Color }
	got := make(chan answer, 4)
	inW, out, _ := startRun(t, context.Background(), WithOuterColors(func(fg, bg color.Color) { got <- answer{fg, bg} }))
	waitFor(t, "the colour query", func() bool { return strings.Contains(out.String(), seqQueryColors) })
	checkOrder(t, out.String(), []string{"\x1b[?1049h", seqQueryColors})
	if _, err := inW.Write([]byte("\x1b]11;rgb:ffff/fafa/f0f0\x1b\\\x1b]10;rgb:1010/2020/3030\a")); err != nil {
		t.Fatal(err)
	}
	rgb := func(c color.Color) [3]uint32 {
		r, g, b, _ := c.RGBA()
		return [3]uint32{r >> 8, g >> 8, b >> 8}
	}
	for _, want := range []struct {
		bg  bool
		rgb [3]uint32
	}{{true, [3]uint32{0xff, 0xfa, 0xf0}}, {false, [3]uint32{0x10, 0x20, 0x30}}} {
		select {
		case a := <-got:
			c, other := a.fg, a.bg
			if want.bg {
				c, other = a.bg, a.fg
			}
			if c == nil || other != nil || rgb(c) != want.rgb {
				t.Errorf("answer %+v, want background=%v %v", a, want.bg, want.rgb)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the terminal's answer was not handed on")
		}
	}
}

// TestRunDoesNotAskColoursUnasked: without WithOuterColors nothing is asked.
func TestRunDoesNotAskColoursUnasked(t *testing.T) {
	_, out, _ := startRun(t, context.Background())
	waitFor(t, "the first frame", func() bool { return strings.Contains(ansi.Strip(out.String()), "a1-title") })
	if strings.Contains(out.String(), "\x1b]11;?") {
		t.Error("the terminal was asked for its colours")
	}
}

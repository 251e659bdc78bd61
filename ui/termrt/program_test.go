package termrt

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// scriptModel answers keys with the command named by the key and records
// every message it gets.
type scriptModel struct {
	mu   sync.Mutex
	got  []string
	cv   Canvas
	gen  uint64
	text string
	boom bool
}

type note string

func (m *scriptModel) record(s string) {
	m.mu.Lock()
	m.got = append(m.got, s)
	m.mu.Unlock()
}

func (m *scriptModel) seen() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.got, " ")
}

func say(s string) tea.Cmd { return func() tea.Msg { return note(s) } }

func (m *scriptModel) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.record(fmt.Sprintf("size %dx%d", msg.Width, msg.Height))
		m.cv.Resize(msg.Width, msg.Height)
		m.cv.Text(0, 0, m.cv.W, m.text, Style{})
		m.gen++
	case note:
		m.record(string(msg))
		m.text = string(msg)
		m.cv.Resize(m.cv.W, m.cv.H)
		m.cv.Text(0, 0, m.cv.W, m.text, Style{})
		m.gen++
	case tea.KeyPressMsg:
		switch msg.String() {
		case "b":
			return tea.Batch(say("batch-1"), nil, say("batch-2"))
		case "s":
			slow := func() tea.Msg { time.Sleep(20 * time.Millisecond); return note("seq-1") }
			return tea.Sequence(slow, say("seq-2"), tea.Sequence(say("seq-3"), say("seq-4")))
		case "t":
			return tea.Tick(time.Millisecond, func(time.Time) tea.Msg { return note("tick") })
		case "r":
			return tea.Raw("\a")
		case "c":
			return tea.ClearScreen
		case "C":
			// A change and a repaint from the same key (prefix r).
			m.text = "cleared"
			m.cv.Resize(m.cv.W, m.cv.H)
			m.cv.Text(0, 0, m.cv.W, m.text, Style{})
			m.gen++
			return tea.ClearScreen
		case "p":
			return tea.Printf("lost %d", 1)
		case "w":
			return tea.RequestWindowSize
		case "x":
			m.boom = true
			panic("model exploded")
		case "q":
			return tea.Quit
		}
	}
	return nil
}

func (m *scriptModel) View() Frame { return Frame{Canvas: &m.cv, Gen: m.gen} }

// runScript runs a scriptModel over pipes at 20x3.
func runScript(t *testing.T, unhandled func(tea.Msg)) (*scriptModel, io.Writer, *syncBuffer, chan any) {
	t.Helper()
	m := &scriptModel{text: "hello"}
	inR, inW := io.Pipe()
	t.Cleanup(func() { inW.Close() })
	out := &syncBuffer{}
	done := make(chan any, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- r
			}
		}()
		done <- Run(context.Background(), m, Options{Input: inR, Output: out, Width: 20, Height: 3,
			Env: []string{"TERM=xterm-256color"}, Stderr: io.Discard, Modes: tea.View{AltScreen: true}, Unhandled: unhandled})
	}()
	waitFor(t, "the first frame", func() bool { return strings.Contains(out.String(), "hello") })
	return m, inW, out, done
}

// TestRuntimeCarriesOutCommands drives every command of the contract
// through a real program over pipes.
func TestRuntimeCarriesOutCommands(t *testing.T) {
	var mu sync.Mutex
	var lost []string
	m, in, out, done := runScript(t, func(msg tea.Msg) {
		mu.Lock()
		lost = append(lost, fmt.Sprintf("%T", msg))
		mu.Unlock()
	})
	key := func(k string) {
		t.Helper()
		if _, err := io.WriteString(in, k); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.seen(); got != "size 20x3" {
		t.Fatalf("first messages %q, want the size first", got)
	}
	key("b")
	waitFor(t, "both messages of the batch", func() bool {
		s := m.seen()
		return strings.Contains(s, "batch-1") && strings.Contains(s, "batch-2")
	})
	key("s")
	waitFor(t, "the sequence", func() bool { return strings.Contains(m.seen(), "seq-4") })
	if s := m.seen(); !strings.Contains(s, "seq-1 seq-2 seq-3 seq-4") {
		t.Errorf("sequence handled as %q, want its messages in order", s)
	}
	key("t")
	waitFor(t, "the tick", func() bool { return strings.Contains(m.seen(), "tick") })
	waitFor(t, "the frame of the tick", func() bool { return strings.Contains(out.String(), "tick") })

	mark := len(out.String())
	key("r")
	waitFor(t, "the raw bell", func() bool { return strings.Contains(out.String()[mark:], "\a") })
	mark = len(out.String())
	key("c")
	waitFor(t, "the repaint", func() bool {
		o := out.String()[mark:]
		return strings.Contains(o, "\x1b[2J") && strings.Contains(o, "tick")
	})

	key("p")
	key("w")
	waitFor(t, "both unsupported commands reported", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(lost) == 2
	})
	mu.Lock()
	// Commands run concurrently: the two may come in either order.
	if all := strings.Join(lost, " "); !strings.Contains(all, "printLineMessage") || !strings.Contains(all, "windowSizeMsg") {
		t.Errorf("unhandled = %v", lost)
	}
	mu.Unlock()

	key("q")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tea.Quit did not end Run")
	}
	if o := out.String(); !strings.HasSuffix(o, "\x1b[?1049l") || !strings.Contains(o, "\x1b[?25h") {
		t.Errorf("the terminal was not given back in reverse order: %q", o[max(len(o)-80, 0):])
	}
}

// TestClearScreenFromUpdateIsOneFrame: a key whose Update changes the
// frame and returns tea.ClearScreen (prefix r) gets one synchronized update
// that clears the screen and writes the new frame, not the changed cells
// first and every cell again once the command came back.
func TestClearScreenFromUpdateIsOneFrame(t *testing.T) {
	_, in, out, done := runScript(t, nil)
	mark := len(out.String())
	if _, err := io.WriteString(in, "C"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the frame of the key", func() bool {
		return strings.Contains(out.String()[mark:], seqSyncEnd)
	})
	o := out.String()[mark:]
	first := o[:strings.Index(o, seqSyncEnd)]
	if !strings.Contains(first, seqClear) || !strings.Contains(first, "cleared") {
		t.Fatalf("the key's first frame is %q, want the clear and the new text in it", first)
	}
	if _, err := io.WriteString(in, "q"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("tea.Quit did not end Run")
	}
	// Nothing was repainted after it.
	if n := strings.Count(out.String()[mark:], seqClear); n != 1 {
		t.Errorf("the screen was cleared %d times for one key, want once", n)
	}
}

// TestRuntimeRestoresTheTerminalOnPanic: a panic in Update gives the
// terminal back before it is re-raised.
func TestRuntimeRestoresTheTerminalOnPanic(t *testing.T) {
	_, in, out, done := runScript(t, nil)
	if _, err := io.WriteString(in, "x"); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if fmt.Sprint(r) != "model exploded" {
			t.Fatalf("Run ended with %v, want the re-raised panic", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a panic did not end Run")
	}
	if !strings.Contains(out.String(), "\x1b[?1049l") {
		t.Error("the alternate screen was not left")
	}
}

// TestSupported tells apart what a command may return.
func TestSupported(t *testing.T) {
	for _, c := range []struct {
		cmd  tea.Cmd
		want bool
	}{
		{tea.Quit, true}, {tea.ClearScreen, true}, {tea.Batch(say("a"), say("b")), true},
		{tea.Sequence(say("a"), say("b")), true}, {tea.Raw("x"), true}, {say("mine"), true},
		{tea.Printf("x"), false}, {tea.Println("x"), false}, {tea.RequestWindowSize, false},
		{tea.Suspend, false}, {tea.Interrupt, false},
	} {
		msg := c.cmd()
		if got := Supported(msg); got != c.want {
			t.Errorf("Supported(%T) = %v, want %v", msg, got, c.want)
		}
	}
}

// TestNewSizeRepaints: a size message repaints every cell by itself, the
// same size too (the outer terminal may have scrolled or reflowed while
// resizing); the session model relies on it and asks for no ClearScreen.
func TestNewSizeRepaints(t *testing.T) {
	m := &scriptModel{text: "hello"}
	inR, inW := io.Pipe()
	defer inW.Close()
	out := &syncBuffer{}
	started := make(chan *Program, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, m, Options{Input: inR, Output: out, Width: 20, Height: 3, Env: []string{"TERM=xterm-256color"},
			Stderr: io.Discard, Modes: tea.View{AltScreen: true}, Start: func(p *Program) { started <- p }})
	}()
	defer func() {
		cancel()
		<-done
	}()
	p := <-started
	waitFor(t, "the first frame", func() bool { return strings.Contains(out.String(), "hello") })
	mark := len(out.String())
	p.Send(tea.WindowSizeMsg{Width: 20, Height: 3})
	waitFor(t, "the repaint of the size", func() bool {
		o := out.String()[mark:]
		return strings.Contains(o, seqClear) && strings.Contains(o, "hello")
	})
}

// TestKeysBeforeTheFirstFrameWait: the input is decoded once the first
// frame is out; keys the terminal sent before it are read then, in order,
// not lost.
func TestKeysBeforeTheFirstFrameWait(t *testing.T) {
	m := &scriptModel{text: "hello"}
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, m, Options{Input: strings.NewReader("bt"), Output: out, Width: 20, Height: 3, Env: []string{"TERM=xterm-256color"},
			Stderr: io.Discard, Modes: tea.View{AltScreen: true}})
	}()
	defer func() {
		cancel()
		<-done
	}()
	waitFor(t, "the keys' messages", func() bool { return strings.Contains(m.seen(), "tick") })
	if s := m.seen(); !strings.HasPrefix(s, "size 20x3 batch-") {
		t.Errorf("messages %q, want the size, then the keys' commands", s)
	}
	waitFor(t, "the frame of the tick", func() bool { return strings.Contains(out.String(), "tick") })
}

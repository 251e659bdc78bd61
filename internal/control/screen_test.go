package control

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeScreen is a ScreenSource whose frames a test publishes; entered
// receives each wait's after, ended how each wait ended.
type fakeScreen struct {
	mu      sync.Mutex
	cur     ScreenFrame
	next    chan struct{}
	entered chan uint64
	ended   chan error
}

func newFakeScreen() *fakeScreen {
	return &fakeScreen{next: make(chan struct{}), entered: make(chan uint64, 16), ended: make(chan error, 16)}
}

func (f *fakeScreen) publish(lines ...string) {
	f.mu.Lock()
	f.cur = ScreenFrame{Seq: f.cur.Seq + 1, Cols: 10, Rows: len(lines), Lines: lines, Cursor: &ScreenCursor{X: 1, Y: 0}}
	close(f.next)
	f.next = make(chan struct{})
	f.mu.Unlock()
}

func (f *fakeScreen) NextFrame(ctx context.Context, after uint64) (ScreenFrame, error) {
	for {
		f.mu.Lock()
		cur, next := f.cur, f.next
		f.mu.Unlock()
		if cur.Seq > after {
			return cur, nil
		}
		f.entered <- after
		select {
		case <-next:
		case <-ctx.Done():
			f.ended <- ctx.Err()
			return cur, ctx.Err()
		}
	}
}

func startScreenServer(t *testing.T, scr ScreenSource) *Client {
	t.Helper()
	s, err := StartServer(filepath.Join(t.TempDir(), "s.sock"), newSockBackend(), ServerOptions{Session: "test", Screen: scr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	c, err := Dial(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestScreenWithoutSourceIsAnError(t *testing.T) {
	s, _ := startSockServer(t)
	c, err := Dial(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Screen(context.Background(), 0, 0)
	var re *RPCError
	if !errors.As(err, &re) || re.Code != CodeServerError || !strings.Contains(re.Message, "no screen to watch") {
		t.Fatalf("session.screen without a screen: %v, want a server error saying there is no screen", err)
	}
}

// TestScreenLongPoll checks session.screen's waiting: for the first frame,
// for a newer one, and the timeout that answers with the current frame.
func TestScreenLongPoll(t *testing.T) {
	scr := newFakeScreen()
	c := startScreenServer(t, scr)
	type got struct {
		f   ScreenFrame
		err error
	}
	ask := func(after uint64, timeout time.Duration) <-chan got {
		ch := make(chan got, 1)
		go func() {
			f, err := c.Screen(context.Background(), after, timeout)
			ch <- got{f, err}
		}()
		return ch
	}

	// No frame yet: the call waits for the first one.
	first := ask(0, 0)
	if a := sockRecv(t, scr.entered, "the first call to wait"); a != 0 {
		t.Fatalf("waited after %d, want 0", a)
	}
	scr.publish("hello", "world")
	g := sockRecv(t, first, "the first frame")
	if g.err != nil || g.f.Seq != 1 || strings.Join(g.f.Lines, "|") != "hello|world" || g.f.Cursor == nil || g.f.Cursor.X != 1 {
		t.Fatalf("first frame = %+v, %v", g.f, g.err)
	}

	// Nothing newer within the timeout: the current frame comes back.
	g = sockRecv(t, ask(1, 50*time.Millisecond), "the timed-out call")
	if g.err != nil || g.f.Seq != 1 {
		t.Fatalf("timed-out call = %+v, %v; want frame 1 again", g.f, g.err)
	}

	// A newer frame ends a wait for one.
	<-scr.entered // the timed-out call's wait
	second := ask(1, 0)
	if a := sockRecv(t, scr.entered, "the second call to wait"); a != 1 {
		t.Fatalf("waited after %d, want 1", a)
	}
	scr.publish("again")
	g = sockRecv(t, second, "the second frame")
	if g.err != nil || g.f.Seq != 2 || len(g.f.Lines) != 1 {
		t.Fatalf("second frame = %+v, %v", g.f, g.err)
	}

	// Bad params are refused with a sentence.
	var re *RPCError
	if err := c.Call(context.Background(), MethodSessionScreen, map[string]any{"after": "x"}, nil); !errors.As(err, &re) || re.Code != CodeInvalidParams {
		t.Fatalf("after as a string: %v, want invalid params", err)
	}
}

// TestScreenWatcherHangingUpEndsItsWait checks that a watcher that goes away
// costs nothing: its wait is cancelled at once.
func TestScreenWatcherHangingUpEndsItsWait(t *testing.T) {
	scr := newFakeScreen()
	scr.publish("x")
	s, err := StartServer(filepath.Join(t.TempDir(), "w.sock"), newSockBackend(), ServerOptions{Screen: scr})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rc := dialSockConn(t, s.Path())
	rc.send(`{"jsonrpc":"2.0","id":1,"method":"session.screen","params":{"after":1}}`)
	sockRecv(t, scr.entered, "the wait to start")
	_ = rc.c.Close()
	if err := sockRecv(t, scr.ended, "the wait to end"); !errors.Is(err, context.Canceled) {
		t.Fatalf("the wait ended with %v, want context.Canceled", err)
	}
}

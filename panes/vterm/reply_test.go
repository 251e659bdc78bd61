package vterm

import (
	"bytes"
	"fmt"
	"image/color"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// replySink collects replies written by the terminal's reply goroutine.
type replySink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *replySink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *replySink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor polls until the sink holds want (replies are asynchronous).
func (s *replySink) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if s.String() == want {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Errorf("reply: got %q want %q", s.String(), want)
}

func TestReplies(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"DA1", "\x1b[c", "\x1b[?62;22c"},
		{"DA1 zero", "\x1b[0c", "\x1b[?62;22c"},
		{"DA2", "\x1b[>c", "\x1b[>84;0;0c"},
		{"DSR 5", "\x1b[5n", "\x1b[0n"},
		{"CPR", "ab\r\nc\x1b[6n", "\x1b[2;2R"},
		{"CPR DECOM", "\x1b[3;5r\x1b[?6h\x1b[2;4H\x1b[6n", "\x1b[2;4R"},
		{"DECXCPR", "\x1b[3;3H\x1b[?6n", "\x1b[?3;3R"},
		{"DECRQM set", "\x1b[?2004h\x1b[?2004$p", "\x1b[?2004;1$y"},
		{"DECRQM reset", "\x1b[?1049$p", "\x1b[?1049;2$y"},
		{"DECRQM unknown", "\x1b[?9999$p", "\x1b[?9999;0$y"},
		{"DECRQM sync", "\x1b[?2026$p", "\x1b[?2026;2$y"},
		{"DECRQM graphemes settable", "\x1b[?2027$p", "\x1b[?2027;2$y"},
		{"DECRQM graphemes set", "\x1b[?2027h\x1b[?2027$p", "\x1b[?2027;1$y"},
		{"DECRQM ANSI IRM", "\x1b[4h\x1b[4$p", "\x1b[4;1$y"},
		{"XTVERSION", "\x1b[>q", "\x1bP>|agentgrid(" + Version + ")\x1b\\"},
		{"kitty query", "\x1b[>5u\x1b[?u", "\x1b[?5u"},
		{"OSC 10 BEL", "\x1b]10;?\a", "\x1b]10;rgb:c0c0/c0c0/c0c0\a"},
		{"OSC 11 ST", "\x1b]11;?\x1b\\", "\x1b]11;rgb:1010/2020/3030\x1b\\"},
		{"OSC 12", "\x1b]12;?\a", "\x1b]12;rgb:ffff/0000/0000\a"},
		{"DECRQSS cursor", "\x1bP$q q\x1b\\", "\x1bP1$r0 q\x1b\\"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sink := &replySink{}
			term := New(20, 5, WithReplyWriter(sink),
				WithColors(color.RGBA{0xc0, 0xc0, 0xc0, 0xff}, color.RGBA{0x10, 0x20, 0x30, 0xff}, color.RGBA{0xff, 0, 0, 0xff}))
			term.Write([]byte(c.in))
			sink.waitFor(t, c.want)
		})
	}
}

// blockingWriter never returns until released, like a child that stopped
// reading its terminal.
type blockingWriter struct{ release chan struct{} }

func (w *blockingWriter) Write(p []byte) (int, error) {
	<-w.release
	return len(p), nil
}

func TestRepliesNeverBlockWrite(t *testing.T) {
	w := &blockingWriter{release: make(chan struct{})}
	defer close(w.release)
	term := New(20, 5, WithReplyWriter(w))
	done := make(chan struct{})
	go func() {
		for i := 0; i < 20000; i++ {
			term.Write([]byte("\x1b[c\x1b[6n"))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Write blocked on a stuck reply writer")
	}
	term.reply.mu.Lock()
	n := len(term.reply.buf)
	term.reply.mu.Unlock()
	if n > maxReplyQueue {
		t.Errorf("reply queue grew to %d bytes", n)
	}
}

func TestCallbacks(t *testing.T) {
	var got []string
	var term *Terminal
	cb := Callbacks{
		Title: func(s string) {
			// Callbacks run without the lock held: calling back in must work.
			_ = term.Title()
			got = append(got, "title:"+s)
		},
		Cwd:        func(s string) { got = append(got, "cwd:"+s) },
		Bell:       func() { got = append(got, "bell") },
		Notify:     func(a, b string) { got = append(got, "notify:"+a+"/"+b) },
		PromptMark: func(k byte) { got = append(got, "mark:"+string(k)) },
		Clipboard:  func(sel, data string) { got = append(got, "clip:"+sel+"/"+data) },
	}
	term = New(20, 5, WithCallbacks(cb), WithClipboard(true))
	term.Write([]byte("\x1b]0;zero\a\x1b]2;two\x1b\\\x1b]1;icon\a\x1b]7;file://h/tmp\a\a\a" +
		"\x1b]9;hello\a\x1b]9;4;1;50\a\x1b]777;notify;T;B\a\x1b]99;;kitty\a\x1b]133;A\a\x1b]133;D;0\a\x1b]52;c;aGk=\a"))
	// One Write reports its last title, where the first one stood.
	want := []string{"title:two", "cwd:file://h/tmp", "bell", "notify:/hello", "notify:T/B",
		"notify:kitty/", "mark:A", "mark:D", "clip:c/aGk="}
	if len(got) != len(want) {
		t.Fatalf("callbacks:\n got %q\nwant %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("callback %d: got %q want %q", i, got[i], want[i])
		}
	}
	if term.Title() != "two" {
		t.Errorf("title %q", term.Title())
	}
	// Clipboard is ignored unless enabled.
	got = nil
	term = New(20, 5, WithCallbacks(cb))
	term.Write([]byte("\x1b]52;c;aGk=\a"))
	if len(got) != 0 {
		t.Errorf("clipboard without opt-in: %q", got)
	}
}

// TestDefaultColorsFollowChanges: terminals sharing DefaultColors report
// the colours held at the time of the query, so a session can start with
// its theme's and switch to the outer terminal's once that answers.
func TestDefaultColorsFollowChanges(t *testing.T) {
	dc := NewDefaultColors(color.Black, color.White)
	sink := &replySink{}
	term := New(20, 5, WithReplyWriter(sink), WithDefaultColors(dc),
		WithColors(color.RGBA{1, 2, 3, 0xff}, color.RGBA{4, 5, 6, 0xff}, nil))
	term.Write([]byte("\x1b]11;?\a\x1b]10;?\a"))
	sink.waitFor(t, "\x1b]11;rgb:ffff/ffff/ffff\a\x1b]10;rgb:0000/0000/0000\a")
	dc.Set(nil, color.RGBA{0x20, 0x30, 0x40, 0xff})
	term.Write([]byte("\x1b]11;?\a\x1b]10;?\a"))
	sink.waitFor(t, "\x1b]11;rgb:ffff/ffff/ffff\a\x1b]10;rgb:0000/0000/0000\a\x1b]11;rgb:2020/3030/4040\a\x1b]10;rgb:0000/0000/0000\a")
	// Colours never set fall back to WithColors.
	osink := &replySink{}
	other := New(20, 5, WithReplyWriter(osink), WithDefaultColors(&DefaultColors{}), WithColors(color.RGBA{1, 2, 3, 0xff}, nil, nil))
	other.Write([]byte("\x1b]10;?\a"))
	osink.waitFor(t, "\x1b]10;rgb:0101/0202/0303\a")
}

// TestKittyNotifyQueryIsNoNotification: OpenCode 1.18.33 asks at start
// whether the terminal shows OSC 99 notifications (the bytes below were
// recorded from it); a query is not a notification, which would have made
// the pane 'waiting' for a minute after every start.
func TestKittyNotifyQueryIsNoNotification(t *testing.T) {
	var got []string
	term := New(20, 5, WithCallbacks(Callbacks{Notify: func(a, b string) { got = append(got, a+"/"+b) }}))
	term.Write([]byte("\x1b]99;i=opentui-notifications:p=?;\x1b\\"))
	term.Write([]byte("\x1b]99;i=1:p=alive;\x1b\\\x1b]99;i=1:p=close;\x1b\\"))
	if len(got) != 0 {
		t.Errorf("queries were taken for notifications: %q", got)
	}
	term.Write([]byte("\x1b]99;i=2:p=title;Done\x1b\\"))
	if len(got) != 1 || got[0] != "Done/" {
		t.Errorf("a titled notification: %q", got)
	}
}

// TestCallbacksCoalesceAFlood: a program printing titles, bells and working
// directories in a loop costs one callback of each per Write (the last
// title and directory), not one per sequence, and the event list a Write
// used is reused by the next.
func TestCallbacksCoalesceAFlood(t *testing.T) {
	var titles, cwds []string
	bells, notices := 0, 0
	term := New(20, 5, WithCallbacks(Callbacks{
		Title:  func(s string) { titles = append(titles, s) },
		Cwd:    func(s string) { cwds = append(cwds, s) },
		Bell:   func() { bells++ },
		Notify: func(_, _ string) { notices++ },
	}))
	var flood strings.Builder
	for i := range 200 {
		fmt.Fprintf(&flood, "\x1b]2;title %d\a\a\x1b]7;file://h/%d\ax\a\x1b]9;n %d\a", i, i, i)
	}
	for w := range 3 {
		titles, cwds, bells, notices = nil, nil, 0, 0
		term.Write([]byte(flood.String()))
		if !slices.Equal(titles, []string{"title 199"}) || !slices.Equal(cwds, []string{"file://h/199"}) || bells != 1 {
			t.Fatalf("write %d: titles %q, cwds %q, %d bells; want the last title and cwd and one bell", w, titles, cwds, bells)
		}
		// Notifications are each reported (up to the bound of a Write).
		if notices != 200 {
			t.Fatalf("write %d: %d notifications, want 200", w, notices)
		}
	}
	if term.Title() != "title 199" {
		t.Fatalf("title %q", term.Title())
	}
	// One-letter notifications need no string of their own: a Write of
	// them allocates nothing once the first gave its list back.
	burst := []byte(strings.Repeat("\x1b]9;n\a", 200))
	if allocs := testing.AllocsPerRun(20, func() { term.Write(burst) }); allocs >= 1 {
		t.Fatalf("a Write of 200 notifications allocated %v times", allocs)
	}
}

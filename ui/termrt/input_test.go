package termrt

import (
	"context"
	"io"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestInputDecodes feeds raw terminal input through the reader and checks
// the messages the model receives.
func TestInputDecodes(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	msgs := make(chan tea.Msg, 16)
	in, err := startInput(ctx, r, "xterm-256color", func(m tea.Msg) { msgs <- m }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.stop()
	next := func() tea.Msg {
		t.Helper()
		select {
		case m := <-msgs:
			return m
		case <-time.After(5 * time.Second):
			t.Fatal("no message")
			return nil
		}
	}
	for _, c := range []struct {
		in   string
		want string
	}{
		{"\x1b[13;2u", "shift+enter"}, // kitty keyboard protocol
		{"\x02", "ctrl+b"},
		{"x", "x"},
	} {
		if _, err := io.WriteString(w, c.in); err != nil {
			t.Fatal(err)
		}
		k, ok := next().(tea.KeyPressMsg)
		if !ok || k.String() != c.want {
			t.Errorf("%q decoded as %v, want %s", c.in, k, c.want)
		}
	}
	if _, err := io.WriteString(w, "\x1b[200~two\nlines\x1b[201~"); err != nil {
		t.Fatal(err)
	}
	if p, ok := next().(tea.PasteMsg); !ok || p.Content != "two\nlines" {
		t.Errorf("bracketed paste decoded as %#v", p)
	}
	if _, err := io.WriteString(w, "\x1b[O\x1b[I"); err != nil {
		t.Fatal(err)
	}
	if m := next(); m != (tea.BlurMsg{}) {
		t.Errorf("focus out decoded as %#v", m)
	}
	if m := next(); m != (tea.FocusMsg{}) {
		t.Errorf("focus in decoded as %#v", m)
	}
	if _, err := io.WriteString(w, "\x1b[<0;5;3M"); err != nil {
		t.Fatal(err)
	}
	if m, ok := next().(tea.MouseClickMsg); !ok || m.X != 4 || m.Y != 2 || m.Button != tea.MouseLeft {
		t.Errorf("SGR mouse press decoded as %#v", m)
	}
	// A lone ESC is a key of its own once the decoder's short wait for
	// the rest of a sequence has passed.
	if _, err := io.WriteString(w, "\x1b"); err != nil {
		t.Fatal(err)
	}
	if k, ok := next().(tea.KeyPressMsg); !ok || k.String() != "esc" {
		t.Errorf("lone ESC decoded as %#v", k)
	}
}

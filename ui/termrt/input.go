package termrt

import (
	"context"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
)

// inputMsg turns a decoded input event into the message the model handles,
// or nil for events the model has no use for (replies to queries, key
// releases, which are never asked for).
func inputMsg(ev uv.Event) tea.Msg {
	switch ev := ev.(type) {
	case uv.KeyPressEvent:
		return tea.KeyPressMsg(ev)
	case uv.MouseClickEvent:
		return tea.MouseClickMsg(ev)
	case uv.MouseReleaseEvent:
		return tea.MouseReleaseMsg(ev)
	case uv.MouseMotionEvent:
		return tea.MouseMotionMsg(ev)
	case uv.MouseWheelEvent:
		return tea.MouseWheelMsg(ev)
	case uv.PasteEvent:
		return tea.PasteMsg(ev)
	case uv.FocusEvent:
		return tea.FocusMsg(ev)
	case uv.BlurEvent:
		return tea.BlurMsg(ev)
	case uv.ForegroundColorEvent:
		return tea.ForegroundColorMsg(ev)
	case uv.BackgroundColorEvent:
		return tea.BackgroundColorMsg(ev)
	case uv.DarkColorSchemeEvent:
		return ColorSchemeMsg{Light: false}
	case uv.LightColorSchemeEvent:
		return ColorSchemeMsg{Light: true}
	}
	return nil
}

// ColorSchemeMsg is the terminal's report of its light or dark colour
// scheme (CSI ? 997 ; 1 or 2 n), the answer to CSI ? 996 n or, with mode
// 2031 on, sent when the scheme changes.
type ColorSchemeMsg struct{ Light bool }

// inputReader decodes the terminal's input into messages for the event
// loop. Decoding is ultraviolet's: escape sequences, the kitty keyboard
// protocol, SGR mouse reports, bracketed paste assembled into one event,
// and a lone ESC told from the start of a sequence by a short timeout.
type inputReader struct {
	cr   cancelableReader
	done chan struct{} // closed when decoding has stopped
}

// startInput reads in until ctx ends or stop is called, sending each
// message with send. Decoding starts once after is closed (nil: at once);
// what arrives before waits in the input.
func startInput(ctx context.Context, in io.Reader, termType string, send func(tea.Msg), after <-chan struct{}) (*inputReader, error) {
	cr, err := uv.NewCancelReader(in)
	if err != nil {
		return nil, err
	}
	r := &inputReader{cr: cr, done: make(chan struct{})}
	events := make(chan uv.Event)
	go func() {
		defer close(r.done)
		// Built once the first frame is out: the decoder's table of key
		// sequences costs a fifth of a millisecond and 300 kB on a core
		// the first frame needs (an attach's), and the terminal's answers
		// to the set-up queries, which come before it, can wait for it.
		if after != nil {
			select {
			case <-after:
			case <-ctx.Done():
				return
			}
		}
		tr := uv.NewTerminalReader(cr, termType)
		// The error is the input ending (EOF, a cancelled read); the
		// session goes on without keys as it did before, until it is quit
		// another way.
		_ = tr.StreamEvents(ctx, events)
	}()
	go func() {
		// Keep taking events until decoding stops, even after ctx ended:
		// the decoder flushes what it holds on the way out and would block
		// on an unread channel.
		for {
			select {
			case ev := <-events:
				if msg := inputMsg(ev); msg != nil {
					send(msg)
				}
			case <-r.done:
				return
			}
		}
	}()
	return r, nil
}

// cancelableReader is the reader ultraviolet wraps the input in: on a
// terminal, Cancel interrupts a blocked read.
type cancelableReader interface {
	io.ReadCloser
	Cancel() bool
}

// stop stops reading, so that keys typed after agentgrid ends go to the
// shell, and releases the reader. A reader that cannot interrupt its read
// (not a terminal) is left to end with its input.
func (r *inputReader) stop() {
	if r.cr.Cancel() {
		select {
		case <-r.done:
		case <-time.After(500 * time.Millisecond):
			// The read did not return although the cancel said it would;
			// restoring the terminal matters more than this goroutine.
		}
	}
	_ = r.cr.Close()
}

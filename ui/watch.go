package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/charmbracelet/x/ansi"
)

// watchFPS caps the frames a watcher asks for each second.
const watchFPS = 30

// FrameSource fetches the session's first frame after seq after (0: the
// current one), waiting for it: a control-socket client's Screen method.
type FrameSource func(ctx context.Context, after uint64) (control.ScreenFrame, error)

// ErrSessionEnded is what Watch returns when the watched session went away.
var ErrSessionEnded = errors.New("the session ended")

// watchFrameMsg carries a frame of the watched session to the loop.
type watchFrameMsg struct{ f control.ScreenFrame }

// watchEndMsg says the frames stopped coming, and why.
type watchEndMsg struct{ err error }

// Watch shows a session's screen in this terminal, read-only, until the user
// presses q, esc or ctrl+c, ctx ends, or the session ends (ErrSessionEnded).
// The session's frames are shown from their top left corner; a terminal
// smaller than the session's shows a cropped view and says so in the bottom
// line. Keys never reach the session, and the mouse is left to the terminal
// (so text can be selected and copied).
func Watch(ctx context.Context, session string, next FrameSource, options ...Option) (err error) {
	opts := runOptions{stderr: os.Stderr}
	for _, o := range options {
		o(&opts)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	l := &loop{ctx: ctx, msgs: make(chan tea.Msg)}
	// No mouse reporting: the mouse stays the terminal's, to select text.
	width, height, restore, err := l.takeTerminal(cancel, &opts, tea.View{AltScreen: true, WindowTitle: "agentgrid watch " + session})
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer restore() // also while a panic unwinds
	go func() {
		var after uint64
		for {
			asked := time.Now()
			f, err := next(ctx, after)
			if err != nil {
				l.send(watchEndMsg{err: err})
				return
			}
			after = f.Seq
			l.send(watchFrameMsg{f: sanitizeFrame(f)})
			// At most watchFPS frames a second: while the session floods,
			// watchers skip frames instead of making it encode every one.
			if wait := time.Second/watchFPS - time.Since(asked); wait > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait):
				}
			}
		}
	}()

	var cur *control.ScreenFrame
	draw := func(repaint bool) {
		l.scr.show(watchView(cur, session, width, height), repaint)
	}
	draw(true)
	for {
		select {
		case <-ctx.Done():
			return nil
		case msg := <-l.msgs:
			switch msg := msg.(type) {
			case tea.KeyPressMsg:
				switch msg.String() {
				case "q", "esc", "ctrl+c":
					return nil
				}
			case tea.WindowSizeMsg:
				if msg.Width > 0 && msg.Height > 0 {
					width, height = msg.Width, msg.Height
					draw(true)
				}
			case watchFrameMsg:
				f := msg.f
				cur = &f
				draw(false)
			case watchEndMsg:
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("%w: %v", ErrSessionEnded, msg.err)
			}
		}
	}
}

// maxWatchLines bounds the rows of a frame the watcher looks at.
const maxWatchLines = 1000

// sanitizeFrame keeps of f's lines only what is safe to write to this
// terminal (SanitizeLine): the frame comes from a socket, and whoever
// answers there could otherwise set the clipboard, the window title or pass
// sequences through to an outer tmux.
func sanitizeFrame(f control.ScreenFrame) control.ScreenFrame {
	lines := f.Lines[:min(len(f.Lines), maxWatchLines)]
	f.Lines = make([]string, len(lines))
	for i, l := range lines {
		f.Lines[i] = SanitizeLine(l, true)
	}
	return f
}

// watchView is the watcher's screen for frame f (nil before the first one)
// in a width x height terminal: the session's rows from the top left,
// cropped or padded to the width, and a bottom line that names the session
// and says how to stop.
func watchView(f *control.ScreenFrame, session string, width, height int) frame {
	if width <= 0 || height <= 0 {
		return frame{}
	}
	rows := make([]string, 0, height)
	body := height - 1
	info := fmt.Sprintf(" watching %s, read-only · q to stop", session)
	if f == nil {
		info = fmt.Sprintf(" waiting for the first frame of %s · q to stop", session)
	}
	var cursor *tea.Cursor
	if f != nil {
		for y := 0; y < body && y < len(f.Lines); y++ {
			rows = append(rows, fitLine(f.Lines[y], width))
		}
		if f.Cols > width || f.Rows > body {
			info += fmt.Sprintf(" · cropped: the session is %dx%d, enlarge this terminal to %dx%d", f.Cols, f.Rows, f.Cols, f.Rows+1)
		}
		if c := f.Cursor; c != nil && c.X >= 0 && c.Y >= 0 && c.X < width && c.Y < body {
			cursor = tea.NewCursor(c.X, c.Y)
		}
	}
	for len(rows) < body {
		rows = append(rows, strings.Repeat(" ", width))
	}
	info = ansi.Truncate(info, width, "…")
	info += strings.Repeat(" ", max(width-ansi.StringWidth(info), 0))
	rows = append(rows, "\x1b[7m"+info+sgrReset)
	return frame{content: strings.Join(rows, "\n"), cursor: cursor, mouse: tea.MouseModeNone}
}

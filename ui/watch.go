package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/ui/termrt"
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
// line; one of the session's own size shows all of it. Keys never reach the session, and the mouse is left to the terminal
// (so text can be selected and copied).
func Watch(ctx context.Context, session string, next FrameSource, opt ...Option) error {
	opts := options(opt)
	// No mouse reporting: the mouse stays the terminal's, to select text.
	opts.rt.Modes = tea.View{AltScreen: true, WindowTitle: "agentgrid watch " + session}
	opts.rt.Start = func(p *termrt.Program) {
		p.Go("the watcher's frame source", func() { fetchFrames(p, next) })
	}
	w := &watcher{session: session}
	if err := termrt.Run(ctx, w, opts.rt); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	if w.err != nil && ctx.Err() == nil {
		return fmt.Errorf("%w: %v", ErrSessionEnded, w.err)
	}
	return nil
}

// fetchFrames sends the session's frames to the watcher as they come, at
// most watchFPS a second: while the session floods, watchers skip frames
// instead of making it encode every one.
func fetchFrames(p *termrt.Program, next FrameSource) {
	ctx := p.Context()
	var after uint64
	for {
		asked := time.Now()
		f, err := next(ctx, after)
		if err != nil {
			p.Send(watchEndMsg{err: err})
			return
		}
		after = f.Seq
		p.Send(watchFrameMsg{f: sanitizeFrame(f)})
		if wait := time.Second/watchFPS - time.Since(asked); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
	}
}

// watcher is the read-only view of a session, a program of the terminal
// runtime.
type watcher struct {
	session       string
	cur           *control.ScreenFrame // nil before the first frame
	width, height int
	view          termrt.Frame
	err           error // why the frames stopped
}

// Update handles keys (q, esc and ctrl+c stop), resizes and frames.
func (w *watcher) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch msg.String() {
		case "q", "esc", "ctrl+c":
			return tea.Quit
		}
		return nil
	case tea.WindowSizeMsg:
		w.width, w.height = msg.Width, msg.Height
	case watchFrameMsg:
		f := msg.f
		w.cur = &f
	case watchEndMsg:
		w.err = msg.err
		return tea.Quit
	default:
		return nil
	}
	gen := w.view.Gen
	w.view = watchView(w.cur, w.session, w.width, w.height)
	w.view.Gen = gen + 1
	return nil
}

// View returns the frame drawn at the last change.
func (w *watcher) View() termrt.Frame { return w.view }

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
// and says how to stop. A terminal of the session's own size shows all of
// it: the bottom line is the session's status line, with the watcher's
// label at its right end where the line leaves room. The rows, sanitized to text and
// SGR, are turned into cells by a scratch terminal.
func watchView(f *control.ScreenFrame, session string, width, height int) termrt.Frame {
	if width <= 0 || height <= 0 {
		return termrt.Frame{Canvas: &termrt.Canvas{}}
	}
	cv := &termrt.Canvas{}
	cv.Resize(width, height)
	body := height - 1
	info := fmt.Sprintf(" watching %s, read-only · q to stop", session)
	if f == nil {
		info = fmt.Sprintf(" waiting for the first frame of %s · q to stop", session)
	}
	bar := termrt.Style{Attrs: vterm.AttrReverse}
	var cursor *tea.Cursor
	var status []vterm.Cell // the session's status line, after a short label
	if f != nil {
		n := min(body, len(f.Lines))
		for y, r := range sessionRows(f.Lines[:n], width) {
			cv.Put(y, 0, width, r)
		}
		switch {
		case f.Cols > width || f.Rows > height:
			// The hint comes first so that a narrow terminal still shows
			// the size it needs.
			info = fmt.Sprintf(" cropped: enlarge this terminal to %dx%d · watching %s, read-only · q to stop", f.Cols, f.Rows, session)
		case f.Rows == height && len(f.Lines) == f.Rows:
			last := f.Lines[f.Rows-1]
			status = sessionRows([]string{last}, width)[0]
			used := ansi.StringWidth(strings.TrimRight(ansi.Strip(last), " "))
			info = ""
			for _, label := range []string{info + " watching " + session + ", read-only · q to stop ", " " + session + " · q ", " q "} {
				if used+1+ansi.StringWidth(label) <= width {
					info = label
					break
				}
			}
		}
		if c := f.Cursor; c != nil && c.X >= 0 && c.Y >= 0 && c.X < width && c.Y < body {
			cursor = tea.NewCursor(c.X, c.Y)
		}
	}
	if status != nil {
		// The session's status line, and the label at its right end where
		// the line leaves room.
		cv.Put(height-1, 0, width, status)
		if info != "" {
			cv.Text(height-1, width-ansi.StringWidth(info), width, info, bar)
		}
		return termrt.Frame{Canvas: cv, Cursor: cursor, Mouse: tea.MouseModeNone}
	}
	info = ansi.Truncate(info, width, "…")
	cv.Fill(height-1, 0, width, bar.Cell(" ", 1))
	cv.Text(height-1, 0, width, info, bar)
	return termrt.Frame{Canvas: cv, Cursor: cursor, Mouse: tea.MouseModeNone}
}

// sessionRows turns sanitized session rows into cells, each cropped or
// padded to width, through a scratch terminal.
func sessionRows(lines []string, width int) [][]vterm.Cell {
	if len(lines) == 0 || width <= 0 {
		return nil
	}
	t := vterm.New(width, len(lines), vterm.WithScrollback(0))
	var b []byte
	for y, l := range lines {
		b = fmt.Appendf(b, "\x1b[%dH%s", y+1, sgrReset)
		b = append(b, fitLine(l, width)...)
	}
	_, _ = t.Write(b)
	var fr vterm.Frame
	t.Frame(&fr, 0)
	return fr.Cells
}

package ui

import (
	"context"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// Mirror keeps the last frame the session drew, for the control socket's
// session.screen (agentgrid watch is attach --read-only and does not use
// it). The UI hands it each
// frame it shows; that costs a copy of the rows that changed, and the frame
// is turned into lines of styled text only when a watcher asks for it.
type Mirror struct {
	mu     sync.Mutex
	seq    uint64
	cv     termrt.Canvas
	src    *termrt.Canvas // the session's canvas cv was last copied from
	lines  []string       // cv as text, made on the first request for this seq
	cursor *control.ScreenCursor
	// next is closed when a newer frame arrives, then replaced.
	next chan struct{}
}

// NewMirror returns a mirror with no frame yet.
func NewMirror() *Mirror { return &Mirror{next: make(chan struct{})} }

// publish records the frame now on the session's terminal.
func (m *Mirror) publish(cv *termrt.Canvas, c *tea.Cursor) {
	var cur *control.ScreenCursor
	if c != nil {
		cur = &control.ScreenCursor{X: c.X, Y: c.Y}
	}
	m.mu.Lock()
	m.seq++
	if cv == m.src {
		m.cv.CopyDirty(cv)
	} else {
		m.cv.CopyFrom(cv)
	}
	m.src = cv
	m.lines, m.cursor = nil, cur
	close(m.next)
	m.next = make(chan struct{})
	m.mu.Unlock()
}

// NextFrame implements control.ScreenSource.
func (m *Mirror) NextFrame(ctx context.Context, after uint64) (control.ScreenFrame, error) {
	for {
		m.mu.Lock()
		if m.seq > 0 && m.lines == nil {
			m.lines = make([]string, m.cv.H)
			var b []byte
			for y := range m.lines {
				b = termrt.AppendRowText(b[:0], m.cv.Row(y))
				m.lines[y] = string(b)
			}
		}
		seq, lines, cols, rows, cur, next := m.seq, m.lines, m.cv.W, m.cv.H, m.cursor, m.next
		m.mu.Unlock()
		f := control.ScreenFrame{Seq: seq, Cols: cols, Rows: rows, Cursor: cur, Lines: lines}
		if seq > after {
			return f, nil
		}
		select {
		case <-next:
		case <-ctx.Done():
			return f, ctx.Err()
		}
	}
}

// WithMirror makes Run hand every frame it shows to m.
func WithMirror(m *Mirror) Option {
	return func(o *runOptions) { o.mirror = m }
}

package ui

import (
	"context"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/agentgrid/agentgrid/internal/control"
)

// Mirror keeps the last frame the session drew, for watchers (agentgrid
// watch, through the control socket's session.screen). The UI hands it each
// frame it shows; that costs a pointer store and no work at all while
// nobody watches: a frame is split into lines only when asked for.
type Mirror struct {
	mu      sync.Mutex
	seq     uint64
	content string
	cols    int
	rows    int
	cursor  *control.ScreenCursor
	// next is closed when a newer frame arrives, then replaced.
	next chan struct{}
}

// NewMirror returns a mirror with no frame yet.
func NewMirror() *Mirror { return &Mirror{next: make(chan struct{})} }

// publish records the frame now on the session's terminal.
func (m *Mirror) publish(content string, cols, rows int, c *tea.Cursor) {
	var cur *control.ScreenCursor
	if c != nil {
		cur = &control.ScreenCursor{X: c.X, Y: c.Y}
	}
	m.mu.Lock()
	m.seq++
	m.content, m.cols, m.rows, m.cursor = content, cols, rows, cur
	close(m.next)
	m.next = make(chan struct{})
	m.mu.Unlock()
}

// NextFrame implements orchestrator.ScreenSource.
func (m *Mirror) NextFrame(ctx context.Context, after uint64) (control.ScreenFrame, error) {
	for {
		m.mu.Lock()
		seq, content, cols, rows, cur, next := m.seq, m.content, m.cols, m.rows, m.cursor, m.next
		m.mu.Unlock()
		f := control.ScreenFrame{Seq: seq, Cols: cols, Rows: rows, Cursor: cur}
		if seq > 0 {
			f.Lines = strings.Split(content, "\n")
		}
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

package vterm

import (
	"io"
	"sync"
)

// event is a callback to run once the lock is released.
type event struct {
	kind byte // 't' title, 'c' cwd, 'b' bell, 'n' notify, 'p' prompt mark, 'y' clipboard
	a, b string
	mark byte
}

// maxPendingEvents bounds the callbacks queued by one Write so a flood of
// notifications or prompt marks cannot grow memory.
const maxPendingEvents = 256

// coalesced returns the pendingAt slot of an event kind reported at most
// once per Write, or -1: only the last title and working directory count,
// and one bell says what many do. A pane printing them in a loop then
// costs one callback each per Write, not one per sequence.
func coalesced(kind byte) int {
	switch kind {
	case 't':
		return 0
	case 'c':
		return 1
	case 'b':
		return 2
	}
	return -1
}

func (t *Terminal) emit(e event) {
	slot := coalesced(e.kind)
	if slot >= 0 && t.pendingAt[slot] > 0 {
		// The latest wins, where the first one stood.
		t.events[t.pendingAt[slot]-1] = e
		return
	}
	if len(t.events) >= maxPendingEvents {
		return
	}
	t.events = append(t.events, e)
	if slot >= 0 {
		t.pendingAt[slot] = len(t.events)
	}
}

func (t *Terminal) dispatch(evs []event) {
	cb := t.cfg.callbacks
	for _, e := range evs {
		switch e.kind {
		case 't':
			if cb.Title != nil {
				cb.Title(e.a)
			}
		case 'c':
			if cb.Cwd != nil {
				cb.Cwd(e.a)
			}
		case 'b':
			if cb.Bell != nil {
				cb.Bell()
			}
		case 'n':
			if cb.Notify != nil {
				cb.Notify(e.a, e.b)
			}
		case 'p':
			if cb.PromptMark != nil {
				cb.PromptMark(e.mark)
			}
		case 'y':
			if cb.Clipboard != nil {
				cb.Clipboard(e.a, e.b)
			}
		}
	}
}

// maxReplyQueue bounds the replies waiting for a slow reader; beyond it
// replies are dropped (a child flooding queries gets fewer answers).
const maxReplyQueue = 64 << 10

// replyQueue writes replies to the child on its own goroutine, started on
// first use and exiting when the queue drains, so Write never blocks.
type replyQueue struct {
	w       io.Writer
	mu      sync.Mutex
	buf     []byte
	running bool
}

func newReplyQueue(w io.Writer) *replyQueue { return &replyQueue{w: w} }

func (q *replyQueue) send(b []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.buf)+len(b) > maxReplyQueue {
		return
	}
	q.buf = append(q.buf, b...)
	if !q.running {
		q.running = true
		go q.run()
	}
}

func (q *replyQueue) run() {
	var out []byte
	for {
		q.mu.Lock()
		if len(q.buf) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		out, q.buf = q.buf, out[:0]
		q.mu.Unlock()
		if _, err := q.w.Write(out); err != nil {
			// The child is gone or its PTY closed; drop what is queued.
			q.mu.Lock()
			q.buf = q.buf[:0]
			q.mu.Unlock()
		}
	}
}

// respond queues a reply to the child.
func (t *Terminal) respond(b []byte) {
	if t.reply != nil {
		t.reply.send(b)
	}
}

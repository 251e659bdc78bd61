package ui

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/themes"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// Hub serves a session's attached terminals (control.Attacher): each
// client gets its own Model and termrt Program at its own size, its input
// from the client's bytes and its output into the client's stream. The
// engine's pokes are fanned out to every client's frame pump.
//
// Sizes follow the client that typed last (tmux's window-size latest): the
// engine's area, so the panes' PTY sizes, is that client's; every other
// client lays the same panes out at its own size and draws each pane's
// screen into its own box (see localize). Each client has its own focus
// and zoom: the engine's are those of the client it follows, and a
// read-write client that types becomes that client, its view going to
// the engine (activate).
type Hub struct {
	cfg    config.Config
	styles themes.Styles
	opts   []Option

	eng    *orchestrator.Engine
	ctx    context.Context
	cancel context.CancelFunc
	quit   chan struct{}
	once   sync.Once
	fan    sync.Once
	first  atomic.Bool // a client attached: the next is not the first
	// released is closed once the session is gone: a client that did not
	// leave on its own gets its exit message then, so its terminal comes
	// back when the session's name is free again.
	released chan struct{}

	switchMu sync.Mutex // one change of the followed client at a time

	mu      sync.Mutex
	clients []*client // in attach order
	active  *client   // the read-write client that typed last
	wg      sync.WaitGroup
}

// client is one attached terminal.
type client struct {
	readOnly bool
	// The frame pump's channels, poked by the hub's fan-out (cap 1).
	changed, urgent, fresh, news chan struct{}
	// area is the client's pane area (cols<<32 | rows).
	area atomic.Uint64
	// A read-only client's own focus ("" follows the engine's) and zoom.
	mu    sync.Mutex
	focus string
	zoom  bool
}

// NewHub returns a hub for a session with this config and theme; opts
// apply to every client's program (WithOuterColors, WithBuffers). Bind
// gives it the engine before the first client attaches.
func NewHub(cfg config.Config, styles themes.Styles, opts ...Option) *Hub {
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub{cfg: cfg, styles: styles, opts: opts, ctx: ctx, cancel: cancel, quit: make(chan struct{}), released: make(chan struct{})}
}

// Bind sets the engine the clients show.
func (h *Hub) Bind(eng *orchestrator.Engine) { h.eng = eng }

// Quit is closed when a client quit the session (ctrl+b q).
func (h *Hub) Quit() <-chan struct{} { return h.quit }

// Close ends every client's program: their terminals get their modes
// back at once. Each learns why with Release.
func (h *Hub) Close() { h.cancel() }

// Release, once the session is gone, sends every client its exit message
// and waits (up to a bound) until they all got it.
func (h *Hub) Release() {
	h.cancel()
	select {
	case <-h.released:
	default:
		close(h.released)
	}
	done := make(chan struct{})
	go func() { h.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
}

// Clients implements control.Attacher.
func (h *Hub) Clients() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}

// Exit reasons sent to a client with its last frame.
const (
	ExitDetached = "detached"
	ExitQuit     = "quit"
	ExitEnded    = "ended"
)

// Attach implements control.Attacher: it runs a client's program until the
// client detaches or goes away, or the session ends.
func (h *Hub) Attach(ctx context.Context, s *control.AttachStream, p control.AttachParams) {
	if h.eng == nil {
		_ = s.WriteFrame(control.FrameExit, []byte(ExitEnded))
		return
	}
	h.wg.Add(1)
	defer h.wg.Done()
	h.fan.Do(func() { go h.fanOut() })
	c := &client{readOnly: p.ReadOnly, changed: make(chan struct{}, 1), urgent: make(chan struct{}, 1), fresh: make(chan struct{}, 1), news: make(chan struct{}, 1)}
	if !p.ReadOnly {
		// A read-write client starts with the view the session has.
		s := h.eng.Snapshot()
		c.focus, c.zoom = s.Focus, s.Zoomed
	}
	c.area.Store(uint64(p.Cols)<<32 | uint64(max(p.Rows-1, 0)))
	h.add(c)
	defer h.remove(c)

	ce := &clientEngine{Engine: h.eng, h: h, c: c}
	m := newModel(ce, h.cfg, h.styles, time.Now)
	m.attached, m.readOnly = true, p.ReadOnly

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(h.ctx, cancel)
	defer stop()
	// Keystrokes wake their reader at once, however busy floods keep Go
	// (and while nothing floods, the wait costs nothing).
	ro := options(h.opts)
	s.WakeOnInput(ctx, ro.flooding)
	if ro.onFloodStart != nil {
		defer ro.onFloodStart(s.Rewait)()
	}

	pr, pw := io.Pipe()
	var prog atomic.Pointer[termrt.Program]
	var early atomic.Uint64 // a size that came before the program started
	var left atomic.Bool    // the client detached or hung up
	go func() {
		defer cancel()
		defer func() { _ = pw.Close() }()
		var buf []byte
		for {
			typ, payload, err := s.ReadFrame(buf)
			if err != nil {
				// Once ctx ended the reads were shut here (WakeOnInput):
				// the client did not leave, it is being let go.
				if ctx.Err() == nil {
					left.Store(true)
				}
				return
			}
			buf = payload[:0]
			switch typ {
			case control.FrameInput:
				if !c.readOnly {
					h.activate(c)
				}
				if _, err := pw.Write(payload); err != nil {
					return
				}
			case control.FrameResize:
				if cols, rows, ok := control.ParseResize(payload); ok && cols > 0 && rows > 0 {
					early.Store(uint64(cols)<<32 | uint64(rows))
					if p := prog.Load(); p != nil {
						p.Send(tea.WindowSizeMsg{Width: cols, Height: rows})
					}
				}
			case control.FrameDetach:
				left.Store(true)
				return
			}
		}
	}()

	opts := append([]Option{}, h.opts...)
	if !h.first.CompareAndSwap(false, true) {
		// --record records the terminal that started the session.
		opts = append(opts, WithRecord(""))
	}
	opts = append(opts, WithIO(pr, s), WithSize(p.Cols, p.Rows), WithEnv(p.Env), WithRemoteTerminal(),
		func(o *runOptions) {
			o.started = func(p *termrt.Program) {
				prog.Store(p)
				if v := early.Load(); v != 0 {
					// Delivered once the loop runs; the same size again
					// after it is harmless.
					go p.Send(tea.WindowSizeMsg{Width: int(v >> 32), Height: int(uint32(v))})
				}
			}
		})
	err := run(ctx, ce, m, h.cfg, opts...)
	_ = pr.CloseWithError(io.EOF)
	reason := ExitEnded
	switch {
	case m.quitting:
		reason = ExitQuit
		h.once.Do(func() { close(h.quit) })
	case m.detached || left.Load():
		reason = ExitDetached
	case err != nil && !errors.Is(err, context.Canceled):
		reason = ExitEnded
	default:
		select {
		case <-h.quit:
			reason = ExitQuit
		default:
		}
	}
	if reason != ExitDetached {
		// The client's terminal is restored; its prompt comes back once
		// the session is really gone (its agents ended, its name free).
		select {
		case <-h.released:
		case <-time.After(releaseWait):
		}
	}
	_ = s.WriteFrame(control.FrameExit, []byte(reason))
	_ = s.Close()
}

// releaseWait bounds how long a client waits for the session's end after
// its program ended (the shutdown's own bound is shorter).
const releaseWait = time.Minute

// add registers c; the first client sets the engine's size.
func (h *Hub) add(c *client) {
	h.mu.Lock()
	h.clients = append(h.clients, c)
	first := h.active == nil && !c.readOnly
	if first {
		h.active = c
	}
	h.mu.Unlock()
	if first {
		h.applySize(c)
	}
}

// remove forgets c; when it was the active client, the last read-write
// client attached takes over the size.
func (h *Hub) remove(c *client) {
	h.mu.Lock()
	for i, o := range h.clients {
		if o == c {
			h.clients = append(h.clients[:i], h.clients[i+1:]...)
			break
		}
	}
	var next *client
	if h.active == c {
		h.active = nil
		for i := len(h.clients) - 1; i >= 0; i-- {
			if !h.clients[i].readOnly {
				next = h.clients[i]
				break
			}
		}
		h.active = next
	}
	h.mu.Unlock()
	if next != nil {
		h.applySize(next)
	}
}

// activate makes c the client whose size the panes follow.
//
// The client that was followed keeps the focus and zoom it showed; c's
// own go to the engine, so the panes' sizes, the zoom and the fast poke
// for the focused pane's output are c's.
func (h *Hub) activate(c *client) {
	h.switchMu.Lock()
	defer h.switchMu.Unlock()
	h.mu.Lock()
	prev := h.active
	h.active = c
	h.mu.Unlock()
	if prev == c {
		return
	}
	s := h.eng.Snapshot()
	if prev != nil {
		prev.mu.Lock()
		prev.focus, prev.zoom = s.Focus, s.Zoomed
		prev.mu.Unlock()
	}
	h.applySize(c)
	c.mu.Lock()
	focus, zoom := c.focus, c.zoom
	c.mu.Unlock()
	if focus != "" && focus != s.Focus && hasPane(s, focus) {
		h.eng.Focus(focus)
		s = h.eng.Snapshot()
	}
	if zoom != s.Zoomed {
		h.eng.ToggleZoom()
	}
}

func (h *Hub) isActive(c *client) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.active == c
}

// applySize gives the engine c's pane area.
func (h *Hub) applySize(c *client) {
	v := c.area.Load()
	h.eng.Resize(int(v>>32), int(uint32(v)))
}

// fanOut copies the engine's pokes to every client's pump until the
// session ends.
func (h *Hub) fanOut() {
	var status <-chan struct{}
	if st := h.eng.Status(); st != nil {
		status = st.Changed()
	}
	changed, urgent, fresh, news := h.eng.Changed(), h.eng.FocusOutput(), h.eng.AwaitedOutput(), h.eng.StateChanged()
	for {
		pick := func(c *client) chan struct{} { return c.changed }
		select {
		case <-h.ctx.Done():
			return
		case <-changed:
		case <-status:
		case <-urgent:
			pick = func(c *client) chan struct{} { return c.urgent }
		case <-news:
			pick = func(c *client) chan struct{} { return c.news }
		case <-fresh:
			pick = func(c *client) chan struct{} { return c.fresh }
		}
		h.mu.Lock()
		for _, c := range h.clients {
			select {
			case pick(c) <- struct{}{}:
			default:
			}
		}
		h.mu.Unlock()
	}
}

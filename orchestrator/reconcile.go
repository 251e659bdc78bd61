package orchestrator

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/panes"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// offscreenCols and offscreenRows size the PTY of an agent that runs
// before it has a slot.
const (
	offscreenCols = 80
	offscreenRows = 24
)

// reconcile is one Query -> Decide -> Execute -> Update pass.
func (e *Engine) reconcile() {
	s := &e.st
	// Query.
	area := layout.Rect{W: s.cols, H: s.rows}
	opts := e.layoutOptions(-1)
	s.capacity = layout.Capacity(area, opts)
	ws := WindowState{Now: e.now(), Capacity: s.capacity, Show: s.show, Focus: s.focus}
	for _, id := range s.visible {
		a := s.agents[id]
		// A pane lingers from when it was seen finished: an agent that ended
		// off screen gets its full linger once placed.
		shown := a.ended
		if a.placed.After(shown) {
			shown = a.placed
		}
		ws.Visible = append(ws.Visible, SlotAgent{ID: id, Seq: a.seq, Finished: a.f.State.Finished(), Ended: shown, Box: a.gridBox})
	}
	for _, q := range s.queue.Entries() {
		ws.Queue = append(ws.Queue, QueuedAgent{ID: q.ID, Seq: q.Seq, Finished: s.agents[q.ID].f.State.Finished()})
	}
	s.show = ""

	// Decide.
	d := decideSpawnActions(ws, DecideConfig{
		FinishedLinger: e.lingerFor(),
		Slots:          func(n int) []layout.Rect { return layout.Compute(area, n, opts).Slots },
	})

	// Execute and Update: only what succeeded changes the registry.
	var demoted []queueEntry
	for _, act := range d.Actions {
		a := s.agents[act.Agent]
		if a == nil {
			continue
		}
		switch act.Kind {
		case ActDefer:
			a.reason = act.Reason
			if a.visible {
				a.visible, a.box, a.gridBox = false, layout.Rect{}, layout.Rect{}
				a.queued = true
				demoted = append(demoted, queueEntry{ID: a.id, Seq: a.seq, Since: e.now(), Reason: act.Reason})
			} else {
				s.queue.SetReason(a.id, act.Reason)
			}
		case ActClose:
			// A finished agent placed and reclaimed in the same pass comes
			// straight from the queue.
			s.queue.Remove(a.id)
			a.queued, a.visible, a.box, a.gridBox = false, false, layout.Rect{}, layout.Rect{}
			e.log.Info("pane reclaimed", "agent", a.id, "why", act.Reason)
			e.bus.Publish(hooks.Event{Type: hooks.EventAgentClosed, Time: e.now(), Session: e.opts.Session, Agent: a.ref("")})
		case ActPlace:
			s.queue.Remove(a.id)
			a.queued, a.visible, a.gridBox, a.reason, a.placed = false, true, act.Box, "", e.now()
		case ActResize:
			a.gridBox = act.Box
		}
	}
	s.queue.PushFront(demoted...)
	s.visible = d.Visible
	if s.zoom != "" && s.zoom != control.MainID && !slices.Contains(s.visible, s.zoom) {
		s.zoom = ""
	}
	if s.focus != control.MainID && s.focus != "" {
		if a := s.agents[s.focus]; a == nil || !a.visible {
			s.focus = e.fallbackFocus()
		}
	}
	e.startEligible()
	e.applyGeometry()
	e.armLinger(d.WakeAt)
	s.dirty = true
	if len(d.Actions) > 0 {
		e.log.Debug("reconcile", "decision", d.Reason, "visible", len(s.visible), "queued", s.queue.Len())
	}
}

// layoutOptions are the layout package's options; zoom is -1 for none.
func (e *Engine) layoutOptions(zoom int) layout.Options {
	l := e.cfg.Layout
	return layout.Options{
		Name: e.st.layoutName, MainSize: l.MainSize, MinAgentWidth: l.MinAgentWidth, MinAgentHeight: l.MinAgentHeight,
		HasMain: e.st.main != nil, Zoom: zoom,
	}
}

// zoomIndex is the layout's zoom number for the current zoom target.
func (e *Engine) zoomIndex() int {
	switch z := e.st.zoom; {
	case z == "":
		return -1
	case z == control.MainID:
		return 0
	default:
		if i := slices.Index(e.st.visible, z); i >= 0 {
			return i + 1
		}
	}
	return -1
}

// applyGeometry computes the final plan (zoom included) and pushes sizes to
// the PTYs. A pane hidden by a zoom keeps its size, like tmux.
func (e *Engine) applyGeometry() {
	s := &e.st
	plan := layout.Compute(layout.Rect{W: s.cols, H: s.rows}, len(s.visible), e.layoutOptions(e.zoomIndex()))
	s.tooSmall = plan.TooSmall
	for i, id := range s.visible {
		a := s.agents[id]
		a.box = layout.Rect{}
		if i < len(plan.Slots) {
			a.box = plan.Slots[i]
		}
		e.sizePane(a, a.box)
	}
	if s.main != nil {
		s.main.box = plan.Main
		e.sizePane(s.main, plan.Main)
	}
}

func (e *Engine) sizePane(a *agent, box layout.Rect) {
	if box.Empty() {
		return
	}
	c := box.Inset(1)
	if c.Empty() || (c.W == a.cols && c.H == a.rows) {
		return
	}
	a.cols, a.rows = c.W, c.H
	if a.pane != nil && !a.f.State.Finished() {
		a.pane.Resize(c.W, c.H)
	} else if a.term != nil {
		a.term.Resize(c.W, c.H)
	}
}

// armLinger makes sure a pass runs when a finished pane becomes
// reclaimable for a waiting agent.
func (e *Engine) armLinger(at time.Time) {
	s := &e.st
	if at.IsZero() || (s.linger != nil && !s.lingerAt.After(at)) {
		return
	}
	if s.linger != nil {
		s.linger.Stop()
	}
	s.lingerAt = at
	s.linger = e.clock.AfterFunc(until(e.clock, at), e.board.postLinger)
}

func (e *Engine) fallbackFocus() string {
	if len(e.st.visible) > 0 {
		return e.st.visible[0]
	}
	return control.MainID
}

// startEligible starts pending agents in creation order: visible ones, and
// queued ones when start_offscreen is on, each within the concurrency
// limits. Iterating in creation order makes a released permit go to the
// oldest waiter (FIFO hand-off).
func (e *Engine) startEligible() {
	s := &e.st
	if s.closing {
		return
	}
	for _, a := range s.order {
		if a.f.State != StatePending || a.closed {
			continue
		}
		if !a.visible && !(a.queued && e.cfg.Agents.StartOffscreen) {
			continue
		}
		if why := s.limits.blocked(a.kind); why != "" {
			if a.limitWhy != why {
				a.limitWhy = why
				e.apply(a, evidence{Kind: evQueued, Why: why})
			}
			continue
		}
		a.limitWhy = ""
		e.startAgent(a)
	}
}

// startAgent starts a's process sized to its slot (or off screen). A start
// that fails marks the agent failed with the error shown in its pane.
func (e *Engine) startAgent(a *agent) {
	// Geometry is applied after the starts, so a newly placed agent's size
	// comes from its slot in the decision.
	cols, rows := offscreenCols, offscreenRows
	if c := a.gridBox.Inset(1); a.visible && !c.Empty() {
		cols, rows = c.W, c.H
	}
	e.apply(a, evidence{Kind: evStarting})
	p, err := e.startPane(a, a.argv, a.cwd, a.env, cols, rows)
	if err != nil {
		e.failStart(a, err, cols, rows)
		return
	}
	a.pane, a.term, a.pid, a.cols, a.rows = p, p.Term(), p.Pid(), cols, rows
	a.started = e.now()
	a.holdsPermit = true
	e.st.limits.acquire(a.kind)
	e.apply(a, evidence{Kind: evStarted, Time: a.started})
	e.bus.Publish(hooks.Event{Type: hooks.EventAgentStarted, Time: a.started, Session: e.opts.Session, Agent: a.ref("")})
	e.log.Info("agent started", "agent", a.id, "pid", a.pid, "argv", a.argv)
}

func (e *Engine) startPane(a *agent, argv []string, dir string, env []string, cols, rows int) (*panes.Pane, error) {
	// printed is set by the pane's first output, which is urgent like the
	// focused pane's: a new agent shows up without waiting for the frame
	// rate the churn of others may have used up.
	var printed atomic.Bool
	p, err := panes.Start(e.spawner, panes.StartSpec{Argv: argv, Dir: dir, Env: env, Cols: cols, Rows: rows}, panes.Options{
		Now:        e.now,
		Fg:         e.opts.TermFg,
		Bg:         e.opts.TermBg,
		Scrollback: e.cfg.Agents.Scrollback,
		LogPath:    a.logPath,
		LogMax:     e.cfg.Agents.LogMax.Bytes,
		OnLogError: func(err error) { e.logFailed(a, err) },
		Logger:     e.log.With("agent", a.id),
		OnOutput: func() {
			e.poke()
			first := !printed.Load() && printed.CompareAndSwap(false, true)
			if first || a.focused.Load() {
				select {
				case e.focusChanged <- struct{}{}:
				default:
				}
			}
			if a.wantActivity.CompareAndSwap(true, false) {
				e.postActivity(a)
			}
		},
		OnBell:   func() { e.postBell(a) },
		OnNotify: func(t, b string) { e.postNotice(a, t, b) },
		OnTitle:  func(t string) { e.postTitle(a, t) },
		OnExit:   func(code int, err error) { e.postExit(a, code, err) },
	})
	if err == nil && e.opts.Watchdog != nil {
		e.opts.Watchdog.Watch(p.Pid())
	}
	return p, err
}

// failStart records a start failure: state failed, the error written into
// a terminal the pane shows, never requeued.
func (e *Engine) failStart(a *agent, err error, cols, rows int) {
	msg := err.Error()
	a.term = vterm.New(cols, rows)
	_, _ = a.term.Write([]byte("\x1b[1;31magentgrid: could not start this agent\x1b[0m\r\n" + msg + "\r\n"))
	a.cols, a.rows = cols, rows
	a.ended = e.now()
	e.apply(a, evidence{Kind: evStartFailed, Time: a.ended, Why: msg})
	e.bus.Publish(hooks.Event{Type: hooks.EventAgentExited, Time: a.ended, Session: e.opts.Session, Agent: a.ref("")})
	e.log.Warn("agent could not start", "agent", a.id, "argv", a.argv, "err", err)
}

// startMain starts the orchestrator in the main view.
func (e *Engine) startMain(argv []string) {
	s := &e.st
	a := &agent{id: control.MainID, argv: slices.Clone(argv), cwd: e.cwd, created: e.now()}
	// The main view acts for the user: full control.
	token := e.auth.add(newToken(), &principal{agent: control.MainID, full: true})
	vars := []string{"AGENTGRID_AGENT_ID=" + control.MainID}
	// An orchestrator that is a known agent CLI (orchestrator.kind, or a
	// command matching a [kinds] preset) gets that preset's wiring.
	margv, menv, err := ResolveOrchestrator(e.cfg, argv, SessionEnv{Session: e.opts.Session, Socket: e.opts.SocketPath, AgentID: control.MainID, StateDir: e.opts.StateDir, Token: token})
	if err != nil {
		e.log.Warn("the orchestrator's kind preset could not be applied; starting it plainly", "argv", argv, "err", err)
	} else {
		a.argv = margv
		vars = append(vars, menv...)
		if a.kind = e.cfg.Orchestrator.Kind; a.kind == "" {
			a.kind = kindFor(e.cfg, argv[0])
		}
	}
	a.env = withVars(e.baseEnv, append(vars, control.EnvToken+"="+token)...)
	a.f = fusion{State: StatePending, Source: SourceEngine, Since: a.created, Confirmed: a.created}
	if e.opts.StateDir != "" {
		a.logPath = filepath.Join(e.opts.StateDir, control.MainID+".log")
	}
	s.agents[control.MainID] = a
	s.main = a
	plan := layout.Compute(layout.Rect{W: s.cols, H: s.rows}, len(s.visible), e.layoutOptions(e.zoomIndex()))
	cols, rows := offscreenCols, offscreenRows
	if c := plan.Main.Inset(1); !plan.Main.Empty() && !c.Empty() {
		cols, rows = c.W, c.H
	}
	e.apply(a, evidence{Kind: evStarting})
	p, err := e.startPane(a, a.argv, a.cwd, a.env, cols, rows)
	if err != nil {
		e.failStart(a, err, cols, rows)
	} else {
		a.pane, a.term, a.pid, a.cols, a.rows, a.started = p, p.Term(), p.Pid(), cols, rows, e.now()
		e.apply(a, evidence{Kind: evStarted, Time: a.started})
		e.bus.Publish(hooks.Event{Type: hooks.EventAgentStarted, Time: a.started, Session: e.opts.Session, Agent: a.ref("")})
	}
	e.reconcile()
	e.publish()
}

// publish rebuilds the UI's snapshot when something changed and pokes it.
func (e *Engine) publish() {
	s := &e.st
	if !s.dirty {
		return
	}
	s.dirty = false
	snap := &Snapshot{
		Cols: s.cols, Rows: s.rows, Layout: s.layoutName, Zoomed: s.zoom != "", Focus: s.focus,
		TooSmall: s.tooSmall, Capacity: s.capacity, WaitSeq: s.waitSeq, LastWaiting: s.lastWaiting,
	}
	number := map[string]int{}
	for i, id := range s.visible {
		number[id] = i + 1
	}
	queued := map[string]*queueEntry{}
	for i, q := range s.queue.Entries() {
		q.pos = i + 1
		queued[q.ID] = &q
	}
	index := make(map[string]int, len(s.order))
	for i, a := range s.order {
		a.focused.Store(s.focus == a.id && a.visible)
		index[a.id] = i
		in := a.info(queued[a.id], number[a.id])
		snap.Agents = append(snap.Agents, in)
		if in.QueuePos > 0 || a.f.State != StateKilled || !a.closed { // a closed agent's kill is no failure
			snap.Counts.Add(a.f.State, in.QueuePos > 0)
		}
	}
	for i, id := range s.visible {
		a := s.agents[id]
		if a.box.Empty() {
			continue // hidden by a zoom
		}
		snap.Panes = append(snap.Panes, PaneView{
			Agent: snap.Agents[index[id]],
			Box:   a.box, Term: a.term, Number: i + 1, Focused: s.focus == id,
		})
	}
	if m := s.main; m != nil {
		m.focused.Store(s.focus == control.MainID)
		in := m.info(nil, 0)
		snap.Main = &PaneView{Agent: in, Box: m.box, Term: m.term, Focused: s.focus == control.MainID}
	}
	e.snap.Store(snap)
	if s.finished {
		// Only after the snapshot shows the new state, or Wait could miss it.
		s.finished = false
		e.broadcastFinish()
	}
	e.poke()
}

// allAgents returns main (if any) and every agent.
func (e *Engine) allAgents() []*agent {
	out := slices.Clone(e.st.order)
	if e.st.main != nil {
		out = append([]*agent{e.st.main}, out...)
	}
	return out
}

// agentByID finds an agent or returns a clear error.
func (e *Engine) agentByID(id string) (*agent, error) {
	if a := e.st.agents[id]; a != nil {
		return a, nil
	}
	return nil, fmt.Errorf("no agent %q in this session", id)
}

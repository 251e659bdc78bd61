package orchestrator

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
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

// startTimeout bounds the start of a process (on the engine's clock). A
// start takes milliseconds; one that takes this long is stuck. It is well
// below cmdTimeout, so that the caller of a spawn hears the failure.
const startTimeout = 5 * time.Second

// reconcile runs passes until one has started everything it decided to:
// a start that fails holds no permit, so the next pass may hand that
// permit on. Each repeat follows a new failure, so this ends.
func (e *Engine) reconcile() {
	for e.pass() {
	}
}

// pass is one Query -> Decide -> Execute -> Update pass. It reports
// whether a start failed.
func (e *Engine) pass() (startFailed bool) {
	s := &e.st
	ws := e.query()
	s.show, s.closes = "", nil
	d := decideSpawnActions(ws, decideConfig{
		FinishedLinger: e.lingerFor(),
		StartOffscreen: e.cfg.Agents.StartOffscreen,
		Limits:         e.cfg.Limits,
	})

	// Execute and Update: only what succeeded changes the registry.
	var demoted []queueEntry
	var resizes, starts []action
	for _, act := range d.Actions {
		a := s.agents[act.Agent]
		if a == nil {
			continue
		}
		switch act.Kind {
		case actStop:
			e.stopAgent(a)
		case actDefer:
			a.reason = act.Reason
			switch {
			case a.visible:
				a.visible, a.box = false, layout.Rect{}
				a.queued = true
				demoted = append(demoted, queueEntry{ID: a.id, Seq: a.seq, Since: e.now(), Reason: act.Reason})
			case !a.queued:
				// A reclaimed pane asked to be shown that found no room.
				a.queued = true
				s.queue.PushFront(queueEntry{ID: a.id, Seq: a.seq, Since: e.now(), Reason: act.Reason})
			default:
				s.queue.SetReason(a.id, act.Reason)
			}
		case actClose:
			// A finished agent placed and reclaimed in the same pass comes
			// straight from the queue.
			s.queue.Remove(a.id)
			a.queued, a.visible, a.box = false, false, layout.Rect{}
			e.log.Info("pane reclaimed", "agent", a.id, "why", act.Reason)
			e.bus.Publish(hooks.Event{Type: hooks.EventAgentClosed, Time: e.now(), Session: e.opts.Session, Agent: a.ref("")})
		case actPlace:
			s.queue.Remove(a.id)
			a.queued, a.visible, a.reason, a.placed = false, true, "", e.now()
		case actResize:
			resizes = append(resizes, act)
		case actStart:
			starts = append(starts, act)
		case actHold:
			if a.limitWhy != act.Reason {
				a.limitWhy = act.Reason
				e.apply(a, evidence{Kind: evQueued, Why: act.Reason})
			}
		}
	}
	// The first start goes first: its fork and exec run while the other
	// panes are resized (a resize reflows the terminal: 0.15 ms for the
	// main view at 240x70, which the new agent's start waited for). The
	// others follow it one by one, in the decision's order.
	var first func() bool
	if len(starts) > 0 {
		first = e.startAgent(s.agents[starts[0].Agent], starts[0].Cols, starts[0].Rows)
	}
	for _, act := range resizes {
		e.resizeTerm(s.agents[act.Agent], act.Cols, act.Rows)
	}
	s.queue.PushFront(demoted...)
	s.visible = d.Visible
	s.capacity, s.tooSmall = d.Plan.Capacity, d.Plan.TooSmall
	for i, id := range s.visible {
		s.agents[id].box = d.Plan.Slots[i]
	}
	if s.main != nil {
		s.main.box = d.Plan.Main
	}
	s.zoom, s.focus = d.Zoom, d.Focus
	e.armLinger(d.WakeAt)
	s.dirty = true
	if first != nil {
		for i, act := range starts {
			started := first
			if i > 0 {
				started = e.startAgent(s.agents[act.Agent], act.Cols, act.Rows)
			}
			if !started() {
				startFailed = true
			}
		}
		s.dirty = true
	}
	if len(d.Actions) > 0 {
		e.log.Debug("reconcile", "decision", d.Reason, "visible", len(s.visible), "queued", s.queue.Len())
	}
	return startFailed
}

// query is the Query step: the registry, the pending requests (closes, a
// show), the limits' usage and the geometry's inputs as one windowState.
func (e *Engine) query() windowState {
	s := &e.st
	lo := e.cfg.Layout
	if s.mainSize != 0 {
		lo.MainSize = s.mainSize
	}
	ws := windowState{
		Now: e.now(), Area: layout.Rect{W: s.cols, H: s.rows},
		Layout: layout.Options{
			Name: s.layoutName, MainSize: lo.MainSize, MinAgentWidth: lo.MinAgentWidth, MinAgentHeight: lo.MinAgentHeight,
			HasMain: s.main != nil,
		},
		Closes: slices.Clone(s.closes), Show: s.show, Focus: s.focus, Zoom: s.zoom, Closing: s.closing,
		Running: s.limits.used,
	}
	if m := s.main; m != nil {
		ws.Main = &mainPane{Pending: m.f.State == agentstate.Pending, Cols: m.cols, Rows: m.rows}
	}
	for _, id := range s.visible {
		a := s.agents[id]
		// A pane lingers from when it was seen finished: an agent that ended
		// off screen gets its full linger once placed.
		shown := a.ended
		if a.placed.After(shown) {
			shown = a.placed
		}
		ws.Visible = append(ws.Visible, slotAgent{ID: id, Seq: a.seq, Finished: a.f.State.Finished(), Ended: shown, Cols: a.cols, Rows: a.rows})
	}
	if a := s.agents[s.show]; a != nil && a != s.main && !a.visible && !a.queued && !a.closed {
		// A reclaimed pane asked to be shown comes back through the queue.
		ws.Queue = append(ws.Queue, queuedAgent{ID: a.id, Seq: a.seq, Finished: a.f.State.Finished(), Cols: a.cols, Rows: a.rows})
	}
	for _, q := range s.queue.Entries() {
		a := s.agents[q.ID]
		ws.Queue = append(ws.Queue, queuedAgent{ID: q.ID, Seq: q.Seq, Finished: a.f.State.Finished(), Cols: a.cols, Rows: a.rows})
	}
	for _, a := range s.order {
		if a.f.State == agentstate.Pending && !a.closed && a.route.retryAt.IsZero() {
			ws.Pending = append(ws.Pending, pendingAgent{ID: a.id, Limit: a.limitKey()})
		}
	}
	return ws
}

// resizeTerm sizes a's terminal: its PTY while it runs, else the screen it
// left.
func (e *Engine) resizeTerm(a *agent, cols, rows int) {
	a.cols, a.rows = cols, rows
	if a.pane != nil && !a.f.State.Finished() {
		a.pane.Resize(cols, rows)
	} else if a.term != nil {
		a.term.Resize(cols, rows)
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

// startAgent starts a's process in a PTY of cols x rows, as the decision
// sized it, and returns the function that waits for the start and
// reports whether it started; the engine may do other work meanwhile. A
// start that fails marks the agent failed with the error shown in its
// pane.
func (e *Engine) startAgent(a *agent, cols, rows int) (started func() bool) {
	e.apply(a, evidence{Kind: evStarting})
	wait := e.startPane(a, a.argv, a.cwd, a.env, cols, rows)
	return func() bool { return e.startedAgent(a, wait, cols, rows) }
}

// startedAgent waits for a's start (wait) and records its outcome.
func (e *Engine) startedAgent(a *agent, wait func() (*panes.Pane, error), cols, rows int) bool {
	p, err := wait()
	if err != nil {
		e.failStart(a, err, cols, rows)
		return false
	}
	a.pane, a.term, a.pid, a.cols, a.rows = p, p.Term(), p.Pid(), cols, rows
	e.terms.Store(a.id, a.term)
	a.started = e.now()
	a.limitWhy = ""
	if a.route.try == 0 {
		a.route.try = 1
	}
	if a != e.st.main {
		// The main view is the user's own: no limit counts it.
		a.holdsPermit, a.permit = true, a.limitKey()
		e.st.limits.acquire(a.permit)
	}
	e.apply(a, evidence{Kind: evStarted, Time: a.started})
	e.armPrompt(a)
	e.bus.Publish(hooks.Event{Type: hooks.EventAgentStarted, Time: a.started, Session: e.opts.Session, Agent: a.ref("")})
	e.log.Info("agent started", "agent", a.id, "pid", a.pid, "argv", a.argv)
	return true
}

// startPane starts a process for a and returns the function that waits
// for it, under startTimeout from the start.
func (e *Engine) startPane(a *agent, argv []string, dir string, env []string, cols, rows int) (wait func() (*panes.Pane, error)) {
	// The pane's first output is urgent like the focused pane's: a new
	// agent shows up without waiting for the frame rate the churn of
	// others may have used up (see firstOutput).
	first := &firstOutput{}
	a.firstOut = first
	// abandoned is set when the start missed its deadline: the pane, if it
	// comes, is no longer the agent's, and its callbacks say nothing.
	var abandoned atomic.Bool
	opts := panes.Options{
		Now:        e.now,
		Colors:     e.opts.TermColors,
		Scrollback: e.cfg.Agents.Scrollback,
		LogPath:    a.logPath,
		LogMax:     e.cfg.Agents.LogMax.Bytes,
		OnLogError: func(err error) {
			if !abandoned.Load() {
				e.logFailed(a, err)
			}
		},
		Logger: e.log.With("agent", a.id),
		OnOutput: func() {
			if abandoned.Load() {
				return
			}
			e.poke()
			if !first.printed.Load() && first.printed.CompareAndSwap(false, true) {
				e.post(a, sigPrinted, nil)
				if first.due() {
					e.pokeAwaited()
				}
			} else if a.wantEcho.CompareAndSwap(true, false) {
				e.pokeAwaited()
			}
			// The focused pane's output pokes the UI's fast channel (an
			// echo is drawn without waiting behind other panes' frames);
			// the published snapshot says which pane that is.
			if e.snap.Load().Focus == a.id {
				select {
				case e.focusChanged <- struct{}{}:
				default:
				}
			}
			if a.wantActivity.CompareAndSwap(true, false) {
				e.postActivity(a)
			}
		},
		OnBell: func() {
			if !abandoned.Load() {
				e.postBell(a)
			}
		},
		OnNotify: func(t, b string) {
			if !abandoned.Load() {
				e.postNotice(a, t, b)
			}
		},
		OnTitle: func(t string) {
			if !abandoned.Load() {
				e.postTitle(a, t)
			}
		},
		OnExit: func(code int, err error) {
			if !abandoned.Load() {
				e.postExit(a, code, err)
			}
		},
	}
	if e.cfg.Clipboard.PaneOSC52 == config.PaneOSC52Write {
		// Only then does the pane's terminal report OSC 52 at all.
		opts.OnClipboard = func(_, data string) {
			if !abandoned.Load() {
				e.onPaneClipboard(a, data)
			}
		}
	}
	type started struct {
		p   *panes.Pane
		err error
	}
	// The start (fork and exec in a PTY, opening the output log) runs
	// under a deadline: a command or directory on a file system that does
	// not answer must not stop the engine.
	done := make(chan started, 1)
	go func() {
		p, err := panes.Start(e.spawner, panes.StartSpec{Argv: argv, Dir: dir, Env: env, Cols: cols, Rows: rows}, opts)
		if err == nil && e.opts.Watchdog != nil {
			e.opts.Watchdog.Watch(p.Pid())
		}
		done <- started{p, err}
	}()
	deadline := e.clock.NewTimer(startTimeout)
	return func() (*panes.Pane, error) {
		defer deadline.Stop()
		select {
		case r := <-done:
			return r.p, r.err
		case <-deadline.C():
			abandoned.Store(true)
			go func() {
				// A start that completes late is ended at once.
				if r := <-done; r.err == nil {
					e.log.Warn("a process started after its deadline; ending it", "agent", a.id, "pid", r.p.Pid())
					r.p.Kill(e.grace())
					if e.opts.Watchdog != nil {
						e.opts.Watchdog.Exited(r.p.Pid())
					}
				}
			}()
			return nil, fmt.Errorf("the process did not start within %s (the system may be overloaded, or the command or its working directory %s may be on a file system that does not answer); close this agent and spawn it again", startTimeout, dir)
		}
	}
}

// failStart records a start failure: state failed, the error written into
// a terminal the pane shows, never requeued.
func (e *Engine) failStart(a *agent, err error, cols, rows int) {
	msg := err.Error()
	a.term = vterm.New(cols, rows)
	e.terms.Store(a.id, a.term)
	_, _ = a.term.Write([]byte("\x1b[1;31magentgrid: could not start this agent\x1b[0m\r\n" + msg + "\r\n"))
	a.cols, a.rows = cols, rows
	if e.moveOn(a, "", "could not start: "+msg) {
		e.log.Warn("agent could not start; moving on", "agent", a.id, "argv", a.argv, "err", err)
		return
	}
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
	vars := append([]string{"AGENTGRID_AGENT_ID=" + control.MainID}, e.paneVars(control.MainID)...)
	// An orchestrator that is a known agent CLI (orchestrator.kind, or a
	// command matching a [kinds] preset) gets that preset's wiring.
	margv, menv, err := resolveOrchestrator(e.cfg, argv, e.wiring(control.MainID, token))
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
	e.noteHookTimeout(a)
	a.f = fusion{State: agentstate.Pending, Source: sourceEngine, Since: a.created, Confirmed: a.created}
	if e.opts.StateDir != "" {
		a.logPath = filepath.Join(e.opts.StateDir, control.MainID+".log")
	}
	s.agents[control.MainID] = a
	s.main = a
	// The pass starts it, sized to its box.
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
	// A pane's number is its agent's for the agent's life (aN is pane N,
	// as tmux's %N is): it does not change when another pane closes.
	number := map[string]int{}
	for _, id := range s.visible {
		number[id] = s.agents[id].seq
	}
	queued := map[string]*queueEntry{}
	for i, q := range s.queue.Entries() {
		q.pos = i + 1
		queued[q.ID] = &q
	}
	index := make(map[string]int, len(s.order))
	for i, a := range s.order {
		index[a.id] = i
		in := a.info(queued[a.id], number[a.id])
		in.Loop = e.loops.info(a.id)
		snap.Agents = append(snap.Agents, in)
		if in.QueuePos > 0 || a.f.State != agentstate.Killed || !a.closed { // a closed agent's kill is no failure
			snap.Counts.Add(a.f.State, in.QueuePos > 0)
		}
	}
	for _, id := range s.visible {
		a := s.agents[id]
		snap.Slots = append(snap.Slots, id)
		if a.box.Empty() {
			// Hidden by a zoom.
			snap.Hidden = append(snap.Hidden, PaneView{Agent: snap.Agents[index[id]], Term: reader(a.term), Number: a.seq})
			continue
		}
		snap.Panes = append(snap.Panes, PaneView{
			Agent: snap.Agents[index[id]],
			Box:   a.box, Term: reader(a.term), Number: a.seq,
		})
	}
	if m := s.main; m != nil {
		in := m.info(nil, 0)
		in.Loop = e.loops.info(control.MainID)
		snap.Main = &PaneView{Agent: in, Box: m.box, Term: reader(m.term)}
	}
	e.snap.Store(snap)
	for _, p := range snap.Panes {
		e.shown(s.agents[p.Agent.ID])
	}
	if m := s.main; m != nil && !m.box.Empty() {
		e.shown(m)
	}
	if s.finished {
		// Only after the snapshot shows the new state, or Wait could miss it.
		s.finished = false
		e.broadcastFinish()
	}
	e.turns.poke() // waits on states (turns.go)
	e.poke()
	if s.news {
		// After the snapshot that shows it, so the frame it asks for does.
		s.news = false
		select {
		case e.news <- struct{}{}:
		default:
		}
	}
}

// shown records that the published snapshot shows a's pane, and pokes
// AwaitedOutput if the pane's first output came before.
func (e *Engine) shown(a *agent) {
	if f := a.firstOut; f != nil && a.pane != nil && !f.shown.Load() {
		f.shown.Store(true)
		if f.due() {
			e.pokeAwaited()
		}
	}
}

// pokeAwaited asks the UI to draw at once (Engine.AwaitedOutput).
func (e *Engine) pokeAwaited() {
	select {
	case e.awaited <- struct{}{}:
	default:
	}
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

// doAgent runs fn with agent id on the engine's loop (see do); the error is
// the loop's, the lookup's (no such agent) or fn's.
func (e *Engine) doAgent(id string, fn func(a *agent) error) error {
	var err error
	if derr := e.do(func() {
		var a *agent
		if a, err = e.agentByID(id); err == nil {
			err = fn(a)
		}
	}); derr != nil {
		return derr
	}
	return err
}

package orchestrator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/oneline"
	"github.com/agentgrid/agentgrid/layout"
)

// Spawn asks for a new background agent. It is placed in the grid when a
// slot is free and queued otherwise; it fails when the command cannot be
// resolved or the queue is full (agents.max_queued).
func (e *Engine) Spawn(req control.SpawnRequest) (control.AgentInfo, error) {
	if req.Worktree != nil {
		return e.spawnInWorktree(req)
	}
	var info control.AgentInfo
	var err error
	if derr := e.do(func() { info, err = e.spawn(req) }); derr != nil {
		return control.AgentInfo{}, derr
	}
	return info, err
}

func (e *Engine) spawn(req control.SpawnRequest) (control.AgentInfo, error) {
	s := &e.st
	if s.closing {
		return control.AgentInfo{}, errShutDown
	}
	if err := e.auth.mayTool(req.Parent, control.ToolSpawn); err != nil {
		// The socket refuses agent.spawn already; this covers tmux's
		// split-window and new-window, which spawn too.
		return control.AgentInfo{}, fmt.Errorf("spawn refused: %w", err)
	}
	if err := e.checkFamily(req.Parent); err != nil {
		return control.AgentInfo{}, err
	}
	id := fmt.Sprintf("a%d", s.seq+1)
	token := newToken()
	req, loop := withLoopPrompt(req)
	rt, err := newRouting(e.cfg, req)
	if err != nil {
		return control.AgentInfo{}, err
	}
	rt.token = token
	kind, argv, kindEnv, err := resolveRoute(e.cfg, &rt, e.wiring(id, token))
	if err != nil {
		return control.AgentInfo{}, err
	}
	// After every pass a non-empty queue means no free slot, so a full
	// queue means the request could only wait: refuse it.
	if s.queue.Full() {
		return control.AgentInfo{}, s.queue.fullError()
	}
	cwd := req.Cwd
	if cwd == "" {
		cwd = e.cwd
	} else if !filepath.IsAbs(cwd) {
		cwd = filepath.Join(e.cwd, cwd)
	}
	grants, tools := e.routeGrants(rt, req.Parent)
	e.auth.add(token, &principal{agent: id, parent: req.Parent, grants: grants, kind: kind, tools: tools})
	now := e.now()
	s.seq++
	rt.req.Cwd = cwd
	a := &agent{
		id: id, seq: s.seq, title: oneline.Sanitize(req.Title, maxTitleLen), kind: kind, argv: argv, cwd: cwd, parent: req.Parent,
		env: e.agentEnv(id, token, kindEnv, req), created: now, queued: true, route: rt,
	}
	e.noteHookTimeout(a)
	switch {
	case rt.category != "":
		a.route.step(now, "category %s → %s", rt.category, routeText(rt.routes[0]))
	case kind != "":
		a.route.step(now, "kind %s", routeText(rt.routes[0]))
	}
	if len(grants) > 0 {
		e.log.Info("agent granted more than its own subtree", "agent", id, "kind", kind, "grants", grantList(grants))
	}
	a.f = fusion{State: agentstate.Pending, Why: "waiting for a slot", Source: sourceEngine, Since: now, Confirmed: now}
	a.history = []control.Transition{{Time: now, To: agentstate.Pending, Why: a.f.Why, Source: sourceEngine}}
	if e.opts.StateDir != "" {
		a.logPath = filepath.Join(e.opts.StateDir, id+".log")
	}
	s.agents[id] = a
	s.order = append(s.order, a)
	_ = s.queue.Push(queueEntry{ID: id, Seq: a.seq, Since: now, Reason: a.f.Why})
	e.bus.Publish(hooks.Event{Type: hooks.EventAgentQueued, Time: now, Session: e.opts.Session, Agent: a.ref("")})
	if loop != nil {
		e.startSpawnLoop(id, *loop, kind)
	}
	e.reconcile()
	e.publish()
	return e.infoOf(a), nil
}

// agentEnv is the environment of agent id: the base, its kind's
// variables, the requested ones, then its identity, which no requested
// variable can replace.
func (e *Engine) agentEnv(id, token string, kindEnv []string, req control.SpawnRequest) []string {
	vars := slices.Clone(kindEnv)
	for _, k := range slices.Sorted(maps.Keys(req.Env)) {
		vars = append(vars, k+"="+req.Env[k])
	}
	vars = append(vars, "AGENTGRID_AGENT_ID="+id, control.EnvToken+"="+token)
	vars = append(vars, e.paneVars(id)...)
	return withVars(e.baseEnv, vars...)
}

// infoOf is a's public info with its queue position and pane number.
func (e *Engine) infoOf(a *agent) control.AgentInfo {
	n := 0
	if i := slices.Index(e.st.visible, a.id); i >= 0 && a.visible {
		n = i + 1
	}
	in := a.info(e.st.queue.Lookup(a.id), n)
	in.Loop = e.loops.info(a.id)
	return in
}

// Close closes an agent: it leaves the grid or the queue at once and its
// process group is killed (SIGHUP, SIGTERM, SIGKILL) in the background.
// Closing a closed agent does nothing.
func (e *Engine) Close(id string) error {
	var err error
	if derr := e.do(func() { err = e.close(id) }); derr != nil {
		return derr
	}
	return err
}

func (e *Engine) close(id string) error {
	a, err := e.agentByID(id)
	if err != nil {
		return err
	}
	if a.closed || slices.Contains(e.st.closes, id) {
		return nil
	}
	e.st.closes = append(e.st.closes, id)
	e.reconcile()
	e.publish()
	return nil
}

// stopAgent executes a close the pass decided: the agent leaves the grid
// and the queue for good, and its process group is ended in the background.
func (e *Engine) stopAgent(a *agent) {
	a.closed = true
	if t := a.route.retryTimer; t != nil {
		t.Stop()
		a.route.retryAt = time.Time{}
	}
	wasVisible := a.visible
	a.visible, a.queued, a.box = false, false, layout.Rect{}
	e.st.queue.Remove(a.id)
	switch {
	case a.pane != nil && !a.f.State.Finished():
		a.killWhy = "closed by the user"
		p, grace := a.pane, e.grace()
		e.killWG.Add(1)
		go func() { defer e.killWG.Done(); p.Kill(grace) }()
	case a.pane == nil && !a.f.State.Finished():
		a.ended = e.now()
		e.apply(a, evidence{Kind: evExited, Time: a.ended, Killed: true, Why: "closed before it started"})
	}
	e.status.ClearAgent(a.id)
	e.pol.Forget(a.id)
	e.bus.Publish(hooks.Event{Type: hooks.EventAgentClosed, Time: e.now(), Session: e.opts.Session, Agent: a.ref("")})
	e.log.Info("agent closed", "agent", a.id, "was_visible", wasVisible)
}

// sendSettle is how long Send waits between a text and the Enter that
// follows it, so that the program reads them as typing and a key, not as
// one paste.
const sendSettle = 50 * time.Millisecond

// Send writes raw bytes to an agent's terminal (socket and CLI use it). A
// final "\r" after text (`agentgrid send --enter`, MCP send_to_agent) goes
// in a write of its own, sendSettle later: agent CLIs that tell a paste
// from typing by timing (Codex) take text and Enter in one write for a
// pasted line, and do not submit it.
func (e *Engine) Send(id string, data []byte) error {
	text, enter := bytes.CutSuffix(data, []byte("\r"))
	if !enter || len(text) == 0 {
		return e.write(id, data, false)
	}
	if err := e.write(id, text, false); err != nil {
		return err
	}
	time.Sleep(sendSettle)
	return e.write(id, []byte("\r"), false)
}

// Input writes the user's keystrokes to an agent; it is evidence for the
// agent's state (a key to a waiting agent means it is answered; Esc or
// ctrl+c to a running one is remembered as an interrupt).
func (e *Engine) Input(id string, data []byte) error {
	return e.write(id, data, true)
}

func (e *Engine) write(id string, data []byte, user bool) error {
	return e.doAgent(id, func(a *agent) error {
		if a.pane == nil {
			return fmt.Errorf("agent %s has no running process (%s)", id, a.f.State)
		}
		if a.f.State.Finished() {
			return fmt.Errorf("agent %s has exited (%s)", id, a.f.Why)
		}
		if user {
			// Set before the write, so the echo cannot come back first.
			a.pane.PrioritizeEcho()
			a.wantEcho.Store(true)
		}
		if _, werr := a.pane.Write(data); werr != nil {
			return fmt.Errorf("send to agent %s: %w", id, werr)
		}
		if user {
			wasWaiting := a.f.State == agentstate.Waiting
			e.loopInput(a, data)
			e.apply(a, evidence{Kind: evInput, Interrupt: isInterruptKey(data), Answer: isAnswerKey(data)})
			if wasWaiting && a.f.State != agentstate.Waiting {
				// The agent's status entry says what it was waiting for (a
				// permission prompt, a question); once the user answers, that
				// text is no longer true, whatever the answer was.
				e.status.Clear(id)
			}
			e.publish()
		}
		return nil
	})
}

// Resize sets the area for the main view and the grid (the terminal size
// minus the status line). Growing places queued agents; shrinking moves the
// newest visible ones back to the queue. Before Start it sets the size the
// session starts at.
func (e *Engine) Resize(cols, rows int) {
	cols, rows = max(cols, 0), max(rows, 0)
	e.early.Lock()
	if !e.early.started {
		e.early.cols, e.early.rows = cols, rows
		e.early.Unlock()
		return
	}
	e.early.Unlock()
	_ = e.do(func() {
		e.st.cols, e.st.rows = cols, rows
		e.reconcile()
		e.publish()
	})
}

// SetLayout switches to a named layout.
func (e *Engine) SetLayout(name string) error {
	if !layout.Valid(name) {
		return fmt.Errorf("unknown layout %q (known: %s)", name, strings.Join(layout.Names(), ", "))
	}
	return e.do(func() {
		e.st.layoutName = name
		e.reconcile()
		e.publish()
	})
}

// CycleLayout switches to the next layout.
func (e *Engine) CycleLayout() {
	_ = e.do(func() {
		e.st.layoutName = layout.Next(e.st.layoutName)
		e.reconcile()
		e.publish()
	})
}

// Focus moves the focus to the main view ("main") or a visible agent; other
// ids are ignored. While a pane is zoomed the zoom follows the focus.
func (e *Engine) Focus(id string) {
	_ = e.do(func() {
		if id == control.MainID && e.st.main != nil {
			e.st.focus = id
		} else if a := e.st.agents[id]; a != nil && a.visible {
			e.st.focus = id
		} else {
			return
		}
		if e.st.zoom != "" && e.st.zoom != id {
			e.st.zoom = id
		}
		e.reconcile()
		e.publish()
	})
}

// ToggleZoom makes the focused pane fill the area, or undoes it.
func (e *Engine) ToggleZoom() {
	_ = e.do(func() {
		if e.st.zoom != "" {
			e.st.zoom = ""
		} else {
			e.st.zoom = e.st.focus
		}
		e.reconcile()
		e.publish()
	})
}

// Show brings an agent into view and focuses it: a queued one (or a
// finished one whose pane was reclaimed) is swapped in, moving another
// pane to the queue if the grid is full; a visible one is just focused.
func (e *Engine) Show(id string) error {
	return e.doAgent(id, func(a *agent) error {
		if a.closed {
			return fmt.Errorf("agent %s was closed", id)
		}
		if !a.visible && a != e.st.main && e.st.capacity == 0 {
			return errors.New("the terminal is too small to show any agent pane")
		}
		e.st.show = id
		e.reconcile()
		e.publish()
		return nil
	})
}

// List returns every agent (main excluded), in creation order.
func (e *Engine) List() []control.AgentInfo {
	return slices.Clone(e.snap.Load().Agents)
}

// Agent returns one agent's info; "main" is the orchestrator.
func (e *Engine) Agent(id string) (control.AgentInfo, bool) {
	snap := e.snap.Load()
	if id == control.MainID && snap.Main != nil {
		return snap.Main.Agent, true
	}
	for _, a := range snap.Agents {
		if a.ID == id {
			return a, true
		}
	}
	return control.AgentInfo{}, false
}

// Signal applies a hook adapter's signal to an agent (source names the
// adapter, e.g. "claude"): state evidence, subagent counts and the agent's
// status entry.
func (e *Engine) Signal(id string, sig agentstate.Signal, source string) error {
	return e.doAgent(id, func(a *agent) error {
		src := sourceHook
		if source != "" {
			src = sourceHook + ":" + source
		}
		if !sig.At.IsZero() {
			if sig.At.Before(a.lastHookAt) {
				// Overtaken by a later event of the same CLI.
				sig.State, sig.Status, sig.SessionEnd = "", "", false
			} else {
				a.lastHookAt = sig.At
			}
		}
		why := sig.Why
		if why == "" && sig.Event != "" {
			why = sig.Event
		}
		state := sig.State
		restated := sig.Restates && state == agentstate.Waiting && a.f.State == agentstate.Waiting && a.f.Source == src
		if restated {
			// The CLI's generic notice of the wait its hook already
			// described: keep that reason and status.
			why = a.f.Why
		}
		if sig.SessionEnd {
			e.pol.Forget(id) // a new session starts with no nudge mark
		}
		if sig.SessionEnd && state == "" {
			state, why = agentstate.Idle, "agent CLI session ended"
		}
		e.apply(a, evidence{Kind: evHook, Why: why, Source: src, HookState: state, SubagentDelta: sig.SubagentDelta})
		if sig.Failure != "" {
			e.hookFailure(a, sig.Failure)
		}
		switch {
		case restated:
		case sig.Status != "":
			if e.status.Set(id, sig.Status, id, src, 0) {
				e.st.news = true
			}
		case sig.State.Resting() || sig.SessionEnd:
			if e.status.Clear(id) {
				e.st.news = true
			}
		}
		e.loopHeard(a, sig)
		e.promptHookHeard(a, sig.Event)
		e.publish()
		return nil
	})
}

// Explain returns an agent's state with its recent history.
func (e *Engine) Explain(id string) (control.Explanation, error) {
	var ex control.Explanation
	err := e.doAgent(id, func(a *agent) error {
		ex.Agent = e.infoOf(a)
		ex.History = slices.Clone(a.history)
		ex.Decisions = e.decisionsOf(id)
		ex.Resolution = slices.Clone(a.route.steps)
		ex.Notices, ex.RewakeWaiting = e.notices.shown(id), e.rewakes.waiting(id)
		if !a.f.LastHook.IsZero() {
			ex.Evidence = append(ex.Evidence, control.Evidence{Source: sourceHook, Says: "last hook state", Time: a.f.LastHook})
		}
		if !a.f.InterruptAt.IsZero() {
			ex.Evidence = append(ex.Evidence, control.Evidence{Source: sourceInput, Says: "user interrupted", Time: a.f.InterruptAt})
		}
		if a.pane != nil {
			ex.Evidence = append(ex.Evidence, control.Evidence{Source: sourceActivity, Says: "last output", Time: a.pane.LastOutput()})
		}
		if !a.mcpReadyAt.IsZero() {
			ex.Evidence = append(ex.Evidence, control.Evidence{Source: "mcp", Says: "agentgrid's MCP tools listed", Time: a.mcpReadyAt})
		}
		return nil
	})
	if err != nil {
		return control.Explanation{}, err
	}
	return ex, nil
}

// Status is the session's status store.
func (e *Engine) Status() *hooks.StatusStore { return e.status }

// Bus is the session's event bus.
func (e *Engine) Bus() *hooks.Bus { return e.bus }

// Snapshot is the current consistent view for the UI. It is cheap: the
// reconciler rebuilds it after each change.
func (e *Engine) Snapshot() Snapshot { return *e.snap.Load() }

// Changed receives a value (never blocking the engine) after any change,
// including new output in any pane.
func (e *Engine) Changed() <-chan struct{} { return e.changed }

// FocusOutput is poked (cap 1, non-blocking) when the focused pane prints,
// in addition to Changed: the UI draws such output (the echo of what the
// user types) ahead of its frame-rate limit.
func (e *Engine) FocusOutput() <-chan struct{} { return e.focusChanged }

// AwaitedOutput is poked (cap 1, non-blocking) on output the user is
// waiting to see: an agent's first output, and the first output of a pane
// after the user typed into it (the echo). The UI draws it at once, whatever
// the frame rate has spent; it comes at most once per spawn or keystroke,
// so it cannot flood.
func (e *Engine) AwaitedOutput() <-chan struct{} { return e.awaited }

// StateChanged is poked (cap 1, non-blocking), in addition to Changed,
// once a published snapshot shows an agent's new state or reason, or the
// status a hook set for it: what a user watching the agents waits for. The
// UI draws it at once, ahead of its frame budget, unless it drew a frame a
// moment ago; a flood of them still shares frames.
func (e *Engine) StateChanged() <-chan struct{} { return e.news }

// agentSettled is agent id's info; an id not yet in the snapshot is looked
// up again after one turn of the engine's loop (a spawn just answered may
// not be published yet), and only then is it unknown.
func (e *Engine) agentSettled(id string) (control.AgentInfo, error) {
	if in, ok := e.Agent(id); ok {
		return in, nil
	}
	if err := e.do(func() {}); err != nil {
		return control.AgentInfo{}, err
	}
	if in, ok := e.Agent(id); ok {
		return in, nil
	}
	return control.AgentInfo{}, fmt.Errorf("no agent %q in this session", id)
}

// Wait blocks until every agent in ids has finished (done, failed or
// killed) or ctx is done; it returns their infos in the order asked, with
// ctx's error if it gave up first.
func (e *Engine) Wait(ctx context.Context, ids []string) ([]control.AgentInfo, error) {
	for {
		ch := e.finishChan()
		out := make([]control.AgentInfo, 0, len(ids))
		all := true
		for _, id := range ids {
			in, err := e.agentSettled(id)
			if err != nil {
				return out, err
			}
			out = append(out, in)
			all = all && in.State.Finished()
		}
		if all {
			return out, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return out, ctx.Err()
		case <-e.loopEnd:
			return out, errShutDown
		}
	}
}

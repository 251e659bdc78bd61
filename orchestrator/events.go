package orchestrator

import (
	"strconv"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/oneline"
)

// onActivity handles output that arrived while the engine asked for it.
func (e *Engine) onActivity(a *agent) {
	e.apply(a, evidence{Kind: evActivity, Time: e.now()})
	if !a.f.State.Alive() || a.f.State == agentstate.Running {
		return
	}
	// Activity did not count (a fresh hook or terminal state stands):
	// ask again only once that state can go stale.
	a.wantActivity.Store(false)
	e.armTimer(a, a.f.Confirmed.Add(e.staleAfter()))
}

// onTitle records the title the child set (OSC 0/2), sanitised.
func (e *Engine) onTitle(a *agent, title string) {
	if t := oneline.Sanitize(title, maxTitleLen); t != a.termTitle {
		a.termTitle = t
		e.st.dirty = true
	}
}

// onNotice handles a bell or a notification: a hook event and evidence
// that the agent waits for the user.
func (e *Engine) onNotice(a *agent, why string) {
	e.bus.Publish(hooks.Event{Type: hooks.EventBell, Time: e.now(), Session: e.opts.Session, Agent: a.ref("")})
	e.apply(a, evidence{Kind: evTerminal, Time: e.now(), Why: why})
}

// noticesWhy is the state reason n OSC 9/777/99 notifications give, the
// last of them with title and body: its text, and how many came when
// they came in a burst.
func noticesWhy(title, body string, n int) string {
	what := "notification"
	if n > 1 {
		what = strconv.Itoa(n) + " notifications"
	}
	switch {
	case body != "":
		return what + ": " + body
	case title != "":
		return what + ": " + title
	}
	return what
}

// releasePermit gives back the limit slot a's process held, if any.
func (e *Engine) releasePermit(a *agent) {
	if a.holdsPermit {
		a.holdsPermit = false
		e.st.limits.release(a.permit)
	}
}

// processEnded is the bookkeeping of a's process having ended, whether the
// agent ends with it or its pane is respawned: its limit slot, its idle
// timer, its activity watch and the watchdog's record of its pid.
func (e *Engine) processEnded(a *agent) {
	e.releasePermit(a)
	if a.idleTimer != nil {
		a.idleTimer.Stop()
	}
	a.wantActivity.Store(false)
	if e.opts.Watchdog != nil && a.pid > 0 {
		e.opts.Watchdog.Exited(a.pid)
	}
}

// onExit records a process exit: the process is the authority on the end.
func (e *Engine) onExit(a *agent, code int, err error) {
	if e.respawnOnExit(a, code) {
		return
	}
	failure := exitFailure(a, code)
	e.processEnded(a)
	if err != nil {
		e.log.Warn("waiting for an agent's process failed", "agent", a.id, "err", err)
	}
	if failure != "" && e.moveOn(a, failure, failure) {
		e.log.Info("agent ended on a recoverable error; moving on", "agent", a.id, "code", code, "failure", failure)
		e.reconcile()
		return
	}
	c := code
	a.code = &c
	a.ended = e.now()
	e.apply(a, evidence{Kind: evExited, Time: a.ended, Code: code, Killed: a.killWhy != "", Why: a.killWhy})
	e.bus.Publish(hooks.Event{Type: hooks.EventAgentExited, Time: a.ended, Session: e.opts.Session, Agent: a.ref("")})
	e.log.Info("agent exited", "agent", a.id, "code", code, "state", a.f.State)
	e.reconcile()
}

// onTimer is the per-agent timer: while running it checks for quiet
// output; otherwise it re-enables activity reports once a state went stale.
func (e *Engine) onTimer(a *agent) {
	if a.pane == nil || !a.f.State.Alive() {
		return
	}
	now := e.now()
	last := a.pane.LastOutput()
	if a.f.State == agentstate.Running {
		if now.Sub(last) >= e.idleAfter() && now.Sub(a.f.Since) >= e.idleAfter() {
			e.apply(a, evidence{Kind: evQuiet, Time: now})
		}
		if a.f.State == agentstate.Running {
			e.armTimer(a, e.idleDeadline(a))
		}
		return
	}
	// Output that arrived while reports were off counts now.
	if last.After(a.f.Confirmed) && yieldsToActivity(a.f, now, e.fusionConfig()) {
		e.apply(a, evidence{Kind: evActivity, Time: now})
		return
	}
	a.wantActivity.Store(true)
}

// apply feeds evidence to the agent's fused state and records, publishes
// and reacts to any transition.
func (e *Engine) apply(a *agent, ev evidence) {
	if ev.Time.IsZero() {
		ev.Time = e.now()
	}
	// Every reason shown for a state passes here: it may come from a
	// child's output, a hook payload or an error message.
	ev.Why = oneline.Sanitize(ev.Why, maxWhyLen)
	old := a.f
	a.f = fuseState(a.f, ev, e.fusionConfig())
	if a.prompt != nil && a.f.State == agentstate.Idle {
		// The CLI is at rest but its task is not typed yet: it has not
		// begun, so `wait --until idle` must not count it as done.
		a.f = setState(a.f, agentstate.Starting, "its prompt is typed once the CLI is ready", sourceEngine, ev.Time)
	}
	e.st.dirty = true
	if a.f.State != old.State || a.f.Source != old.Source || a.f.Why != old.Why {
		e.st.news = true
		a.history = append(a.history, control.Transition{Time: ev.Time, From: old.State, To: a.f.State, Why: a.f.Why, Source: a.f.Source})
		if len(a.history) > historyLen {
			a.history = a.history[len(a.history)-historyLen:]
		}
	}
	if a.f.State != old.State {
		e.log.Debug("agent state", "agent", a.id, "from", old.State, "to", a.f.State, "why", a.f.Why, "source", a.f.Source)
		e.bus.Publish(hooks.Event{Type: hooks.EventAgentState, Time: ev.Time, Session: e.opts.Session, Agent: a.ref(old.State)})
		if a.f.State.Finished() {
			e.st.finished = true
			// A finished agent waits for nothing: it leaves the queue at
			// once, so it neither counts as queued nor takes a place that
			// a new spawn needs (`show` still brings it into view).
			if a.queued {
				e.st.queue.Remove(a.id)
				a.queued, a.reason = false, ""
			}
		}
		if a.f.State == agentstate.Waiting {
			e.st.waitSeq++
			e.st.lastWaiting = a.id
		}
		e.loopTick(a) // a continuation waits for idle; an end ends the loop
		if event, text, ok := noticeOfState(a, old.State); ok {
			e.notify(a.id, a.parent, event, a.f.State, a.code, text)
		}
		if a.f.State.Finished() {
			e.status.Set(noticeStatusKey(a.id), "", a.id, "agentgrid", 0) // nobody left to tell
		}
	}
	if a.f.State != old.State || a.f.Source != old.Source {
		e.updateTimer(a)
	}
}

// updateTimer keeps the one-timer-per-agent invariant: armed for the quiet
// check while running, otherwise activity reports are on.
func (e *Engine) updateTimer(a *agent) {
	if a.pane == nil || !a.f.State.Alive() {
		if a.idleTimer != nil {
			a.idleTimer.Stop()
		}
		a.wantActivity.Store(false)
		return
	}
	if a.f.State == agentstate.Running {
		a.wantActivity.Store(false)
		e.armTimer(a, e.idleDeadline(a))
		return
	}
	if a.idleTimer != nil {
		a.idleTimer.Stop()
	}
	a.wantActivity.Store(true)
}

// idleDeadline is when a running agent may next be declared idle.
func (e *Engine) idleDeadline(a *agent) time.Time {
	quiet := a.pane.LastOutput()
	if a.f.Since.After(quiet) {
		quiet = a.f.Since // counted from the state change too
	}
	d := quiet.Add(e.idleAfter())
	if !yieldsToActivity(a.f, a.f.Confirmed, e.fusionConfig()) {
		if s := a.f.Confirmed.Add(e.staleAfter()); s.After(d) {
			d = s
		}
	}
	return d
}

func (e *Engine) armTimer(a *agent, at time.Time) {
	d := until(e.clock, at)
	if a.idleTimer == nil {
		a.idleTimer = e.clock.AfterFunc(d, func() { e.postTimer(a) })
		return
	}
	a.idleTimer.Reset(d)
}

func (e *Engine) fusionConfig() fusionConfig {
	return fusionConfig{StaleAfter: e.staleAfter(), IdleAfter: e.idleAfter()}
}

func (e *Engine) idleAfter() time.Duration {
	if d := e.cfg.Agents.IdleAfter.Duration; d > 0 {
		return min(d, config.MaxWait)
	}
	return 5 * time.Second
}

func (e *Engine) staleAfter() time.Duration {
	if d := e.cfg.Status.StaleAfter.Duration; d > 0 {
		return min(d, config.MaxWait)
	}
	return 60 * time.Second
}

func (e *Engine) lingerFor() time.Duration {
	return min(max(e.cfg.Agents.FinishedLinger.Duration, 0), config.MaxWait)
}

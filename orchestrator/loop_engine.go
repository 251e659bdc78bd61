package orchestrator

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentcli/registry"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// loopEndedTTL is how long an ended loop stays in the border and the status
// line.
const loopEndedTTL = 5 * time.Minute

// loopEntry is a loop and the continuation it may have waiting to be typed.
type loopEntry struct {
	loopState
	// prompt is a continuation waiting to be typed (a CLI that does not go
	// on through its hook, or a cooldown); due is set once its time came,
	// and it is typed as soon as the agent is idle.
	prompt string
	due    bool
	timer  Timer
	gen    int // tells a stale timer from the current one
	// answered is the continuation last given as a Stop hook's answer,
	// until the agent shows it went on: if the CLI says it sits idle
	// instead (the answer missed the hook's budget), it is typed.
	answered string
	history  []control.Decided
	// todos is the agent's todo list as last seen (--while-todos).
	todos *agentstate.Todos
}

func (l *loopEntry) info() *control.LoopInfo {
	in := &control.LoopInfo{
		LoopSpec: l.spec, Iteration: l.iteration, Status: l.status,
		Started: l.started, Reason: l.reason, Updated: l.updated,
	}
	if l.spec.WhileTodos && l.todos != nil {
		t := *l.todos
		in.Todos = &t
	}
	return in
}

// loopHistoryLen is how many of a loop's steps explain keeps.
const loopHistoryLen = 20

// set gives the loop a status and a reason, and records the step for
// explain.
func (l *loopEntry) set(status, reason string, now time.Time) {
	l.status, l.reason, l.updated = status, reason, now
	l.history = append(l.history, control.Decided{Time: now, Point: "loop", Action: status, Policy: "loop", Reason: reason})
	if len(l.history) > loopHistoryLen {
		l.history = l.history[len(l.history)-loopHistoryLen:]
	}
}

// decisions is agent id's loop steps for explain, oldest first.
func (b *loopBoard) decisions(id string) []control.Decided {
	b.mu.Lock()
	defer b.mu.Unlock()
	if l := b.m[id]; l != nil {
		return append([]control.Decided(nil), l.history...)
	}
	return nil
}

// cancel drops a waiting continuation.
func (l *loopEntry) cancel() {
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	l.prompt, l.due, l.answered = "", false, ""
	l.gen++
}

// loopBoard holds the agents' loops under its own lock: a Stop hook is
// answered from it without the reconciler. Nothing calls into the engine
// while holding the lock.
type loopBoard struct {
	mu sync.Mutex
	m  map[string]*loopEntry
	// todos is each agent's todo list as its hooks last showed it, kept
	// for a loop started later with --while-todos.
	todos map[string]agentstate.Todos
}

// noteTodos records an agent's todo list (from Decide).
func (b *loopBoard) noteTodos(id string, t agentstate.Todos) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.todos == nil {
		b.todos = map[string]agentstate.Todos{}
	}
	b.todos[id] = t
	if l := b.m[id]; l != nil {
		l.todos = &t
	}
}

// info is agent id's loop for its AgentInfo, nil when it has none.
func (b *loopBoard) info(id string) *control.LoopInfo {
	b.mu.Lock()
	defer b.mu.Unlock()
	if l := b.m[id]; l != nil {
		return l.info()
	}
	return nil
}

// begin records a new running loop at iteration 1.
func (b *loopBoard) begin(id string, spec control.LoopSpec, now time.Time, why string) *loopEntry {
	if b.m == nil {
		b.m = map[string]*loopEntry{}
	}
	l := &loopEntry{loopState: loopState{spec: spec, iteration: 1, started: now}}
	if t, ok := b.todos[id]; ok {
		// Progress counts from the list as the loop found it.
		l.todos, l.doneAt = &t, t.Done
	}
	l.set(control.LoopRunning, why, now)
	b.m[id] = l
	return l
}

// withLoopPrompt gives a spawn with a loop its first prompt: the task in
// the loop's template, so the agent knows the promise from its first turn.
func withLoopPrompt(req control.SpawnRequest) (control.SpawnRequest, *control.LoopSpec) {
	if req.Loop == nil {
		return req, nil
	}
	spec := *req.Loop
	if spec.Task == "" {
		spec.Task = req.Prompt
	}
	if req.Prompt != "" {
		req.Prompt = loopPrompt(spec, 1)
	}
	return req, &spec
}

// reportsTurns says whether an agent can tell agentgrid that a turn ended,
// which is what a loop acts on: one of its CLI's hooks has been heard, or
// its kind wires the hooks of a CLI that reports events. A plain program
// (sh, make, a kind without hooks) never ends a turn, so its loop would
// stand still; the loop's reason says so instead of a silent "running".
func (e *Engine) reportsTurns(kind string, lastHook time.Time) bool {
	if !lastHook.IsZero() {
		return true
	}
	k, ok := e.cfg.Kinds[kind]
	if !ok || k.Hooks == "" {
		return false
	}
	cli, ok := registry.Lookup(k.Hooks)
	return ok && len(cli.Events()) > 0
}

// noTurnsWarning is the loop reason of an agent that reports no turns.
func noTurnsWarning(kind string) string {
	what := "a plain program"
	if kind != "" {
		what = fmt.Sprintf("kind %s, which wires no agent-CLI hooks,", kind)
	}
	return "it runs " + what + " so no turn end is seen and the loop waits until one of an agent CLI's hooks is heard (start agent CLIs with --kind or --category)"
}

// startSpawnLoop starts the loop of a new agent (reconciler).
func (e *Engine) startSpawnLoop(id string, spec control.LoopSpec, kind string) {
	e.loops.mu.Lock()
	why := "started with the agent"
	if !e.reportsTurns(kind, time.Time{}) {
		why += "; " + noTurnsWarning(kind)
	}
	l := e.loops.begin(id, spec, e.now(), why)
	info := l.info()
	e.loops.mu.Unlock()
	e.showLoop(id, info, false)
}

// Loop starts, stops or resumes agent id's loop (control.LooperBackend).
func (e *Engine) Loop(id, op string, spec control.LoopSpec) (control.LoopInfo, error) {
	var info control.LoopInfo
	var err error
	if derr := e.do(func() { info, err = e.loopOp(id, op, spec) }); derr != nil {
		return control.LoopInfo{}, derr
	}
	return info, err
}

func (e *Engine) loopOp(id, op string, spec control.LoopSpec) (control.LoopInfo, error) {
	a, err := e.agentByID(id)
	if err != nil {
		return control.LoopInfo{}, err
	}
	b := &e.loops
	b.mu.Lock()
	l := b.m[id]
	now := e.now()
	switch op {
	case control.LoopStart:
		if a.f.State.Finished() {
			b.mu.Unlock()
			return control.LoopInfo{}, fmt.Errorf("agent %s has ended (%s); a loop needs a live agent", id, a.f.State)
		}
		if l != nil && (l.status == control.LoopRunning || l.status == control.LoopPaused) {
			b.mu.Unlock()
			return control.LoopInfo{}, fmt.Errorf("agent %s already has a %s loop; stop it first with agentgrid loop stop %s", id, l.status, id)
		}
		if spec.Task == "" {
			spec.Task = e.turns.get(id).prompt
		}
		if strings.TrimSpace(spec.Task) == "" {
			b.mu.Unlock()
			return control.LoopInfo{}, fmt.Errorf("agentgrid saw no prompt given to agent %s; give the task with --task TEXT", id)
		}
		l = b.begin(id, spec, now, "started")
		if a.f.State != agentstate.Running {
			// Nothing is under way: the first iteration is typed in.
			l.set(l.status, "started: iteration 1 sent", now)
			e.scheduleTyped(id, l, loopPrompt(spec, 1), typeSettle)
		}
		if !e.reportsTurns(a.kind, a.lastHookAt) {
			l.set(l.status, l.reason+"; "+noTurnsWarning(a.kind), now)
		}
	case control.LoopStop:
		if l == nil || l.status != control.LoopRunning && l.status != control.LoopPaused {
			b.mu.Unlock()
			return control.LoopInfo{}, fmt.Errorf("agent %s has no running or paused loop", id)
		}
		l.cancel()
		l.set(control.LoopStopped, "stopped on request", now)
	case control.LoopResume:
		if l == nil || l.status != control.LoopPaused {
			b.mu.Unlock()
			return control.LoopInfo{}, fmt.Errorf("agent %s has no paused loop to resume", id)
		}
		l.typed = false
		l.set(control.LoopRunning, "resumed", now)
		if a.f.State != agentstate.Running {
			// The paused turn is over: the next one starts now, if the
			// bounds allow it.
			e.applyLoopStep(id, l, decideLoop(l.loopState, loopTurn{todos: l.todos, now: now}))
		}
	}
	info := l.info()
	b.mu.Unlock()
	e.log.Info("loop", "agent", id, "op", op, "status", info.Status, "iteration", info.Iteration, "reason", info.Reason)
	e.showLoop(id, info, false)
	e.st.dirty = true
	e.publish()
	return *info, nil
}

// applyLoopStep records a decision (board lock held) and returns the
// prompt when it goes out as the hook's answer; a continuation to type is
// armed here.
func (e *Engine) applyLoopStep(id string, l *loopEntry, step loopStep) string {
	l.set(step.status, step.reason, e.now())
	if step.next == 0 {
		l.cancel()
		return ""
	}
	l.iteration, l.typed, l.answered = step.next, false, ""
	l.doneAt, l.stalls = step.doneAt, step.stalls
	if step.answer {
		l.cancel()
		l.answered = step.prompt
		return step.prompt
	}
	e.scheduleTyped(id, l, step.prompt, step.delay)
	return ""
}

// loopOnStop decides a running loop at the end of a turn (from Decide, off
// the reconciler). It returns the hook's answer when the loop goes on
// through it.
func (e *Engine) loopOnStop(id, cli string, ask agentstate.Ask) (agentstate.Decision, bool) {
	before, _ := e.Agent(id) // the state the turn ended in, before the Stop's signal
	b := &e.loops
	b.mu.Lock()
	l := b.m[id]
	if l == nil || l.status != control.LoopRunning {
		b.mu.Unlock()
		return agentstate.Decision{}, false
	}
	step := decideLoop(l.loopState, loopTurn{
		said: ask.Said, waiting: before.State == agentstate.Waiting, answerable: registry.ContinuesAtStop(cli), todos: l.todos, now: e.now(),
	})
	prompt := e.applyLoopStep(id, l, step)
	info := l.info()
	b.mu.Unlock()
	e.log.Info("loop", "agent", id, "status", info.Status, "iteration", info.Iteration, "reason", info.Reason)
	e.showLoop(id, info, step.notify)
	e.republish()
	if prompt == "" {
		return agentstate.Decision{}, false
	}
	return agentstate.Decision{Action: agentstate.ActionBlock, Message: prompt, Policy: "loop"}, true
}

// scheduleTyped arms the typing of a continuation after delay (board lock
// held).
func (e *Engine) scheduleTyped(id string, l *loopEntry, prompt string, delay time.Duration) {
	l.cancel()
	l.prompt = prompt
	gen := l.gen
	l.timer = e.clock.AfterFunc(delay, func() {
		_ = e.do(func() {
			e.loops.mu.Lock()
			if cur := e.loops.m[id]; cur == l && l.gen == gen && l.prompt != "" {
				l.due = true
			}
			e.loops.mu.Unlock()
			if a := e.st.agents[id]; a != nil {
				e.loopTick(a)
			}
		})
	})
}

// loopTick types a due continuation once the agent is idle, or pauses the
// loop when the user got in the way (reconciler).
func (e *Engine) loopTick(a *agent) {
	b := &e.loops
	b.mu.Lock()
	l := b.m[a.id]
	ended := a.f.State.Finished()
	if l == nil || l.status != control.LoopRunning && (l.status != control.LoopPaused || !ended) {
		b.mu.Unlock()
		return
	}
	now := e.now()
	notify := false
	var text []byte
	switch {
	case ended:
		l.cancel()
		l.set(control.LoopStopped, "stopped: the agent ended", now)
	case !l.due:
		b.mu.Unlock()
		return
	case l.typed:
		l.cancel()
		l.set(control.LoopPaused, "paused: you typed into the pane; resume with agentgrid loop resume", now)
	case a.f.State == agentstate.Waiting:
		l.cancel()
		l.set(control.LoopPaused, "paused: the agent is waiting for you; resume with agentgrid loop resume", now)
		notify = true
	case a.f.State != agentstate.Idle || a.term == nil:
		b.mu.Unlock()
		return // typed once the agent is idle
	default:
		// Pasted as a typed spawn prompt is: in pieces Claude Code takes
		// as text, not one paste it folds into a pasted-content wrapper.
		text = typedBytes(a, withoutControls(l.prompt))
		l.cancel()
		l.set(l.status, fmt.Sprintf("continued: iteration %d typed", l.iteration), now)
	}
	info := l.info()
	b.mu.Unlock()
	if !a.closed {
		// A closed agent's entries are gone with it (stopAgent).
		e.showLoop(a.id, info, notify)
	}
	e.st.dirty = true
	if text == nil {
		return
	}
	id := a.id
	go func() {
		// Text, then Enter as a key of its own (see Send).
		if err := e.Send(id, append(text, '\r')); err != nil {
			e.log.Warn("loop: typing the continuation failed", "agent", id, "err", err)
		}
	}()
}

// loopHeard follows a running loop's agent after a continuation given as
// a Stop answer (reconciler): any sign of work means the CLI took it; the
// CLI's own word that it sits idle waiting for input (Claude Code's
// idle_prompt notification) means the answer never reached it, so the
// continuation is typed instead.
func (e *Engine) loopHeard(a *agent, sig agentstate.Signal) {
	b := &e.loops
	b.mu.Lock()
	l := b.m[a.id]
	if l == nil || l.status != control.LoopRunning || l.answered == "" {
		b.mu.Unlock()
		return
	}
	switch {
	case sig.State == agentstate.Running:
		l.answered = ""
	case sig.State == agentstate.Idle && sig.Event == "Notification":
		prompt := l.answered
		l.answered = ""
		l.set(l.status, fmt.Sprintf("continued: the Stop answer of iteration %d was lost; typing it", l.iteration), e.now())
		e.scheduleTyped(a.id, l, prompt, typeSettle)
		e.log.Warn("loop: the agent sits idle after a continuation answered at its Stop; typing it", "agent", a.id, "iteration", l.iteration)
	}
	b.mu.Unlock()
}

// continuationBytes is a continuation as typed into a's pane: pasted when
// the program takes bracketed paste, else on one line, since a newline
// would submit it half-way.
func continuationBytes(a *agent, prompt string) []byte {
	if a.term != nil && a.term.Modes().BracketedPaste {
		return a.term.EncodePaste(prompt)
	}
	return []byte(strings.Join(strings.Fields(prompt), " "))
}

// loopInput notes the user's keys to a's pane (reconciler): Esc or ctrl+c
// pauses a running loop at once; anything else typed pauses it when the
// turn ends.
func (e *Engine) loopInput(a *agent, data []byte) {
	k := classifyLoopInput(data)
	if k == loopKeyNone {
		return
	}
	b := &e.loops
	b.mu.Lock()
	l := b.m[a.id]
	if l == nil || l.status != control.LoopRunning {
		b.mu.Unlock()
		return
	}
	if k == loopKeyTyped {
		l.typed = true
		b.mu.Unlock()
		return
	}
	l.cancel()
	l.set(control.LoopPaused, "paused: interrupted by user", e.now())
	info := l.info()
	b.mu.Unlock()
	e.log.Info("loop", "agent", a.id, "status", info.Status, "reason", info.Reason)
	e.showLoop(a.id, info, false)
}

// showLoop puts a loop into the pane's border and the status line; notify
// adds a notice the user cannot miss.
func (e *Engine) showLoop(id string, info *control.LoopInfo, notify bool) {
	ttl := time.Duration(0)
	if info.Status == control.LoopSucceeded || info.Status == control.LoopStopped {
		ttl = loopEndedTTL
	}
	e.status.Set("loop:"+id, info.Label(), id, "loop", ttl)
	if notify {
		e.status.SetNotice("loop-paused:"+id, id+"'s loop "+info.Reason, time.Minute)
	}
}

// republish publishes the snapshot again from outside the reconciler.
func (e *Engine) republish() {
	go func() {
		_ = e.do(func() {
			e.st.dirty = true
			e.publish()
		})
	}()
}

package orchestrator

import (
	"context"
	"sync"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

// Waking an idle parent: when a Claude Code agent's turn ends, its
// generated settings start `agentgrid hook claude --rewake` in the
// background (Claude Code's asyncRewake hook), which waits here
// (agent.rewake) until every agent it started has finished and notices
// about them wait. It then prints them and exits 2, and Claude Code wakes
// the model with them as a new message — nothing is typed into its screen.
// One waiter per agent: a newer one replaces it; the agent's next turn,
// its end and the session's end send it away without a wake.

// rewakeWaiter is one agent's waiting rewake hook.
type rewakeWaiter struct {
	done chan struct{} // closed when it is sent away
	why  string        // why, set before done closes
}

// rewakeBoard holds the one waiter of each agent.
type rewakeBoard struct {
	mu sync.Mutex
	m  map[string]*rewakeWaiter
}

// register makes a new waiter for id, sending away the one before it.
func (b *rewakeBoard) register(id string) *rewakeWaiter {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]*rewakeWaiter{}
	}
	if old := b.m[id]; old != nil {
		old.why = control.RewakeReplaced
		close(old.done)
	}
	w := &rewakeWaiter{done: make(chan struct{})}
	b.m[id] = w
	return w
}

// interrupt sends id's waiter away, if there is one, saying why.
func (b *rewakeBoard) interrupt(id, why string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if w := b.m[id]; w != nil {
		w.why = why
		close(w.done)
		delete(b.m, id)
	}
}

// unregister forgets w when it is still id's waiter.
func (b *rewakeBoard) unregister(id string, w *rewakeWaiter) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m[id] == w {
		delete(b.m, id)
	}
}

// waiting reports whether id has a waiter (for tests and explain).
func (b *rewakeBoard) waiting(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.m[id] != nil
}

// Rewake implements control.RewakeBackend: it waits until agent id should
// be woken — notices wait for it that no hook holds, and every agent it
// started has finished — and hands those notices to the caller, held for it
// until it acknowledges them. It answers without a wake when there is
// nothing to wait for (no live child, no notice), when a newer waiter
// replaces it, when the agent's next turn starts first, when the agent or
// the session ends, or when ctx ends. It waits on events, never by polling.
func (e *Engine) Rewake(ctx context.Context, id string) (control.RewakeResult, error) {
	w := e.rewakes.register(id)
	defer e.rewakes.unregister(id, w)
	for {
		changed, fin := e.notices.changed(), e.finishChan()
		if !e.liveAgent(id) {
			return control.RewakeResult{Reason: control.RewakeEnded}, nil
		}
		now := e.now()
		free, heldUntil := e.notices.available(id, now)
		live := e.liveChildren(id)
		if live == 0 && len(free) > 0 {
			if ns := e.notices.offer(id, now, "the rewake hook"); len(ns) > 0 {
				e.log.Info("notices offered to wake the agent", "agent", id, "count", len(ns))
				return control.RewakeResult{Wake: true, Message: noticeText(ns), Notices: ns[len(ns)-1].Seq}, nil
			}
			continue
		}
		if live == 0 && len(free) == 0 && heldUntil.IsZero() {
			return control.RewakeResult{Reason: control.RewakeNothing}, nil
		}
		if res, done, err := e.rewakeWait(ctx, w, changed, fin, heldUntil, now); done {
			return res, err
		}
	}
}

// rewakeWait waits for the next thing that may change Rewake's answer; done
// is true when the wait is over, with its answer.
func (e *Engine) rewakeWait(ctx context.Context, w *rewakeWaiter, changed, fin <-chan struct{}, heldUntil, now time.Time) (control.RewakeResult, bool, error) {
	var lapse <-chan time.Time
	if !heldUntil.IsZero() {
		// Notices another hook holds come free if it never acknowledges
		// them.
		t := e.clock.NewTimer(max(heldUntil.Sub(now), time.Millisecond))
		defer t.Stop()
		lapse = t.C()
	}
	select {
	case <-changed:
	case <-fin:
	case <-lapse:
	case <-w.done:
		return control.RewakeResult{Reason: w.why}, true, nil
	case <-ctx.Done():
		return control.RewakeResult{Reason: control.RewakeTimeout}, true, nil
	case <-e.loopEnd:
		return control.RewakeResult{Reason: control.RewakeEnded}, true, errShutDown
	}
	return control.RewakeResult{}, false, nil
}

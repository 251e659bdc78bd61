package orchestrator

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/oneline"
)

// A turn: the user (or agentgrid) submits a prompt, and the CLI's
// end-of-turn hook arrives after it with something said. An idle agent that
// was never prompted (a session that just started) has finished no turn,
// and an end-of-turn hook with nothing said does not end one.

// maxTurnSummary bounds the summary an agent_turn_done event carries.
const maxTurnSummary = 160

type turnState struct {
	inTurn  bool // prompted, and the turn has not ended
	done    int  // turns finished
	summary string
	prompt  string // the last prompt submitted: a loop's task by default
}

// turnBoard is the agents' turns, kept off the reconciler (the hooks that
// report them are answered from a snapshot), and the wake-up of the waits
// on turns and states.
type turnBoard struct {
	mu      sync.Mutex
	m       map[string]*turnState
	ch      chan struct{} // closed and replaced on every poke while someone waits
	waiters atomic.Int32
}

// poke wakes the waits; free when nobody waits.
func (b *turnBoard) poke() {
	if b.waiters.Load() == 0 {
		return
	}
	b.mu.Lock()
	if b.ch != nil {
		close(b.ch)
		b.ch = nil
	}
	b.mu.Unlock()
}

func (b *turnBoard) wake() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	return b.ch
}

func (b *turnBoard) get(id string) turnState {
	b.mu.Lock()
	defer b.mu.Unlock()
	if st := b.m[id]; st != nil {
		return *st
	}
	return turnState{}
}

// note records what a hook's ask says about the turn; it reports the
// summary and true when the ask ended a turn.
func (b *turnBoard) note(id string, ask agentstate.Ask) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]*turnState{}
	}
	st := b.m[id]
	if st == nil {
		st = &turnState{}
		b.m[id] = st
	}
	switch ask.Point {
	case agentstate.PointPrompt:
		st.inTurn = true
		if strings.TrimSpace(ask.Prompt) != "" {
			st.prompt = ask.Prompt
		}
	case agentstate.PointStop:
		said := strings.TrimSpace(ask.Said)
		if !st.inTurn || said == "" {
			return "", false
		}
		st.inTurn = false
		st.done++
		first, _, _ := strings.Cut(said, "\n")
		st.summary = oneline.Sanitize(first, maxTurnSummary)
		return st.summary, true
	}
	return "", false
}

// noteTurn follows an agent's turns from its answerable hooks and publishes
// agent_turn_done when one ends.
func (e *Engine) noteTurn(id string, ask agentstate.Ask) {
	summary, ended := e.turns.note(id, ask)
	if !ended {
		return
	}
	if info, ok := e.Agent(id); ok {
		e.notify(info.ID, info.Parent, control.NoticeTurn, info.State, nil, info.ID+" finished a turn: "+summary)
		e.bus.Publish(hooks.Event{Type: hooks.EventAgentTurnDone, Time: e.now(), Session: e.opts.Session, Agent: &hooks.AgentRef{
			ID: info.ID, Title: info.Title, Kind: info.Kind, State: string(info.State), Why: info.Why, Source: info.Source,
			Created: info.Created, Started: info.Started, Summary: summary,
		}})
	}
	e.turns.poke()
}

// reached reports whether an agent got to until (see control.WaitUntils).
// A finished agent has reached every condition: it will get to no other.
func reached(in control.AgentInfo, st turnState, until string) bool {
	if in.State.Finished() {
		return true
	}
	turn := st.done > 0 && !st.inTurn
	switch until {
	case control.UntilTurn:
		return turn
	case control.UntilIdle:
		return in.State == agentstate.Idle
	case control.UntilWaiting:
		return in.State == agentstate.Waiting
	case control.UntilAny:
		return turn || in.State == agentstate.Idle || in.State == agentstate.Waiting
	}
	return false
}

// WaitUntil blocks until every agent in ids (with any, one of them) has
// reached until, or ctx is done (control.UntilWaiter). The infos carry the
// agents' turn counts and last summaries.
func (e *Engine) WaitUntil(ctx context.Context, ids []string, until string, anyOne bool) ([]control.AgentInfo, error) {
	e.turns.waiters.Add(1)
	defer e.turns.waiters.Add(-1)
	for {
		wake, fin := e.turns.wake(), e.finishChan()
		out := make([]control.AgentInfo, 0, len(ids))
		all, some := true, false
		for _, id := range ids {
			in, err := e.agentSettled(id)
			if err != nil {
				return out, err
			}
			st := e.turns.get(id)
			in.Turns, in.LastTurn = st.done, st.summary
			out = append(out, in)
			r := reached(in, st, until)
			all, some = all && r, some || r
		}
		if all || anyOne && some {
			return out, nil
		}
		select {
		case <-wake:
		case <-fin:
		case <-ctx.Done():
			return out, ctx.Err()
		case <-e.loopEnd:
			return out, errShutDown
		}
	}
}

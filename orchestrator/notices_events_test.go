package orchestrator

import (
	"context"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// A notice a hook holds (offered, not yet acknowledged) is not handed to
// agent.events meanwhile: it is the hook's once acknowledged, and
// agent.events, which waited, never returns it; once a hook's hold ends
// without an acknowledgement, agent.events gets it, and no hook after. So
// each notice reaches the parent once, whichever path asks first: a call
// from an older cursor reads again what agent.events returned, never what
// a hook delivered.
func TestAgentEventsRespectsAHooksHold(t *testing.T) {
	clock := newFakeClock()
	e, sock := startSocketEngine(t, "evhold", func(cfg *config.Config, o *Options) {
		cfg.Kinds["orch"] = config.Kind{Command: []string{"cat"}, Hooks: "opencode"}
		cfg.Orchestrator.Kind = "orch"
		o.Clock = clock
	})
	e.notices.mu.Lock()
	e.notices.lease = time.Hour
	e.notices.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	main := dialAs(t, sock, e.AgentToken(control.MainID))
	spawnExit := func(code string) string {
		t.Helper()
		a, err := e.Spawn(control.SpawnRequest{Argv: []string{"sh", "-c", "exit " + code}, Parent: control.MainID})
		if err != nil {
			t.Fatal(err)
		}
		waitFinished(t, e, a.ID)
		return a.ID
	}
	type result struct {
		r   control.EventsResult
		err error
	}
	poll := func(cursor int64) chan result {
		got := make(chan result, 1)
		go func() {
			r, err := main.Events(ctx, control.EventsParams{Cursor: cursor, TimeoutMS: 20000})
			got <- result{r, err}
		}()
		return got
	}
	agents := func(r control.EventsResult) []string {
		var ids []string
		for _, n := range r.Events {
			ids = append(ids, n.Agent)
		}
		return ids
	}

	// A hook holds the first child's notice.
	first := spawnExit("3")
	held := decide(t, e, control.MainID, "claude", askPrompt("go on"))
	if held.Notices == 0 {
		t.Fatalf("main's prompt got %+v, want the notice of %s", held, first)
	}
	if r, err := main.Events(ctx, control.EventsParams{}); err != nil || len(r.Events) != 0 {
		t.Fatalf("agent.events while a hook holds %s's notice: %+v %v, want nothing", first, r, err)
	}
	// A poll waits through the hook's acknowledgement: the notice is the
	// hook's. The next child's notice is the poll's.
	got := poll(0)
	if err := e.AckNotices(control.MainID, held.Notices); err != nil {
		t.Fatal(err)
	}
	second := spawnExit("4")
	res := <-got
	if res.err != nil || len(res.r.Events) != 1 || res.r.Events[0].Agent != second {
		t.Fatalf("agent.events after the hook took %s's notice: %+v (agents %v) %v, want only %s", first, res.r, agents(res.r), res.err, second)
	}
	// Read again from the start: what agent.events returned, never what
	// the hook printed.
	if r, err := main.Events(ctx, control.EventsParams{}); err != nil || len(r.Events) != 1 || r.Events[0].Agent != second {
		t.Errorf("agent.events from 0: %+v (agents %v) %v, want %s alone", r, agents(r), err, second)
	}

	// A hook that gave up holds the third child's notice; a poll waits for
	// the hold to end (on the engine's clock) and then gets it.
	third := spawnExit("5")
	lost := decide(t, e, control.MainID, "claude", askPrompt("lost"))
	if lost.Notices == 0 {
		t.Fatalf("main's prompt got %+v, want the notice of %s", lost, third)
	}
	got = poll(res.r.Cursor)
	clock.waitTimerAt(t, clock.Now().Add(time.Hour), "agent.events to wait for the hook's hold to end")
	clock.Advance(time.Hour)
	res = <-got
	if res.err != nil || len(res.r.Events) != 1 || res.r.Events[0].Agent != third {
		t.Fatalf("agent.events after the hold ended: %+v (agents %v) %v, want %s", res.r, agents(res.r), res.err, third)
	}
	if d := decide(t, e, control.MainID, "claude", askPrompt("next")); d.Notices != 0 || d.Action != agentstate.ActionNone {
		t.Errorf("main's next hook got %+v after agent.events returned the notice, want nothing", d)
	}
}

package orchestrator

import (
	"context"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

type rewakeAnswer struct {
	res control.RewakeResult
	err error
}

// startRewake runs agent.rewake for id over the socket, as the rewake hook
// does, and waits until the session holds it as id's waiter.
func startRewake(t *testing.T, e *Engine, sock, id string) <-chan rewakeAnswer {
	t.Helper()
	c := dialAs(t, sock, e.AgentToken(id))
	got := make(chan rewakeAnswer, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		r, err := c.Rewake(ctx, control.RewakeParams{ID: id, TimeoutMS: 30000})
		got <- rewakeAnswer{r, err}
	}()
	pollUntil(t, 15*time.Second, "the rewake waiter of "+id, func() bool { return e.rewakes.waiting(id) })
	return got
}

func rewakeResult(t *testing.T, got <-chan rewakeAnswer) control.RewakeResult {
	t.Helper()
	select {
	case a := <-got:
		if a.err != nil {
			t.Fatalf("agent.rewake: %v", a.err)
		}
		return a.res
	case <-time.After(30 * time.Second):
		t.Fatal("agent.rewake did not answer")
	}
	return control.RewakeResult{}
}

// An idle parent whose last child finishes is woken once, with the
// notices, by the waiter its Stop started; its next hook does not repeat
// them, and explain says how they went.
func TestRewakeWakesAnIdleParentOnce(t *testing.T) {
	e, sock := startNoticeEngine(t)
	child, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}, Parent: control.MainID})
	if err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, child.ID, "running", func(a control.AgentInfo) bool { return a.State.Alive() && a.PID > 0 })
	decideAck(t, e, control.MainID, "claude", askPrompt("start a worker"))
	if d := decide(t, e, control.MainID, "claude", askStop("started it", false)); d.Action != agentstate.ActionNone {
		t.Fatalf("the Stop with a live child got %+v, want nothing", d)
	}
	got := startRewake(t, e, sock, control.MainID)
	select {
	case a := <-got:
		t.Fatalf("the waiter answered %+v while the child is live", a)
	default:
	}
	if err := e.Close(child.ID); err != nil {
		t.Fatal(err)
	}
	res := rewakeResult(t, got)
	want := "agentgrid: " + child.ID + " was closed"
	if !res.Wake || res.Message != want || res.Notices == 0 {
		t.Fatalf("the waiter got %+v, want a wake with %q", res, want)
	}
	if err := e.AckNotices(control.MainID, res.Notices); err != nil {
		t.Fatal(err)
	}
	if d := decide(t, e, control.MainID, "claude", askPrompt("next")); d.Action != agentstate.ActionNone {
		t.Errorf("the next prompt got %+v, want nothing: the waiter delivered the notice", d)
	}
	ex, err := e.Explain(control.MainID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Notices) != 1 || ex.Notices[0].Text != child.ID+" was closed" || ex.Notices[0].Delivered.IsZero() || ex.Notices[0].Via != "the rewake hook" || ex.RewakeWaiting {
		t.Errorf("explain's notices = %+v (waiting %v), want the one delivered by the rewake hook", ex.Notices, ex.RewakeWaiting)
	}
}

// The waiter goes without a wake when nothing can come (no live child),
// when a newer waiter replaces it (one per agent), and when the agent's
// next turn starts first.
func TestRewakeGoesWithoutAWake(t *testing.T) {
	e, sock := startNoticeEngine(t)
	c := dialAs(t, sock, e.AgentToken(control.MainID))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res, err := c.Rewake(ctx, control.RewakeParams{ID: control.MainID, TimeoutMS: 20000}); err != nil || res.Wake || res.Reason != control.RewakeNothing {
		t.Fatalf("with no child: %+v %v, want %q at once", res, err, control.RewakeNothing)
	}
	child, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}, Parent: control.MainID})
	if err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, child.ID, "running", func(a control.AgentInfo) bool { return a.State.Alive() && a.PID > 0 })

	first := startRewake(t, e, sock, control.MainID)
	second := dialAs(t, sock, e.AgentToken(control.MainID))
	secondGot := make(chan rewakeAnswer, 1)
	go func() {
		r, err := second.Rewake(ctx, control.RewakeParams{ID: control.MainID, TimeoutMS: 20000})
		secondGot <- rewakeAnswer{r, err}
	}()
	if res := rewakeResult(t, first); res.Wake || res.Reason != control.RewakeReplaced {
		t.Fatalf("the first waiter got %+v, want %q", res, control.RewakeReplaced)
	}
	decide(t, e, control.MainID, "claude", askPrompt("the user types"))
	if res := rewakeResult(t, secondGot); res.Wake || res.Reason != control.RewakeTurn {
		t.Fatalf("the second waiter got %+v, want %q", res, control.RewakeTurn)
	}
	// A child's own agent may not wait to wake its parent.
	cc := dialAs(t, sock, e.AgentToken(child.ID))
	_, err = cc.Rewake(ctx, control.RewakeParams{ID: control.MainID})
	wantForbidden(t, "a child waits to wake main", err)
}

// The Stop hook and the waiter both run at the end of a turn: notices the
// Stop hook was given are held for it, so the waiter does not print them
// too; it takes them only if that hook never acknowledges them (its timer
// fires when the hold ends).
func TestRewakeLeavesWhatTheStopHookHolds(t *testing.T) {
	e, sock := startNoticeEngine(t)
	finishChild := func() string {
		t.Helper()
		c, err := e.Spawn(control.SpawnRequest{Argv: []string{"sh", "-c", "exit 0"}, Parent: control.MainID})
		if err != nil {
			t.Fatal(err)
		}
		waitFinished(t, e, c.ID)
		waitAgent(t, e, c.ID, "in the snapshot as finished", func(a control.AgentInfo) bool { return a.State.Finished() })
		return c.ID
	}
	setLease := func(d time.Duration) {
		e.notices.mu.Lock()
		e.notices.lease = d
		e.notices.mu.Unlock()
	}
	setLease(time.Hour)
	finishChild()
	d := decide(t, e, control.MainID, "claude", askStop("done", false))
	if d.Action != agentstate.ActionBlock || d.Notices == 0 {
		t.Fatalf("the Stop got %+v, want the notice as a block", d)
	}
	got := startRewake(t, e, sock, control.MainID)
	// The Stop hook acknowledges what it printed: nothing is left for the
	// waiter, which goes without a wake.
	if err := e.AckNotices(control.MainID, d.Notices); err != nil {
		t.Fatal(err)
	}
	if res := rewakeResult(t, got); res.Wake || res.Reason != control.RewakeNothing {
		t.Fatalf("the waiter got %+v beside a Stop hook that held the notice, want %q", res, control.RewakeNothing)
	}

	// This time the Stop hook never acknowledges: once its hold ends, the
	// waiter takes the notice.
	setLease(300 * time.Millisecond)
	second := finishChild()
	d = decide(t, e, control.MainID, "claude", askStop("done again", false))
	if d.Action != agentstate.ActionBlock || d.Notices == 0 {
		t.Fatalf("the second Stop got %+v, want the notice as a block", d)
	}
	c := dialAs(t, sock, e.AgentToken(control.MainID))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.Rewake(ctx, control.RewakeParams{ID: control.MainID, TimeoutMS: 20000})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Wake || res.Message != "agentgrid: "+second+" finished (exit 0)" || res.Notices != d.Notices {
		t.Fatalf("the waiter got %+v after the hold ended, want the notice up to %d", res, d.Notices)
	}
}

// A parent that ends sends its waiter away without a wake, and the waiter
// of a parent that is not the main view works the same (one board per
// agent).
func TestRewakeEndsWithTheParent(t *testing.T) {
	e, sock := startNoticeEngine(t)
	parent, err := e.Spawn(control.SpawnRequest{Kind: "orch", Parent: control.MainID})
	if err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, parent.ID, "running", func(a control.AgentInfo) bool { return a.State.Alive() && a.PID > 0 })
	if _, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}, Parent: parent.ID}); err != nil {
		t.Fatal(err)
	}
	got := startRewake(t, e, sock, parent.ID)
	if err := e.Close(parent.ID); err != nil {
		t.Fatal(err)
	}
	if res := rewakeResult(t, got); res.Wake || res.Reason != control.RewakeEnded {
		t.Fatalf("the waiter of a parent that ended got %+v, want %q", res, control.RewakeEnded)
	}
}

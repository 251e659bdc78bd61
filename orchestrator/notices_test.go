package orchestrator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// startNoticeEngine is startSocketEngine with a main view whose kind wires
// hooks, so that it hears about its children.
func startNoticeEngine(t *testing.T) (*Engine, string) {
	return startSocketEngine(t, "notices", func(cfg *config.Config, _ *Options) {
		cfg.Kinds["orch"] = config.Kind{Command: []string{"cat"}, Hooks: "opencode"}
		cfg.Orchestrator.Kind = "orch"
	})
}

func askPrompt(text string) agentstate.Ask {
	return agentstate.Ask{Point: agentstate.PointPrompt, Prompt: text, SessionID: "s"}
}

func askStop(said string, repeat bool) agentstate.Ask {
	return agentstate.Ask{Point: agentstate.PointStop, Said: said, SessionID: "s", Repeat: repeat}
}

func decide(t *testing.T, e *Engine, id, cli string, ask agentstate.Ask) agentstate.Decision {
	t.Helper()
	d, err := e.Decide(id, cli, agentstate.Signal{}, ask)
	if err != nil {
		t.Fatalf("decide %s %s: %v", id, ask.Point, err)
	}
	return d
}

// decideAck is decide followed by the acknowledgement `agentgrid hook`
// sends once it printed an answer carrying notices.
func decideAck(t *testing.T, e *Engine, id, cli string, ask agentstate.Ask) agentstate.Decision {
	t.Helper()
	d := decide(t, e, id, cli, ask)
	if d.Notices > 0 {
		if err := e.AckNotices(id, d.Notices); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func noticeStatus(e *Engine, key string) string {
	for _, en := range e.status.Entries() {
		if en.Key == key {
			return en.Text
		}
	}
	return ""
}

// A child's exit reaches its parent once, as context on the parent's next
// prompt, with the status line counting it until then; the user's own
// agents tell nobody.
func TestNoticesReachTheParentOnce(t *testing.T) {
	e, _ := startNoticeEngine(t)
	child, err := e.Spawn(control.SpawnRequest{Argv: []string{"sh", "-c", "exit 3"}, Parent: control.MainID})
	if err != nil {
		t.Fatal(err)
	}
	mine, err := e.Spawn(control.SpawnRequest{Argv: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	waitFinished(t, e, child.ID)
	waitFinished(t, e, mine.ID)
	if got := noticeStatus(e, "notices:main"); got != "1 notice for main" {
		t.Errorf("status line entry %q, want the count of undelivered notices", got)
	}
	// A hook that gave up before the answer came sends no ack: the notice
	// is held for it until the lease ends (no other hook prints it
	// meanwhile), then offered again.
	e.notices.mu.Lock()
	e.notices.lease = time.Hour
	e.notices.mu.Unlock()
	if d := decide(t, e, control.MainID, "claude", askPrompt("lost")); d.Notices == 0 {
		t.Fatalf("main's prompt got %+v, want the notice", d)
	}
	if d := decide(t, e, control.MainID, "claude", askPrompt("meanwhile")); d.Notices != 0 || d.Action != agentstate.ActionNone {
		t.Fatalf("a second hook while the first holds the notice got %+v, want nothing", d)
	}
	e.notices.mu.Lock()
	e.notices.m[control.MainID].offeredUntil = e.now() // the lease ends
	e.notices.mu.Unlock()
	d := decideAck(t, e, control.MainID, "claude", askPrompt("next"))
	want := "agentgrid: " + child.ID + " failed (exit 3)"
	if d.Action != agentstate.ActionHint || !strings.HasPrefix(d.Message, want) || strings.Contains(d.Message, mine.ID) {
		t.Fatalf("main's next prompt got %+v, want a hint starting %q and nothing about %s", d, want, mine.ID)
	}
	if got := noticeStatus(e, "notices:main"); got != "" {
		t.Errorf("status line entry %q after delivery, want none", got)
	}
	if d := decide(t, e, control.MainID, "claude", askPrompt("again")); d.Action != agentstate.ActionNone {
		t.Errorf("the second prompt got %+v, want nothing: a notice is delivered once", d)
	}
}

// A Stop wakes the parent with its notices only once every child has
// finished, and not a second time (stop_hook_active); a CLI that cannot
// carry a notice at that point keeps it for the next hook that can.
func TestNoticesAtStopAndWithoutAChannel(t *testing.T) {
	e, _ := startNoticeEngine(t)
	child, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}, Parent: control.MainID})
	if err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, child.ID, "running", func(a control.AgentInfo) bool { return a.State.Alive() && a.PID > 0 })
	decideAck(t, e, control.MainID, "opencode", askPrompt("go"))
	if err := e.Signal(child.ID, agentstate.Signal{State: agentstate.Waiting, Why: "permission: Bash"}, "claude"); err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, child.ID, "waiting", func(a control.AgentInfo) bool { return a.State == agentstate.Waiting })
	// OpenCode's idle takes no answer: the notice stays.
	if d := decide(t, e, control.MainID, "opencode", askStop("started a3", false)); d.Action != agentstate.ActionNone {
		t.Fatalf("OpenCode's idle got %+v", d)
	}
	// A live child: the Stop goes through, the notice stays.
	if d := decide(t, e, control.MainID, "claude", askStop("working on it", false)); d.Action != agentstate.ActionNone {
		t.Fatalf("a Stop with a live child got %+v, want nothing", d)
	}
	if err := e.Close(child.ID); err != nil {
		t.Fatal(err)
	}
	waitFinished(t, e, child.ID)
	waitAgent(t, e, child.ID, "in the snapshot as finished", func(a control.AgentInfo) bool { return a.State.Finished() })
	d := decideAck(t, e, control.MainID, "claude", askStop("waiting for a3", false))
	want := "agentgrid: " + child.ID + " is waiting: permission: Bash; " + child.ID + " was closed"
	if d.Action != agentstate.ActionBlock || d.Message != want || d.Notices == 0 {
		t.Fatalf("the Stop after the last child finished got %+v, want a block with %q", d, want)
	}
	if d := decide(t, e, control.MainID, "claude", askStop("done", true)); d.Action != agentstate.ActionNone {
		t.Errorf("the Stop that follows got %+v, want nothing", d)
	}
}

// agent.events long-polls for a child's finished turn over the socket and
// returns notices after a cursor, in order; what it returned is not
// repeated on the parent's next hook; an agent reads only its own.
func TestAgentEventsLongPolls(t *testing.T) {
	e, sock := startNoticeEngine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	main := dialAs(t, sock, e.AgentToken(control.MainID))
	child, err := main.Spawn(ctx, control.SpawnParams{Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		r   control.EventsResult
		err error
	}
	got := make(chan result, 1)
	go func() {
		r, err := main.Events(ctx, control.EventsParams{TimeoutMS: 20000})
		got <- result{r, err}
	}()
	// The poll is waiting; the child's turn ends.
	decide(t, e, child.ID, "claude", askPrompt("add pagination"))
	decide(t, e, child.ID, "claude", askStop("Added pagination.\nTests pass.", false))
	res := <-got
	if res.err != nil {
		t.Fatal(res.err)
	}
	if len(res.r.Events) != 1 || res.r.Events[0].Event != control.NoticeTurn || res.r.Events[0].Agent != child.ID ||
		res.r.Events[0].Text != child.ID+" finished a turn: Added pagination." || res.r.Cursor != res.r.Events[0].Seq {
		t.Fatalf("agent.events = %+v", res.r)
	}
	if d := decide(t, e, control.MainID, "claude", askPrompt("next")); d.Action != agentstate.ActionNone {
		t.Errorf("main's prompt after it read the notice got %+v, want nothing", d)
	}
	// After the cursor: nothing, at once with timeout 0.
	r, err := main.Events(ctx, control.EventsParams{Cursor: res.r.Cursor})
	if err != nil || len(r.Events) != 0 || r.Cursor != res.r.Cursor {
		t.Errorf("events after the cursor: %+v %v", r, err)
	}
	// From the start: the one kept.
	if r, err := main.Events(ctx, control.EventsParams{}); err != nil || len(r.Events) != 1 {
		t.Errorf("events from 0: %+v %v", r, err)
	}
	cc := dialAs(t, sock, e.AgentToken(child.ID))
	_, err = cc.Events(ctx, control.EventsParams{For: control.MainID})
	wantForbidden(t, "a child reads main's notices", err)
	wantForbidden(t, "a child acknowledges main's notices", cc.Ack(ctx, control.MainID, 99))
	wantOK(t, "main acknowledges its own", main.Ack(ctx, control.MainID, 1))
}

// A main view that nothing can tell (a plain program: no hooks, no MCP)
// collects no notices, and the status line counts none.
func TestNoNoticesForAPlainMainView(t *testing.T) {
	e, _ := startAuthzEngine(t) // "cat" in the main view, no kind
	child, err := e.Spawn(control.SpawnRequest{Argv: []string{"true"}, Parent: control.MainID})
	if err != nil {
		t.Fatal(err)
	}
	waitFinished(t, e, child.ID)
	if got := noticeStatus(e, "notices:main"); got != "" {
		t.Errorf("status line entry %q for a main view without hooks", got)
	}
	if n := e.notices.shown(control.MainID); len(n) != 0 {
		t.Errorf("notices kept for a main view without hooks: %+v", n)
	}
}

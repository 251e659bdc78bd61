package orchestrator

import (
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

func TestDecideFromPoliciesRecordsAndAppliesSignal(t *testing.T) {
	dir := t.TempDir()
	e := newTestEngine(t, nil, []string{"cat"}, func(c *config.Config) {
		c.Policies = []config.Policy{
			{Name: "protect-secrets", On: "pre_tool", Tools: []string{"Write"}, Paths: []string{"secrets/**"}, Action: "block", Message: "hands off"},
			{Use: "delegation_nudge"},
		}
	})
	in, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}, Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, in.ID, "started", func(a control.AgentInfo) bool { return a.PID > 0 })

	sig := agentstate.Signal{Event: "PreToolUse", State: agentstate.Running, Status: "Write: secrets/k"}
	d, err := e.Decide(in.ID, "claude", sig, agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Write", Paths: []string{dir + "/secrets/k"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Action != agentstate.ActionBlock || d.Message != "hands off" || d.Policy != "protect-secrets" {
		t.Errorf("decision %+v, want the block (paths relative to the agent's cwd %s)", d, dir)
	}
	if got, _ := e.Agent(in.ID); got.Source != "hook:claude" {
		t.Errorf("after Decide the agent's source is %q, want the signal applied (hook:claude)", got.Source)
	}
	d, _ = e.Decide(in.ID, "claude", sig, agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Write", Paths: []string{dir + "/main.go"}})
	if d.Action != agentstate.ActionNone {
		t.Errorf("another file: %+v", d)
	}
	ex, err := e.Explain(in.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Decisions) != 1 || ex.Decisions[0].Policy != "protect-secrets" || ex.Decisions[0].Action != "block" || ex.Decisions[0].Reason != "hands off" {
		t.Errorf("explain decisions %+v, want the one block", ex.Decisions)
	}

	// The nudge: main's file work, then main's prompt; close clears a mark.
	if _, err := e.Decide(control.MainID, "claude", agentstate.Signal{}, agentstate.Ask{Point: agentstate.PointPostTool, Tool: "Edit", SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	d, _ = e.Decide(control.MainID, "claude", agentstate.Signal{}, agentstate.Ask{Point: agentstate.PointPrompt, Prompt: "go on", SessionID: "s"})
	if d.Action != agentstate.ActionHint || d.Policy != "delegation_nudge" {
		t.Errorf("main's prompt after file work: %+v, want the nudge", d)
	}
	if _, err := e.Decide("a99", "claude", sig, agentstate.Ask{Point: agentstate.PointPreTool}); err == nil {
		t.Error("Decide for an unknown agent: no error")
	}
}

func TestOverlapWarnsBothInStatusLineAndExplain(t *testing.T) {
	dir := t.TempDir()
	e := newTestEngine(t, nil, []string{"cat"}, func(c *config.Config) {
		c.Policies = []config.Policy{{Use: "overlap"}}
	})
	var ids []string
	for range 2 {
		in, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}, Cwd: dir})
		if err != nil {
			t.Fatal(err)
		}
		waitAgent(t, e, in.ID, "started", func(a control.AgentInfo) bool { return a.PID > 0 })
		ids = append(ids, in.ID)
	}
	ask := agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Edit", Paths: []string{"shared.go"}}
	if d, _ := e.Decide(ids[0], "claude", agentstate.Signal{}, ask); d.Action != agentstate.ActionNone {
		t.Fatalf("first edit: %+v", d)
	}
	d, err := e.Decide(ids[1], "claude", agentstate.Signal{}, ask)
	if err != nil || d.Action != agentstate.ActionHint || d.Policy != "overlap" {
		t.Fatalf("second agent's edit: %+v, %v; want the overlap hint", d, err)
	}
	for i, id := range ids {
		other := ids[1-i]
		found := false
		for _, s := range e.Status().ForAgent(id) {
			found = found || s.Key == "overlap:"+id && strings.Contains(s.Text, other)
		}
		if !found {
			t.Errorf("no overlap entry naming %s in %s's status: %+v", other, id, e.Status().ForAgent(id))
		}
		ex, _ := e.Explain(id)
		if len(ex.Decisions) != 1 || ex.Decisions[0].Policy != "overlap" {
			t.Errorf("%s's explain decisions %+v, want the overlap", id, ex.Decisions)
		}
	}
}

// A reconciler that is busy does not hold the answer: the block comes back
// at once and the state follows once the engine is free.
func TestDecideAnswersWhileTheEngineIsBusy(t *testing.T) {
	e := newTestEngine(t, nil, []string{"cat"}, func(c *config.Config) {
		c.Policies = []config.Policy{{Name: "ro", On: "pre_tool", Tools: []string{"Write"}, Action: "block", Message: "read only"}}
	})
	ok := spawn(t, e, "cat")
	waitAgent(t, e, ok.ID, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	busy, release := make(chan struct{}), make(chan struct{})
	go func() { _ = e.do(func() { close(busy); <-release }) }()
	<-busy // the reconciler is inside a long piece of work

	type result struct {
		d   agentstate.Decision
		err error
	}
	res := make(chan result, 1)
	go func() {
		d, err := e.Decide(ok.ID, "claude", agentstate.Signal{Event: "PreToolUse", State: agentstate.Waiting, Why: "marker"},
			agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Write"})
		res <- result{d, err}
	}()
	select {
	case r := <-res:
		if r.err != nil || r.d.Action != agentstate.ActionBlock {
			t.Errorf("decision %+v, %v; want the block", r.d, r.err)
		}
	case <-time.After(5 * time.Second):
		t.Error("Decide waited for the busy reconciler")
	}
	close(release)
	waitAgent(t, e, ok.ID, "the hook's state applied once the engine is free", func(a control.AgentInfo) bool { return a.Why == "marker" })
}

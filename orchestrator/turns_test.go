package orchestrator

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

func TestWaitUntilTurn(t *testing.T) {
	e := newTestEngine(t, nil, []string{"cat"}, nil)
	in := spawn(t, e, "cat")
	waitAgent(t, e, in.ID, "started", func(a control.AgentInfo) bool { return a.PID > 0 })
	events, cancelSub := e.Bus().Subscribe(64)
	defer cancelSub()

	notYet := func(what string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		if got, err := e.WaitUntil(ctx, []string{in.ID}, control.UntilTurn, false); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s: wait --until turn returned %+v, %v; want it still waiting", what, got, err)
		}
	}
	hook := func(sig agentstate.Signal, ask agentstate.Ask) {
		t.Helper()
		if _, err := e.Decide(in.ID, "claude", sig, ask); err != nil {
			t.Fatal(err)
		}
	}
	// A session start and a Stop without a prompt before it: no turn.
	if err := e.Signal(in.ID, agentstate.Signal{Event: "SessionStart", State: agentstate.Idle, Why: "session started"}, "claude"); err != nil {
		t.Fatal(err)
	}
	hook(agentstate.Signal{Event: "Stop", State: agentstate.Idle}, agentstate.Ask{Point: agentstate.PointStop, Said: "hello"})
	notYet("after a session start")
	// A prompt, then a Stop with nothing said: the turn goes on.
	hook(agentstate.Signal{Event: "UserPromptSubmit", State: agentstate.Running}, agentstate.Ask{Point: agentstate.PointPrompt, Prompt: "fix it"})
	hook(agentstate.Signal{Event: "Stop", State: agentstate.Idle}, agentstate.Ask{Point: agentstate.PointStop, Said: "  "})
	notYet("after a Stop with nothing said")

	done := make(chan []control.AgentInfo, 1)
	go func() {
		got, err := e.WaitUntil(context.Background(), []string{in.ID}, control.UntilTurn, false)
		if err != nil {
			t.Errorf("wait: %v", err)
		}
		done <- got
	}()
	hook(agentstate.Signal{Event: "Stop", State: agentstate.Idle}, agentstate.Ask{Point: agentstate.PointStop, Said: "Fixed: the test\nwas racy."})
	select {
	case got := <-done:
		if got[0].Turns != 1 || got[0].LastTurn != "Fixed: the test" {
			t.Errorf("wait returned %+v, want one turn with its first line", got[0])
		}
	case <-time.After(15 * time.Second):
		t.Fatal("wait --until turn did not return after the Stop with output")
	}
	deadline := time.After(15 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Type != hooks.EventAgentTurnDone {
				continue
			}
			if ev.Agent == nil || ev.Agent.ID != in.ID || ev.Agent.Summary != "Fixed: the test" {
				t.Errorf("agent_turn_done %+v", ev.Agent)
			}
			return
		case <-deadline:
			t.Fatal("no agent_turn_done event")
		}
	}
}

func TestWaitUntilStatesAndAny(t *testing.T) {
	e := newTestEngine(t, nil, []string{"cat"}, nil)
	a := spawn(t, e, "cat")
	b := spawn(t, e, "cat")
	for _, id := range []string{a.ID, b.ID} {
		waitAgent(t, e, id, "started", func(in control.AgentInfo) bool { return in.PID > 0 })
	}
	done := make(chan []control.AgentInfo, 1)
	go func() {
		got, err := e.WaitUntil(context.Background(), []string{a.ID, b.ID}, control.UntilWaiting, true)
		if err != nil {
			t.Errorf("wait: %v", err)
		}
		done <- got
	}()
	if err := e.Signal(b.ID, agentstate.Signal{Event: "PermissionRequest", State: agentstate.Waiting, Why: "permission: Bash"}, "claude"); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-done:
		if got[1].State != agentstate.Waiting {
			t.Errorf("wait --until waiting --any returned %+v", got)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("wait --until waiting --any did not return when b waited")
	}
	// An exited agent meets every condition: no wait outlives its agent.
	if err := e.Close(a.ID); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := e.WaitUntil(ctx, []string{a.ID}, control.UntilTurn, false); err != nil {
		t.Errorf("wait --until turn on a closed agent: %v", err)
	}
	if _, err := e.WaitUntil(ctx, []string{"a99"}, control.UntilIdle, false); err == nil {
		t.Error("wait on an unknown agent: no error")
	}
}

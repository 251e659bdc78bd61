package orchestrator

import (
	"context"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

// TestLoopIsHeldToTheCallersRights: an agent starts, stops and resumes the
// loops of itself and the agents it started, never a sibling's or main's.
func TestLoopIsHeldToTheCallersRights(t *testing.T) {
	e, sock := startAuthzEngine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	user := dialAs(t, sock, "")
	spec := control.LoopSpec{Promise: "DONE", Max: 3, Task: "t"}
	a1, err := user.Spawn(ctx, control.SpawnParams{Title: "a1", Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	sib, err := user.Spawn(ctx, control.SpawnParams{Title: "sibling", Argv: []string{"cat"}, Loop: &spec})
	if err != nil {
		t.Fatal(err)
	}
	c := dialAs(t, sock, e.AgentToken(a1.ID))
	child, err := c.Spawn(ctx, control.SpawnParams{Title: "child", Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, sib.ID, "running", func(a control.AgentInfo) bool { return a.State.Alive() })
	for _, op := range []string{control.LoopStop, control.LoopResume} {
		_, err = c.Loop(ctx, control.LoopParams{ID: sib.ID, Op: op})
		wantForbidden(t, op+" a sibling's loop", err)
	}
	_, err = c.Loop(ctx, control.LoopParams{ID: control.MainID, Op: control.LoopStart, LoopSpec: spec})
	wantForbidden(t, "start a loop on main", err)
	if got, _ := e.Agent(sib.ID); got.Loop == nil || got.Loop.Status != control.LoopRunning {
		t.Errorf("a refused call changed the sibling's loop: %+v", got.Loop)
	}
	if _, err := c.Loop(ctx, control.LoopParams{ID: child.ID, Op: control.LoopStart, LoopSpec: spec}); err != nil {
		t.Errorf("a loop on its own child: %v", err)
	}
	if _, err := user.Loop(ctx, control.LoopParams{ID: sib.ID, Op: control.LoopStop}); err != nil {
		t.Errorf("the user stops any loop: %v", err)
	}
	_, err = user.Loop(ctx, control.LoopParams{ID: sib.ID, Op: control.LoopStart, LoopSpec: control.LoopSpec{Promise: "DONE"}})
	if rpcErr, ok := err.(*control.RPCError); !ok || rpcErr.Code != control.CodeInvalidParams {
		t.Errorf("a loop without a bound over the socket: %v, want invalid params", err)
	}
}

package control

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestWaitUntilParams(t *testing.T) {
	s, fb := startSockServer(t) // a backend that only waits for exits
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"cat"}})
	c := dialSockClient(t, s)
	ctx := context.Background()
	_, err := c.WaitFor(ctx, []string{a.ID}, time.Second, "lunch", false)
	if ErrorCode(err) != CodeInvalidParams || !strings.Contains(err.Error(), "exit, turn, idle, waiting, any") {
		t.Errorf("until = lunch: %v, want invalid params listing the values", err)
	}
	_, err = c.WaitFor(ctx, []string{a.ID}, time.Second, UntilTurn, false)
	if ErrorCode(err) != CodeServerError || !strings.Contains(err.Error(), "only for agents to exit") {
		t.Errorf("until = turn on a backend without it: %v", err)
	}
	// until = exit without any is the plain wait.
	fb.finish(a.ID, 0)
	res, err := c.WaitFor(ctx, []string{a.ID}, time.Second, UntilExit, false)
	if err != nil || res.TimedOut || len(res.Agents) != 1 {
		t.Errorf("until = exit: %+v, %v", res, err)
	}
}

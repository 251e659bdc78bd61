package control

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// deciderBackend answers agent.decide: it blocks Write and records what it
// was asked.
type deciderBackend struct {
	*sockBackend
	asks []agentstate.Ask
}

func (d *deciderBackend) Decide(id, cli string, sig agentstate.Signal, ask agentstate.Ask) (agentstate.Decision, error) {
	if err := d.Signal(id, sig, cli); err != nil {
		return agentstate.Decision{}, err
	}
	d.mu.Lock()
	d.asks = append(d.asks, ask)
	d.mu.Unlock()
	if ask.Tool == "Write" {
		return agentstate.Decision{Action: agentstate.ActionBlock, Message: "no writes", Policy: "ro"}, nil
	}
	return agentstate.Decision{}, nil
}

func TestDecideAnswersAndAppliesTheSignal(t *testing.T) {
	fb := &deciderBackend{sockBackend: newSockBackend()}
	s, err := StartServer(filepath.Join(t.TempDir(), "run", "t.sock"), fb, ServerOptions{Session: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"cat"}})
	c := dialSockClient(t, s)
	ctx := context.Background()
	sig := agentstate.Signal{Event: "PreToolUse", State: agentstate.Running, Status: "Write: .env"}

	d, err := c.Decide(ctx, DecideParams{ID: a.ID, CLI: "claude", Signal: sig,
		Ask: agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Write", Paths: []string{".env"}, Prompt: strings.Repeat("x", 100<<10)}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Action != agentstate.ActionBlock || d.Message != "no writes" || d.Policy != "ro" {
		t.Errorf("decision %+v", d)
	}
	if len(fb.signals) != 1 || fb.signals[0].Signal != sig || fb.signals[0].Source != "claude" {
		t.Errorf("signals %+v, want the one sent with the question", fb.signals)
	}
	if len(fb.asks) != 1 || len(fb.asks[0].Prompt) != maxAskText || fb.asks[0].Paths[0] != ".env" {
		t.Errorf("the backend was asked %d times, prompt of %d bytes; want once, capped at %d", len(fb.asks), len(fb.asks[0].Prompt), maxAskText)
	}

	// The signal's checks are agent.signal's.
	_, err = c.Decide(ctx, DecideParams{ID: a.ID, Signal: sig})
	var rerr *RPCError
	if !errors.As(err, &rerr) || rerr.Code != CodeInvalidParams || !strings.Contains(rerr.Message, "cli") {
		t.Errorf("decide without cli: %v, want invalid params naming cli", err)
	}
	_, err = c.Decide(ctx, DecideParams{ID: "a99", CLI: "claude", Signal: sig})
	if err == nil || !strings.Contains(err.Error(), "a99") {
		t.Errorf("decide for an unknown agent: %v, want the backend's refusal", err)
	}
}

// A backend that decides nothing still takes the signal.
func TestDecideWithoutDeciderAppliesTheSignal(t *testing.T) {
	s, fb := startSockServer(t)
	a, _ := fb.Spawn(SpawnRequest{Argv: []string{"cat"}})
	c := dialSockClient(t, s)
	sig := agentstate.Signal{Event: "Stop", State: agentstate.Idle}
	d, err := c.Decide(context.Background(), DecideParams{ID: a.ID, CLI: "claude", Signal: sig, Ask: agentstate.Ask{Point: agentstate.PointStop}})
	if err != nil || d != (agentstate.Decision{}) {
		t.Fatalf("decide: %+v, %v", d, err)
	}
	if len(fb.signals) != 1 || fb.signals[0].Signal != sig {
		t.Errorf("signals %+v", fb.signals)
	}
}

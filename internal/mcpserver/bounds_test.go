package mcpserver

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

func TestSecondsDuration(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want time.Duration
	}{
		{1e-12, time.Millisecond},
		{0.25, 250 * time.Millisecond},
		{50, 50 * time.Second},
		{1e300, 50 * time.Second},
		{math.Inf(1), 50 * time.Second},
		{math.NaN(), time.Millisecond},
		{-3, time.Millisecond},
	} {
		if got := secondsDuration(tc.s, time.Millisecond, 50*time.Second); got != tc.want {
			t.Errorf("secondsDuration(%v) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// 8.8: wait_agent with a tiny timeout answers at once instead of waiting
// without a limit.
func TestMCPWaitTinyTimeout(t *testing.T) {
	cs, fb := mcpSession(t)
	_, _ = fb.Spawn(control.SpawnRequest{Argv: []string{"sleep"}})
	var waited struct {
		Finished bool
		Agents   []agentSummary
	}
	mustOK(t, cs, "wait_agent", map[string]any{"ids": []string{"a1"}, "timeout_seconds": 1e-12}, &waited)
	if waited.Finished || len(waited.Agents) != 1 || waited.Agents[0].State != agentstate.Running {
		t.Fatalf("wait with 1e-12 s = %+v", waited)
	}
	res, text := callTool(t, cs, "set_status", map[string]any{"key": "k", "text": "t", "ttl": "1000000h"})
	if !res.IsError || !strings.Contains(text, "30 days") {
		t.Fatalf("set_status with a huge ttl: %v %s", res.IsError, text)
	}
}

package orchestrator

import (
	"context"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
)

// A config that skipped validation with the largest durations a TOML
// string can hold still shuts down cleanly: 2*kill_grace once overflowed
// into a deadline in the past, so Shutdown gave up at once and left the
// agents to the kill goroutines.
func TestShutdownWithHugeKillGrace(t *testing.T) {
	huge := config.Duration{Duration: 2562047 * time.Hour}
	e := newTestEngine(t, nil, []string{"sleep", "1000"}, func(c *config.Config) {
		c.Agents.KillGrace = huge
		c.Agents.FinishedLinger = huge
		c.Agents.IdleAfter = huge
		c.Status.StaleAfter = huge
	})
	if g := e.grace(); g != config.MaxKillGrace {
		t.Errorf("grace = %s, want the clamp %s", g, config.MaxKillGrace)
	}
	if d := e.lingerFor(); d != config.MaxWait {
		t.Errorf("linger = %s, want %s", d, config.MaxWait)
	}
	e.Resize(24, 5)
	a := spawn(t, e, "sleep", "1000")
	a = waitAgent(t, e, a.ID, "running", func(a control.AgentInfo) bool { return a.PID > 0 })
	m, _ := e.Agent(control.MainID)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := e.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	for _, pid := range []int{a.PID, m.PID} {
		if !groupGone(pid) {
			t.Errorf("process group %d is still alive after Shutdown returned", pid)
		}
	}
}

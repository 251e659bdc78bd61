package orchestrator

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/control"
)

// childBaseEnv keeps the user's hook budget and drops every other
// AGENTGRID_ variable (another session's).
func TestChildEnvKeepsTheHookBudget(t *testing.T) {
	env := childBaseEnv([]string{"AGENTGRID_HOOK_BUDGET=30s", "AGENTGRID_SOCKET=/other.sock", "AGENTGRID_TOKEN=x", "HOME=/h"}, "s", "/s.sock")
	got := strings.Join(env, " ")
	if !strings.Contains(got, "AGENTGRID_HOOK_BUDGET=30s") || strings.Contains(got, "/other.sock") || strings.Contains(got, "AGENTGRID_TOKEN") {
		t.Errorf("child env %q: want the hook budget kept and the other session's variables dropped", env)
	}
}

// A session started with $AGENTGRID_HOOK_BUDGET gives it to its agents,
// and the Claude Code settings it generates wait that long and more for
// the hooks (the budget plus the default 5 s), as does the hold on notices
// offered to them; a kind's or a spawn's own budget counts for that agent.
func TestHookTimeoutFollowsTheAgentsBudget(t *testing.T) {
	stateDir := ""
	e, _ := startSocketEngine(t, "budget", func(cfg *config.Config, o *Options) {
		o.Env = append(os.Environ(), agentcli.EnvHookBudget+"=1m")
		cfg.Kinds["claude-true"] = config.Kind{Command: []string{"true"}, Hooks: "claude"}
		cfg.Kinds["claude-slow"] = config.Kind{Command: []string{"true"}, Hooks: "claude", Env: map[string]string{agentcli.EnvHookBudget: "10s"}}
		stateDir = o.StateDir
	})

	plain, err := e.Spawn(control.SpawnRequest{Argv: []string{"sh", "-c", `printf 'budget=%s.' "$AGENTGRID_HOOK_BUDGET"; exec cat`}})
	if err != nil {
		t.Fatal(err)
	}
	pollUntil(t, 15*time.Second, "the agent's output", func() bool {
		text, _ := e.Capture(plain.ID, false, 0)
		return strings.Contains(text, "budget=")
	})
	if text, _ := e.Capture(plain.ID, false, 0); !strings.Contains(text, "budget=1m.") {
		t.Errorf("the agent printed %q, want the session's budget 1m", strings.TrimSpace(text))
	}

	timeout := func(id string) int {
		t.Helper()
		var s struct {
			Hooks map[string][]struct {
				Hooks []struct {
					Command string
					Timeout int
				} `json:"hooks"`
			} `json:"hooks"`
		}
		b, err := os.ReadFile(filepath.Join(stateDir, id+"-claude-settings.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		h := s.Hooks["PreToolUse"][0].Hooks[0]
		if !strings.HasSuffix(h.Command, " hook claude") {
			t.Fatalf("PreToolUse runs %q", h.Command)
		}
		return h.Timeout
	}
	lease := func(id string) time.Duration {
		e.notices.mu.Lock()
		defer e.notices.mu.Unlock()
		return e.notices.leases[id]
	}
	for _, c := range []struct {
		req  control.SpawnRequest
		want int
	}{
		{control.SpawnRequest{Kind: "claude-true"}, 65},
		{control.SpawnRequest{Kind: "claude-slow"}, 15},
		{control.SpawnRequest{Kind: "claude-slow", Env: map[string]string{agentcli.EnvHookBudget: "2.5s"}}, 8},
	} {
		a, err := e.Spawn(c.req)
		if err != nil {
			t.Fatal(err)
		}
		if got := timeout(a.ID); got != c.want {
			t.Errorf("%s (%+v): hooks' timeout %d s, want %d s", a.ID, c.req, got, c.want)
		}
		if got := lease(a.ID); got != time.Duration(c.want)*time.Second {
			t.Errorf("%s (%+v): notices held for its hooks %v, want %d s", a.ID, c.req, got, c.want)
		}
	}
}

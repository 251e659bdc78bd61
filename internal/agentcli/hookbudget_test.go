package agentcli

import (
	"testing"
	"time"
)

// The hooks' timeout is the default 5 s, or the budget plus 5 s in whole
// seconds; a budget the hook would not use (not a duration above zero)
// leaves the default, and one past a minute counts as a minute.
func TestHookTimeoutFollowsTheBudget(t *testing.T) {
	for _, c := range []struct {
		budget string
		want   time.Duration
	}{
		{"", 5 * time.Second},
		{"soon", 5 * time.Second},
		{"0s", 5 * time.Second},
		{"-2s", 5 * time.Second},
		{"2s", 7 * time.Second},
		{" 2s ", 7 * time.Second},
		{"1.5s", 7 * time.Second},
		{"300ms", 6 * time.Second},
		{"1m", 65 * time.Second},
		{"3h", 65 * time.Second},
	} {
		if got := HookTimeout(c.budget); got != c.want {
			t.Errorf("HookTimeout(%q) = %v, want %v", c.budget, got, c.want)
		}
		if got := (Wiring{HookBudget: c.budget}).HookTimeout(); got != c.want {
			t.Errorf("Wiring{HookBudget: %q}.HookTimeout() = %v, want %v", c.budget, got, c.want)
		}
	}
}

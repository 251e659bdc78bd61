package codex

import (
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

func TestCodexLifecycleHooksUseClaudeShape(t *testing.T) {
	s, err := CLI{}.Adapt([]byte(`{"hook_event_name":"Stop","session_id":"t1","last_assistant_message":"done"}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.State != agentstate.Idle || s.Status != "done" {
		t.Errorf("got %+v", s)
	}
}

package codex

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

func TestAskFromRecordedCodexHooks(t *testing.T) {
	cases := []struct {
		file  string
		ok    bool
		point agentstate.Point
	}{
		{"live_pre_tool_use.json", true, agentstate.PointPreTool},
		{"live_user_prompt_submit.json", true, agentstate.PointPrompt},
		{"live_stop.json", true, agentstate.PointStop},
		{"live_session_start.json", false, ""},
		{"live_permission_request.json", false, ""},
		{"agent_turn_complete.json", false, ""}, // notify: no answer channel
	}
	for _, c := range cases {
		b, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := CLI{}.Ask(b)
		if err != nil || ok != c.ok || got.Point != c.point {
			t.Errorf("%s: %+v, %v, %v; want answerable %v at %q", c.file, got, ok, err, c.ok, c.point)
		}
	}
	b, _ := os.ReadFile(filepath.Join("testdata", "live_pre_tool_use.json"))
	a, _, _ := CLI{}.Ask(b)
	if a.Tool != "Bash" || a.Cwd != "/home/dev/proj" {
		t.Errorf("ask %+v", a)
	}
	out := CLI{}.Answer(a, agentstate.Decision{Action: agentstate.ActionBlock, Message: "no"})
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`
	if string(out) != want {
		t.Errorf("answer %s, want %s", out, want)
	}
}

package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

func TestAskFromRecordedPayloads(t *testing.T) {
	cases := []struct {
		file string
		ok   bool
		want agentstate.Ask
	}{
		{"pre_tool_use_edit.json", true, agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Edit", Paths: []string{"/home/dev/proj/layout/layout.go"}}},
		{"pre_tool_use_write_env.json", true, agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Write", Paths: []string{"/home/dev/proj/.env"}}},
		{"pre_tool_use_bash.json", true, agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Bash"}},
		{"post_tool_use.json", true, agentstate.Ask{Point: agentstate.PointPostTool, Tool: "Bash"}},
		{"post_tool_use_read.json", true, agentstate.Ask{Point: agentstate.PointPostTool, Tool: "Read", Paths: []string{"/home/dev/proj/layout/layout.go"}}},
		{"post_tool_use_todowrite.json", true, agentstate.Ask{Point: agentstate.PointPostTool, Tool: "TodoWrite", Todos: &agentstate.Todos{Open: 2, Done: 1}}},
		{"user_prompt_submit.json", true, agentstate.Ask{Point: agentstate.PointPrompt, Prompt: "Fix the flaky test in layout\nand run the suite"}},
		{"stop.json", true, agentstate.Ask{Point: agentstate.PointStop, Said: "All 42 tests pass now.\nI changed layout.go to…"}},
		// The turn already went on once for a hook: it ends, unanswered.
		{"stop_hook_active.json", true, agentstate.Ask{Point: agentstate.PointStop, Said: "All 42 tests pass now.\nI changed layout.go to…", Repeat: true}},
		{"permission_request.json", false, agentstate.Ask{}},
		{"session_start.json", false, agentstate.Ask{}},
		{"notification_idle.json", false, agentstate.Ask{}},
	}
	for _, c := range cases {
		b, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := CLI{}.Ask(b)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if ok != c.ok {
			t.Errorf("%s: answerable %v, want %v", c.file, ok, c.ok)
			continue
		}
		if ok {
			c.want.Cwd, c.want.SessionID = "/home/dev/proj", "3f1c2a9e-7b7d-4c55-9a0e-5d2f0c1b8e11"
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.file, got, c.want)
		}
	}
	if _, _, err := (CLI{}).Ask([]byte("[1]")); err == nil {
		t.Error("Ask of a JSON array: no error")
	}
}

// TestAnswerFormats checks Claude Code's hook output for every point and
// action, decoded back as Claude Code reads it.
func TestAnswerFormats(t *testing.T) {
	block := agentstate.Decision{Action: agentstate.ActionBlock, Message: "secrets are off limits", Policy: "p"}
	hint := agentstate.Decision{Action: agentstate.ActionHint, Message: "remember the tests", Policy: "p"}
	ask := func(p agentstate.Point) agentstate.Ask { return agentstate.Ask{Point: p} }
	cases := []struct {
		name string
		ask  agentstate.Ask
		d    agentstate.Decision
		want string // JSON, "" for no output
	}{
		{"deny a tool", ask(agentstate.PointPreTool), block,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"secrets are off limits"}}`},
		{"hint before a tool", ask(agentstate.PointPreTool), hint,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"remember the tests"}}`},
		{"hint after a tool", ask(agentstate.PointPostTool), hint,
			`{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"remember the tests"}}`},
		{"block after a tool", ask(agentstate.PointPostTool), block, `{"decision":"block","reason":"secrets are off limits"}`},
		{"hint at a prompt", ask(agentstate.PointPrompt), hint,
			`{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"remember the tests"}}`},
		{"refuse a prompt", ask(agentstate.PointPrompt), block, `{"decision":"block","reason":"secrets are off limits"}`},
		{"keep the turn going", ask(agentstate.PointStop), block, `{"decision":"block","reason":"secrets are off limits"}`},
		{"a hint at stop has no form", ask(agentstate.PointStop), hint, ""},
		{"no decision", ask(agentstate.PointPreTool), agentstate.Decision{}, ""},
		{"no message", ask(agentstate.PointPreTool), agentstate.Decision{Action: agentstate.ActionBlock}, ""},
		{"no point", agentstate.Ask{}, block, ""},
	}
	for _, c := range cases {
		got := CLI{}.Answer(c.ask, c.d)
		if c.want == "" {
			if got != nil {
				t.Errorf("%s: printed %s, want nothing", c.name, got)
			}
			continue
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: output %q is not JSON: %v", c.name, got, err)
		}
		_ = json.Unmarshal([]byte(c.want), &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

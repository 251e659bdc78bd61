package gemini

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

func TestAskFromRecordedGeminiPayloads(t *testing.T) {
	base := func(a agentstate.Ask) agentstate.Ask { a.Cwd, a.SessionID = "/home/dev/proj", "gem-5521"; return a }
	cases := []struct {
		file string
		ok   bool
		want agentstate.Ask
	}{
		{"before_tool_write.json", true, base(agentstate.Ask{Point: agentstate.PointPreTool, Tool: "write_file", Paths: []string{"/home/dev/proj/cmd_list.go"}})},
		{"before_tool_shell.json", true, base(agentstate.Ask{Point: agentstate.PointPreTool, Tool: "run_shell_command"})},
		{"after_tool.json", true, agentstate.Ask{}},
		{"before_agent.json", true, agentstate.Ask{}},
		{"after_agent.json", true, base(agentstate.Ask{Point: agentstate.PointStop, Said: "Added --json to list; tests pass."})},
		{"session_start.json", false, agentstate.Ask{}},
		{"notification_permission.json", false, agentstate.Ask{}},
	}
	for _, c := range cases {
		b, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := CLI{}.Ask(b)
		if err != nil || ok != c.ok {
			t.Errorf("%s: answerable %v, %v; want %v", c.file, ok, err, c.ok)
			continue
		}
		if c.want.Point != "" && !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.file, got, c.want)
		}
		if c.file == "after_tool.json" && got.Point != agentstate.PointPostTool || c.file == "before_agent.json" && (got.Point != agentstate.PointPrompt || got.Prompt == "") {
			t.Errorf("%s: %+v", c.file, got)
		}
	}
}

func TestGeminiAnswerFormats(t *testing.T) {
	block := agentstate.Decision{Action: agentstate.ActionBlock, Message: "no"}
	hint := agentstate.Decision{Action: agentstate.ActionHint, Message: "note"}
	cases := []struct {
		point agentstate.Point
		d     agentstate.Decision
		want  string
	}{
		{agentstate.PointPreTool, block, `{"decision":"deny","reason":"no"}`},
		{agentstate.PointPostTool, block, `{"decision":"deny","reason":"no"}`},
		{agentstate.PointPrompt, block, `{"decision":"deny","reason":"no"}`},
		{agentstate.PointStop, block, `{"decision":"deny","reason":"no"}`},
		{agentstate.PointPostTool, hint, `{"hookSpecificOutput":{"additionalContext":"note","hookEventName":"AfterTool"}}`},
		{agentstate.PointPrompt, hint, `{"hookSpecificOutput":{"additionalContext":"note","hookEventName":"BeforeAgent"}}`},
		{agentstate.PointPreTool, hint, ""},
		{agentstate.PointStop, hint, ""},
	}
	for _, c := range cases {
		if got := string(CLI{}.Answer(agentstate.Ask{Point: c.point}, c.d)); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.d.Action, c.point, got, c.want)
		}
	}
}

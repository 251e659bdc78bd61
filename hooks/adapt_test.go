package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every fixture in testdata/<cli>/ is a payload written from that CLI's
// documented hook schema; each must appear in this table.
var adaptCases = []struct {
	cli, fixture string
	want         Signal
}{
	// Claude Code
	{"claude", "session_start", Signal{Event: "SessionStart", State: StateIdle, Why: "session started (startup)"}},
	{"claude", "session_start_compact", Signal{Event: "SessionStart", State: StateRunning, Why: "context compacted"}},
	{"claude", "user_prompt_submit", Signal{Event: "UserPromptSubmit", State: StateRunning, Why: "prompt submitted: Fix the flaky test in layout …"}},
	{"claude", "pre_tool_use_bash", Signal{Event: "PreToolUse", State: StateRunning, Status: "Bash: go test ./...", Why: "tool: Bash: go test ./..."}},
	{"claude", "pre_tool_use_edit", Signal{Event: "PreToolUse", State: StateRunning, Status: "Edit: layout/layout.go", Why: "tool: Edit: layout/layout.go"}},
	{"claude", "pre_tool_use_write_outside", Signal{Event: "PreToolUse", State: StateRunning, Status: "Write: /tmp/notes.txt", Why: "tool: Write: /tmp/notes.txt"}},
	{"claude", "pre_tool_use_read", Signal{Event: "PreToolUse", State: StateRunning, Status: "Read: README.md", Why: "tool: Read: README.md"}},
	{"claude", "pre_tool_use_grep", Signal{Event: "PreToolUse", State: StateRunning, Status: "Grep: func decide in orchestrator", Why: "tool: Grep: func decide in orchestrator"}},
	{"claude", "pre_tool_use_task", Signal{Event: "PreToolUse", State: StateRunning, Status: "Task: Survey the layout code", Why: "tool: Task: Survey the layout code"}},
	{"claude", "pre_tool_use_mcp", Signal{Event: "PreToolUse", State: StateRunning, Status: "MCP agentgrid.spawn_agent", Why: "tool: MCP agentgrid.spawn_agent"}},
	{"claude", "post_tool_use", Signal{Event: "PostToolUse", State: StateRunning, Status: "Bash: go test ./...", Why: "tool finished: Bash: go test ./..."}},
	{"claude", "post_tool_use_failure", Signal{Event: "PostToolUseFailure", State: StateRunning, Status: "Bash: make lint", Why: "tool failed: Bash: make lint: exit status 2"}},
	{"claude", "post_tool_use_failure_interrupt", Signal{Event: "PostToolUseFailure", State: StateIdle, Why: "interrupted by the user"}},
	{"claude", "permission_request", Signal{Event: "PermissionRequest", State: StateWaiting, Status: "permission: Bash: rm -rf build", Why: "permission: Bash: rm -rf build"}},
	{"claude", "notification_permission", Signal{Event: "Notification", State: StateWaiting, Status: "Claude needs your permission to use Bash", Why: "Claude needs your permission to use Bash"}},
	{"claude", "notification_idle", Signal{Event: "Notification", State: StateIdle, Why: "Claude is waiting for your input"}},
	{"claude", "notification_untyped", Signal{Event: "Notification", State: StateWaiting, Status: "Claude needs your attention", Why: "Claude needs your attention"}},
	{"claude", "stop", Signal{Event: "Stop", State: StateIdle, Why: "turn finished", Status: "All 42 tests pass now. …"}},
	{"claude", "subagent_start", Signal{Event: "SubagentStart", State: StateRunning, SubagentDelta: 1, Why: "subagent started: Explore"}},
	{"claude", "subagent_stop", Signal{Event: "SubagentStop", SubagentDelta: -1, Why: "subagent finished: Explore"}},
	{"claude", "pre_compact", Signal{Event: "PreCompact", State: StateRunning, Status: "compacting", Why: "compacting the context"}},
	{"claude", "session_end", Signal{Event: "SessionEnd", SessionEnd: true, Why: "session ended (prompt_input_exit)"}},

	// Codex notify
	{"codex", "agent_turn_complete", Signal{Event: "agent-turn-complete", State: StateIdle, Why: "turn complete", Status: "Renamed the package and updated 14 imports.", SessionID: "0199a1b2-c3d4"}},
	{"codex", "agent_turn_complete_empty", Signal{Event: "agent-turn-complete", State: StateIdle, Why: "turn complete", SessionID: "0199a1b2-c3d4"}},
	{"codex", "approval_requested", Signal{Event: "approval-requested", State: StateWaiting, Why: "approval: run git push --force", Status: "approval: run git push --force", SessionID: "0199a1b2-c3d4"}},
	{"codex", "unknown_type", Signal{Event: "something-new", SessionID: "0199a1b2-c3d4"}},

	// Gemini CLI
	{"gemini", "session_start", Signal{Event: "SessionStart", State: StateIdle, Why: "session started (startup)", SessionID: "gem-5521"}},
	{"gemini", "before_agent", Signal{Event: "BeforeAgent", State: StateRunning, Why: "prompt submitted: Add a --json flag to list", SessionID: "gem-5521"}},
	{"gemini", "before_tool_shell", Signal{Event: "BeforeTool", State: StateRunning, Status: "Shell: go build ./...", Why: "tool: Shell: go build ./...", SessionID: "gem-5521"}},
	{"gemini", "before_tool_write", Signal{Event: "BeforeTool", State: StateRunning, Status: "Write: cmd_list.go", Why: "tool: Write: cmd_list.go", SessionID: "gem-5521"}},
	{"gemini", "after_tool", Signal{Event: "AfterTool", State: StateRunning, Status: "Read: go.mod", Why: "tool finished: Read: go.mod", SessionID: "gem-5521"}},
	{"gemini", "notification_permission", Signal{Event: "Notification", State: StateWaiting, Status: "Allow run_shell_command: rm -rf dist?", Why: "Allow run_shell_command: rm -rf dist?", SessionID: "gem-5521"}},
	{"gemini", "after_agent", Signal{Event: "AfterAgent", State: StateIdle, Why: "turn finished", Status: "Added --json to list; tests pass.", SessionID: "gem-5521"}},
	{"gemini", "pre_compress", Signal{Event: "PreCompress", State: StateRunning, Status: "compressing", Why: "compressing the context", SessionID: "gem-5521"}},
	{"gemini", "session_end", Signal{Event: "SessionEnd", SessionEnd: true, Why: "session ended (exit)", SessionID: "gem-5521"}},

	// OpenCode (events forwarded by agentgrid's plugin)
	{"opencode", "session_idle", Signal{Event: "session.idle", State: StateIdle, Why: "session idle", SessionID: "ses_01"}},
	{"opencode", "session_status_busy", Signal{Event: "session.status", State: StateRunning, Why: "session busy", SessionID: "ses_01"}},
	{"opencode", "session_status_retry", Signal{Event: "session.status", State: StateRunning, Why: "retrying: rate limited", Status: "retrying: rate limited", SessionID: "ses_01"}},
	{"opencode", "permission_updated", Signal{Event: "permission.updated", State: StateWaiting, Why: "permission: git push origin main", Status: "permission: git push origin main", SessionID: "ses_01"}},
	{"opencode", "permission_asked", Signal{Event: "permission.asked", State: StateWaiting, Why: "permission: edit src/app.ts", Status: "permission: edit src/app.ts", SessionID: "ses_01"}},
	{"opencode", "permission_replied", Signal{Event: "permission.replied", State: StateRunning, Why: "permission answered", SessionID: "ses_01"}},
	{"opencode", "tool_execute_before", Signal{Event: "tool.execute.before", State: StateRunning, Status: "bash: bun test", Why: "tool: bash: bun test", SessionID: "ses_01"}},
	{"opencode", "chat_message", Signal{Event: "chat.message", State: StateRunning, Why: "prompt submitted", SessionID: "ses_01"}},
	{"opencode", "session_error", Signal{Event: "session.error", State: StateIdle, Why: "error: Overloaded, try again later", Status: "error: Overloaded, try again later", SessionID: "ses_01"}},
	{"opencode", "subagent_created", Signal{Event: "session.created", SubagentDelta: 1, Why: "subagent started", SessionID: "ses_02"}},
	{"opencode", "subagent_idle", Signal{Event: "session.idle", SubagentDelta: -1, Why: "subagent finished", SessionID: "ses_02"}},
	{"opencode", "instance_disposed", Signal{Event: "server.instance.disposed", SessionEnd: true, Why: "session ended"}},
}

const claudeSession = "3f1c2a9e-7b7d-4c55-9a0e-5d2f0c1b8e11"

func TestAdaptFixtures(t *testing.T) {
	for _, tc := range adaptCases {
		t.Run(tc.cli+"/"+tc.fixture, func(t *testing.T) {
			payload, err := os.ReadFile(filepath.Join("testdata", tc.cli, tc.fixture+".json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Adapt(tc.cli, payload)
			if err != nil {
				t.Fatalf("Adapt: %v", err)
			}
			want := tc.want
			if tc.cli == "claude" {
				want.SessionID = claudeSession
			}
			if got != want {
				t.Errorf("Adapt(%s, %s)\n got %+v\nwant %+v", tc.cli, tc.fixture, got, want)
			}
		})
	}
}

// TestEveryFixtureIsTested keeps fixtures and the table in step.
func TestEveryFixtureIsTested(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range adaptCases {
		covered[tc.cli+"/"+tc.fixture] = true
	}
	files, err := filepath.Glob("testdata/*/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no fixtures found")
	}
	for _, f := range files {
		name := filepath.Base(filepath.Dir(f)) + "/" + strings.TrimSuffix(filepath.Base(f), ".json")
		if !covered[name] {
			t.Errorf("fixture %s has no case in adaptCases", name)
		}
	}
}

// A subagent's stop must never make the agent itself idle or done.
func TestSubagentStopNeverChangesState(t *testing.T) {
	for _, f := range []struct{ cli, fixture string }{{"claude", "subagent_stop"}, {"opencode", "subagent_idle"}} {
		payload, err := os.ReadFile(filepath.Join("testdata", f.cli, f.fixture+".json"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := Adapt(f.cli, payload)
		if err != nil {
			t.Fatal(err)
		}
		if s.State != "" || s.SessionEnd || s.SubagentDelta != -1 {
			t.Errorf("%s/%s: got %+v, want only SubagentDelta -1", f.cli, f.fixture, s)
		}
	}
}

func TestAdaptErrors(t *testing.T) {
	cases := []struct {
		cli, payload, want string
	}{
		{"vim", `{}`, `unknown agent CLI "vim"`},
		{"claude", ``, "empty"},
		{"claude", `[1,2]`, "not a JSON object"},
		{"claude", `{"hook_event_name":`, "read the claude hook payload"},
		{"codex", `not json`, "not a JSON object"},
		{"gemini", `{"hook_event_name": 7}`, "read the gemini hook payload"},
		{"opencode", `{"type":"session.idle","properties":"x"}`, "read the opencode hook payload"},
	}
	for _, tc := range cases {
		_, err := Adapt(tc.cli, []byte(tc.payload))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Adapt(%q, %q) error = %v, want it to mention %q", tc.cli, tc.payload, err, tc.want)
		}
	}
	if _, err := Adapt("claude", []byte(`{"x":"`+strings.Repeat("a", MaxPayload)+`"}`)); err == nil {
		t.Error("an oversized payload was accepted")
	}
}

func TestAdaptUnknownEventIsNotAnError(t *testing.T) {
	s, err := Adapt("claude", []byte(`{"hook_event_name":"SomethingNew","session_id":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if s != (Signal{Event: "SomethingNew", SessionID: "x"}) {
		t.Errorf("got %+v", s)
	}
}

// Tool input is untrusted: escapes and newlines must not reach the screen.
func TestAdaptSanitizesStatus(t *testing.T) {
	payload := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo \u001b[2J\u001b]0;pwned\u0007hi\tthere"}}`
	s, err := Adapt("claude", []byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	if s.Status != "Bash: echo hi there" {
		t.Errorf("Status = %q", s.Status)
	}
	long := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + strings.Repeat("x", 500) + `"}}`
	s, err = Adapt("claude", []byte(long))
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(s.Status)); n > maxStatus || !strings.HasSuffix(s.Status, "…") {
		t.Errorf("long status not capped: %d runes", n)
	}
}

func TestCodexLifecycleHooksUseClaudeShape(t *testing.T) {
	s, err := Adapt("codex", []byte(`{"hook_event_name":"Stop","session_id":"t1","last_assistant_message":"done"}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.State != StateIdle || s.Status != "done" {
		t.Errorf("got %+v", s)
	}
}

func TestOpenCodePluginEmbedsExe(t *testing.T) {
	src := OpenCodePlugin(`/opt/agent "grid"/agentgrid`)
	if !strings.Contains(src, `const EXE = "/opt/agent \"grid\"/agentgrid";`) {
		t.Errorf("exe not quoted as a JS string:\n%s", src)
	}
	if strings.Contains(src, "__AGENTGRID_EXE__") {
		t.Error("placeholder left in the plugin")
	}
}

package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// Every fixture in internal/agentcli/<cli>/testdata/ is a payload written
// from that CLI's documented hook schema; each must appear in this table.
var adaptCases = []struct {
	cli, fixture string
	want         agentstate.Signal
}{
	// Claude Code
	{"claude", "session_start", agentstate.Signal{Event: "SessionStart", State: agentstate.Idle, Why: "session started (startup)"}},
	{"claude", "session_start_compact", agentstate.Signal{Event: "SessionStart", State: agentstate.Running, Why: "context compacted"}},
	{"claude", "user_prompt_submit", agentstate.Signal{Event: "UserPromptSubmit", State: agentstate.Running, Why: "prompt submitted: Fix the flaky test in layout …"}},
	{"claude", "pre_tool_use_bash", agentstate.Signal{Event: "PreToolUse", State: agentstate.Running, Status: "Bash: go test ./...", Why: "tool: Bash: go test ./..."}},
	{"claude", "pre_tool_use_edit", agentstate.Signal{Event: "PreToolUse", State: agentstate.Running, Status: "Edit: layout/layout.go", Why: "tool: Edit: layout/layout.go"}},
	{"claude", "pre_tool_use_write_outside", agentstate.Signal{Event: "PreToolUse", State: agentstate.Running, Status: "Write: /tmp/notes.txt", Why: "tool: Write: /tmp/notes.txt"}},
	{"claude", "pre_tool_use_read", agentstate.Signal{Event: "PreToolUse", State: agentstate.Running, Status: "Read: README.md", Why: "tool: Read: README.md"}},
	{"claude", "pre_tool_use_grep", agentstate.Signal{Event: "PreToolUse", State: agentstate.Running, Status: "Grep: func decide in orchestrator", Why: "tool: Grep: func decide in orchestrator"}},
	{"claude", "pre_tool_use_task", agentstate.Signal{Event: "PreToolUse", State: agentstate.Running, Status: "Task: Survey the layout code", Why: "tool: Task: Survey the layout code"}},
	{"claude", "pre_tool_use_mcp", agentstate.Signal{Event: "PreToolUse", State: agentstate.Running, Status: "MCP agentgrid.spawn_agent", Why: "tool: MCP agentgrid.spawn_agent"}},
	{"claude", "post_tool_use", agentstate.Signal{Event: "PostToolUse", State: agentstate.Running, Status: "Bash: go test ./...", Why: "tool finished: Bash: go test ./..."}},
	{"claude", "post_tool_use_failure", agentstate.Signal{Event: "PostToolUseFailure", State: agentstate.Running, Status: "Bash: make lint", Why: "tool failed: Bash: make lint: exit status 2"}},
	{"claude", "post_tool_use_failure_interrupt", agentstate.Signal{Event: "PostToolUseFailure", State: agentstate.Idle, Why: "interrupted by the user"}},
	{"claude", "permission_request", agentstate.Signal{Event: "PermissionRequest", State: agentstate.Waiting, Status: "permission: Bash: rm -rf build", Why: "permission: Bash: rm -rf build"}},
	{"claude", "notification_permission", agentstate.Signal{Event: "Notification", State: agentstate.Waiting, Status: "Claude needs your permission to use Bash", Why: "Claude needs your permission to use Bash", Restates: true}},
	{"claude", "notification_idle", agentstate.Signal{Event: "Notification", State: agentstate.Idle, Why: "Claude is waiting for your input"}},
	{"claude", "notification_untyped", agentstate.Signal{Event: "Notification", State: agentstate.Waiting, Status: "Claude needs your attention", Why: "Claude needs your attention"}},
	{"claude", "stop", agentstate.Signal{Event: "Stop", State: agentstate.Idle, Why: "turn finished", Status: "All 42 tests pass now. …"}},
	{"claude", "stop_hook_active", agentstate.Signal{Event: "Stop", State: agentstate.Idle, Why: "turn finished", Status: "All 42 tests pass now. …"}},
	{"claude", "pre_tool_use_write_env", agentstate.Signal{Event: "PreToolUse", State: agentstate.Running, Status: "Write: .env", Why: "tool: Write: .env"}},
	{"claude", "post_tool_use_read", agentstate.Signal{Event: "PostToolUse", State: agentstate.Running, Status: "Read: layout/layout.go", Why: "tool finished: Read: layout/layout.go"}},
	{"claude", "post_tool_use_todowrite", agentstate.Signal{Event: "PostToolUse", State: agentstate.Running, Status: "TodoWrite: updating the todo list", Why: "tool finished: TodoWrite: updating the todo list"}},
	{"claude", "subagent_start", agentstate.Signal{Event: "SubagentStart", State: agentstate.Running, SubagentDelta: 1, Why: "subagent started: Explore"}},
	{"claude", "subagent_stop", agentstate.Signal{Event: "SubagentStop", SubagentDelta: -1, Why: "subagent finished: Explore"}},
	{"claude", "pre_compact", agentstate.Signal{Event: "PreCompact", State: agentstate.Running, Status: "compacting", Why: "compacting the context"}},
	{"claude", "session_end", agentstate.Signal{Event: "SessionEnd", SessionEnd: true, Why: "session ended (prompt_input_exit)"}},
	// Recorded from Claude Code 2.1.332 in the live suite (paths and session id replaced).
	{"claude", "live_permission_request", agentstate.Signal{Event: "PermissionRequest", State: agentstate.Waiting, Status: "permission: Bash: touch live-file3.txt", Why: "permission: Bash: touch live-file3.txt"}},
	{"claude", "live_notification_permission", agentstate.Signal{Event: "Notification", State: agentstate.Waiting, Status: "Claude needs your permission", Why: "Claude needs your permission", Restates: true}},
	{"claude", "live_stop_failure", agentstate.Signal{Event: "StopFailure", State: agentstate.Idle, Status: "API Error: 400 scripted failure", Why: "turn failed: API Error: 400 scripted failure"}},
	{"claude", "stop_failure_rate_limit", agentstate.Signal{Event: "StopFailure", State: agentstate.Idle, Failure: "rate_limit",
		Status: "API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later.",
		Why:    "turn failed: API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later."}},
	{"claude", "stop_failure_overloaded", agentstate.Signal{Event: "StopFailure", State: agentstate.Idle, Failure: "overloaded",
		Status: `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		Why:    `turn failed: API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}},

	// Codex notify
	{"codex", "agent_turn_complete", agentstate.Signal{Event: "agent-turn-complete", State: agentstate.Idle, Why: "turn complete", Status: "Renamed the package and updated 14 imports.", SessionID: "0199a1b2-c3d4"}},
	{"codex", "agent_turn_complete_empty", agentstate.Signal{Event: "agent-turn-complete", State: agentstate.Idle, Why: "turn complete", SessionID: "0199a1b2-c3d4"}},
	{"codex", "approval_requested", agentstate.Signal{Event: "approval-requested", State: agentstate.Waiting, Why: "approval: run git push --force", Status: "approval: run git push --force", SessionID: "0199a1b2-c3d4"}},
	// Recorded from Codex 0.171.0 in the live suite (paths replaced): its
	// lifecycle hooks, and the notify of the side thread that writes the
	// session's title during the turn.
	{"codex", "live_session_start", agentstate.Signal{Event: "SessionStart", State: agentstate.Idle, Why: "session started (startup)", SessionID: "01a2315c-e197-7430-acdb-ef54097f5703"}},
	{"codex", "live_user_prompt_submit", agentstate.Signal{Event: "UserPromptSubmit", State: agentstate.Running, Why: "prompt submitted: CALL exec_command {\"cmd\":\"touch cx-file.txt\",\"sandbox_permissions\":\"require_escalated\",\"justification\":\"make a file\"}", SessionID: "01a2315c-e197-7430-acdb-ef54097f5703"}},
	{"codex", "live_pre_tool_use", agentstate.Signal{Event: "PreToolUse", State: agentstate.Running, Status: "Bash: touch cx-file.txt", Why: "tool: Bash: touch cx-file.txt", SessionID: "01a2315c-e197-7430-acdb-ef54097f5703"}},
	{"codex", "live_permission_request", agentstate.Signal{Event: "PermissionRequest", State: agentstate.Waiting, Status: "permission: Bash: touch cx-file.txt", Why: "permission: Bash: touch cx-file.txt", SessionID: "01a2315c-e197-7430-acdb-ef54097f5703"}},
	{"codex", "live_stop", agentstate.Signal{Event: "Stop", State: agentstate.Idle, Why: "turn finished", Status: "LIVE-DONE: the tool finished.", SessionID: "01a2315c-e197-7430-acdb-ef54097f5703"}},
	{"codex", "live_notify_title_thread", agentstate.Signal{Event: "agent-turn-complete", State: agentstate.Idle, Why: "turn complete", Status: "Live session", SessionID: "01a2315c-f758-7513-a279-e99424dc9949"}},
	{"codex", "unknown_type", agentstate.Signal{Event: "something-new", SessionID: "0199a1b2-c3d4"}},

	// Gemini CLI
	{"gemini", "session_start", agentstate.Signal{Event: "SessionStart", State: agentstate.Idle, Why: "session started (startup)", SessionID: "gem-5521"}},
	{"gemini", "before_agent", agentstate.Signal{Event: "BeforeAgent", State: agentstate.Running, Why: "prompt submitted: Add a --json flag to list", SessionID: "gem-5521"}},
	{"gemini", "before_tool_shell", agentstate.Signal{Event: "BeforeTool", State: agentstate.Running, Status: "Shell: go build ./...", Why: "tool: Shell: go build ./...", SessionID: "gem-5521"}},
	{"gemini", "before_tool_write", agentstate.Signal{Event: "BeforeTool", State: agentstate.Running, Status: "Write: cmd_list.go", Why: "tool: Write: cmd_list.go", SessionID: "gem-5521"}},
	{"gemini", "after_tool", agentstate.Signal{Event: "AfterTool", State: agentstate.Running, Status: "Read: go.mod", Why: "tool finished: Read: go.mod", SessionID: "gem-5521"}},
	{"gemini", "notification_permission", agentstate.Signal{Event: "Notification", State: agentstate.Waiting, Status: "Allow run_shell_command: rm -rf dist?", Why: "Allow run_shell_command: rm -rf dist?", SessionID: "gem-5521"}},
	{"gemini", "after_agent", agentstate.Signal{Event: "AfterAgent", State: agentstate.Idle, Why: "turn finished", Status: "Added --json to list; tests pass.", SessionID: "gem-5521"}},
	{"gemini", "pre_compress", agentstate.Signal{Event: "PreCompress", State: agentstate.Running, Status: "compressing", Why: "compressing the context", SessionID: "gem-5521"}},
	// Recorded from Gemini CLI 0.61.0 in the live suite: the permission
	// notices name the command or MCP tool in their details; an MCP tool's
	// BeforeTool names it in mcp_context; the automatic PreCompress comes
	// before every model call and says nothing.
	{"gemini", "live_notification_exec", agentstate.Signal{Event: "Notification", State: agentstate.Waiting, Status: "permission: Shell: touch g-file.txt", Why: "permission: Shell: touch g-file.txt", SessionID: "0aee3178-6ef6-4e9e-b087-d804eacd9211"}},
	{"gemini", "live_notification_mcp", agentstate.Signal{Event: "Notification", State: agentstate.Waiting, Status: "permission: MCP agentgrid.spawn_agent", Why: "permission: MCP agentgrid.spawn_agent", SessionID: "0aee3178-6ef6-4e9e-b087-d804eacd9211"}},
	{"gemini", "live_before_tool_mcp", agentstate.Signal{Event: "BeforeTool", State: agentstate.Running, Status: "MCP agentgrid.spawn_agent", Why: "tool: MCP agentgrid.spawn_agent", SessionID: "0aee3178-6ef6-4e9e-b087-d804eacd9211"}},
	{"gemini", "live_pre_compress_auto", agentstate.Signal{Event: "PreCompress", SessionID: "0aee3178-6ef6-4e9e-b087-d804eacd9211"}},
	{"gemini", "session_end", agentstate.Signal{Event: "SessionEnd", SessionEnd: true, Why: "session ended (exit)", SessionID: "gem-5521"}},

	// OpenCode (events forwarded by agentgrid's plugin)
	{"opencode", "session_idle", agentstate.Signal{Event: "session.idle", State: agentstate.Idle, Why: "session idle", SessionID: "ses_01"}},
	{"opencode", "session_status_busy", agentstate.Signal{Event: "session.status", State: agentstate.Running, Why: "session busy", SessionID: "ses_01"}},
	{"opencode", "session_status_retry", agentstate.Signal{Event: "session.status", State: agentstate.Running, Why: "retrying: rate limited", Status: "retrying: rate limited", SessionID: "ses_01"}},
	{"opencode", "permission_updated", agentstate.Signal{Event: "permission.updated", State: agentstate.Waiting, Why: "permission: git push origin main", Status: "permission: git push origin main", SessionID: "ses_01"}},
	{"opencode", "permission_asked", agentstate.Signal{Event: "permission.asked", State: agentstate.Waiting, Why: "permission: edit src/app.ts", Status: "permission: edit src/app.ts", SessionID: "ses_01"}},
	{"opencode", "permission_replied", agentstate.Signal{Event: "permission.replied", State: agentstate.Running, Why: "permission answered", SessionID: "ses_01"}},
	{"opencode", "tool_execute_before", agentstate.Signal{Event: "tool.execute.before", State: agentstate.Running, Status: "bash: bun test", Why: "tool: bash: bun test", SessionID: "ses_01"}},
	{"opencode", "chat_message", agentstate.Signal{Event: "chat.message", State: agentstate.Running, Why: "prompt submitted", SessionID: "ses_01"}},
	{"opencode", "chat_message_prompt", agentstate.Signal{Event: "chat.message", State: agentstate.Running, Why: "prompt submitted", SessionID: "ses_01"}},
	{"opencode", "tool_execute_before_env", agentstate.Signal{Event: "tool.execute.before", State: agentstate.Running, Status: "write: /home/dev/proj/.env", Why: "tool: write: /home/dev/proj/.env", SessionID: "ses_01"}},
	{"opencode", "tool_execute_after", agentstate.Signal{Event: "tool.execute.after", State: agentstate.Running, Status: "read: /home/dev/proj/src/app.ts", Why: "tool finished: read: /home/dev/proj/src/app.ts", SessionID: "ses_01"}},
	{"opencode", "session_idle_said", agentstate.Signal{Event: "session.idle", State: agentstate.Idle, Why: "session idle", SessionID: "ses_01"}},
	{"opencode", "session_error", agentstate.Signal{Event: "session.error", State: agentstate.Idle, Why: "error: Overloaded, try again later", Status: "error: Overloaded, try again later", SessionID: "ses_01", Failure: "overloaded"}},
	{"opencode", "session_error_rate_limit", agentstate.Signal{Event: "session.error", State: agentstate.Idle, Why: "error: Too Many Requests", Status: "error: Too Many Requests", SessionID: "ses_01", Failure: "rate_limit"}},
	{"opencode", "session_error_auth", agentstate.Signal{Event: "session.error", State: agentstate.Idle, Why: "error: invalid x-api-key", Status: "error: invalid x-api-key", SessionID: "ses_01"}},
	{"opencode", "subagent_created", agentstate.Signal{Event: "session.created", SubagentDelta: 1, Why: "subagent started", SessionID: "ses_02"}},
	{"opencode", "subagent_idle", agentstate.Signal{Event: "session.idle", SubagentDelta: -1, Why: "subagent finished", SessionID: "ses_02"}},
	// Recorded from OpenCode 1.18.33 in the live suite (paths replaced).
	{"opencode", "live_permission_asked", agentstate.Signal{Event: "permission.asked", State: agentstate.Waiting, Why: "permission: bash touch oc-file.txt", Status: "permission: bash touch oc-file.txt", SessionID: "ses_dcea97186ffek0SLS3rvjs2llx"}},
	{"opencode", "live_permission_replied", agentstate.Signal{Event: "permission.replied", State: agentstate.Running, Why: "permission answered", SessionID: "ses_dcea97186ffek0SLS3rvjs2llx"}},
	{"opencode", "instance_disposed", agentstate.Signal{Event: "server.instance.disposed", SessionEnd: true, Why: "session ended"}},
}

// fixture is the path of a CLI's payload fixture, kept beside its adapter.
func fixture(cli, name string) string {
	return filepath.Join("..", cli, "testdata", name+".json")
}

const claudeSession = "3f1c2a9e-7b7d-4c55-9a0e-5d2f0c1b8e11"

func TestAdaptFixtures(t *testing.T) {
	for _, tc := range adaptCases {
		t.Run(tc.cli+"/"+tc.fixture, func(t *testing.T) {
			payload, err := os.ReadFile(fixture(tc.cli, tc.fixture))
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
	files, err := filepath.Glob(filepath.Join("..", "*", "testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no fixtures found")
	}
	for _, f := range files {
		name := filepath.Base(filepath.Dir(filepath.Dir(f))) + "/" + strings.TrimSuffix(filepath.Base(f), ".json")
		if !covered[name] {
			t.Errorf("fixture %s has no case in adaptCases", name)
		}
	}
}

// A subagent's stop must never make the agent itself idle or done.
func TestSubagentStopNeverChangesState(t *testing.T) {
	for _, f := range []struct{ cli, fixture string }{{"claude", "subagent_stop"}, {"opencode", "subagent_idle"}} {
		payload, err := os.ReadFile(fixture(f.cli, f.fixture))
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
	if s != (agentstate.Signal{Event: "SomethingNew", SessionID: "x"}) {
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

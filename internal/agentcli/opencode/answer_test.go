package opencode

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

func TestAskFromPluginPayloads(t *testing.T) {
	base := func(a agentstate.Ask) agentstate.Ask { a.Cwd, a.SessionID = "/home/dev/proj", "ses_01"; return a }
	cases := []struct {
		file string
		ok   bool
		want agentstate.Ask
	}{
		{"tool_execute_before_env.json", true, base(agentstate.Ask{Point: agentstate.PointPreTool, Tool: "write", Paths: []string{"/home/dev/proj/.env"}})},
		{"tool_execute_after.json", true, base(agentstate.Ask{Point: agentstate.PointPostTool, Tool: "read", Paths: []string{"/home/dev/proj/src/app.ts"}})},
		{"chat_message_prompt.json", true, base(agentstate.Ask{Point: agentstate.PointPrompt, Prompt: "add pagination to the list endpoint"})},
		{"session_idle_said.json", true, base(agentstate.Ask{Point: agentstate.PointStop, Said: "Added pagination to /list.\nTests pass."})},
		// A plugin of an older agentgrid: no directory, nothing said.
		{"tool_execute_before.json", true, agentstate.Ask{Point: agentstate.PointPreTool, Tool: "bash", SessionID: "ses_01"}},
		{"session_idle.json", true, agentstate.Ask{Point: agentstate.PointStop, SessionID: "ses_01"}},
		// A subagent's turn is not the agent's.
		{"subagent_idle.json", false, agentstate.Ask{}},
		{"session_status_busy.json", false, agentstate.Ask{}},
		{"permission_asked.json", false, agentstate.Ask{}},
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
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.file, got, c.want)
		}
	}
}

func TestOpenCodeAnswerFormats(t *testing.T) {
	block := agentstate.Decision{Action: agentstate.ActionBlock, Message: "no"}
	hint := agentstate.Decision{Action: agentstate.ActionHint, Message: "note"}
	cases := []struct {
		point agentstate.Point
		d     agentstate.Decision
		want  string
	}{
		{agentstate.PointPreTool, block, `{"block":"no"}`},
		{agentstate.PointPreTool, hint, ""},
		{agentstate.PointPostTool, block, `{"hint":"no"}`},
		{agentstate.PointPostTool, hint, `{"hint":"note"}`},
		{agentstate.PointPrompt, block, `{"block":"no"}`},
		{agentstate.PointPrompt, hint, `{"hint":"note"}`},
		{agentstate.PointStop, block, ""},
		{agentstate.PointStop, hint, ""},
		{agentstate.PointPreTool, agentstate.Decision{}, ""},
	}
	for _, c := range cases {
		if got := string(CLI{}.Answer(agentstate.Ask{Point: c.point}, c.d)); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.d.Action, c.point, got, c.want)
		}
	}
}

// TestPluginCarriesAnswers runs the generated plugin under node the way
// OpenCode calls it, with a hook program that answers like `agentgrid hook
// opencode` does: a block throws before the tool, hints land in the tool's
// output and as a synthetic part of the prompt's message (once, however
// often the conversation is sent), the turn's end carries what the
// assistant said, and a hook that does not answer lets the tool go ahead.
func TestPluginCarriesAnswers(t *testing.T) {
	node := needNode(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "payloads")
	script := "#!/bin/sh\npayload=$(cat)\nprintf '%s\\n' \"$payload\" >> " + log + "\n" + `case "$payload" in
*'"tool.execute.before"'*secrets*) printf '{"block":"secrets are off limits"}' ;;
*'"tool.execute.before"'*slowly*) sleep 10 ;;
*'"tool.execute.after"'*) printf '{"hint":"after-hint"}' ;;
*'"chat.message"'*) printf '{"hint":"prompt-hint"}' ;;
esac
`
	driver := pluginImport(t, dir, script) + `
const p = await AgentgridPlugin({ directory: "/proj" });
const r = {};
try {
  await p["tool.execute.before"]({ tool: "write", sessionID: "s", callID: "c1" }, { args: { filePath: "secrets/key" } });
  r.blocked = "";
} catch (e) { r.blocked = e.message; }
await p["tool.execute.before"]({ tool: "read", sessionID: "s", callID: "c2" }, { args: { filePath: "hintme.go" } });
const out = { title: "hintme.go", output: "file body", metadata: {} };
await p["tool.execute.after"]({ tool: "read", sessionID: "s", callID: "c2", args: { filePath: "hintme.go" } }, out);
r.after = out.output;
const mcp = { content: [{ type: "text", text: "listed" }] };
await p["tool.execute.after"]({ tool: "agentgrid_list_agents", sessionID: "s", callID: "c3", args: {} }, mcp);
r.mcp = mcp.content.map((c) => c.text);
await p["chat.message"]({ sessionID: "s" }, { message: { id: "msg_1" }, parts: [{ type: "text", text: "do it" }, { type: "text", text: "ctx", synthetic: true }] });
const msgs = [{ info: { id: "msg_0", role: "user", sessionID: "s" }, parts: [] }, { info: { id: "msg_1", role: "user", sessionID: "s" }, parts: [{ type: "text", text: "do it" }] }];
await p["experimental.chat.messages.transform"]({}, { messages: msgs });
await p["experimental.chat.messages.transform"]({}, { messages: msgs });
r.parts = msgs.map((m) => m.parts.map((x) => x.text + (x.synthetic ? "*" : "")));
await p.event({ event: { type: "message.updated", properties: { sessionID: "s", info: { id: "msg_2", role: "assistant", sessionID: "s" } } } });
await p.event({ event: { type: "message.part.updated", properties: { sessionID: "s", part: { id: "prt_1", messageID: "msg_2", sessionID: "s", type: "text", text: "Added " } } } });
await p.event({ event: { type: "message.part.delta", properties: { sessionID: "s", messageID: "msg_2", partID: "prt_1", field: "text", delta: "pagination." } } });
await p.event({ event: { type: "session.idle", properties: { sessionID: "s" } } });
const t0 = Date.now();
try {
  await p["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c4" }, { args: { command: "slowly" } });
  r.slow = "went ahead";
} catch (e) { r.slow = e.message; }
r.slowMs = Date.now() - t0;
console.log(JSON.stringify(r));
`
	b, err := exec.Command(node, "--input-type=module", "-e", driver).Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, b)
	}
	var r struct {
		Blocked, After, Slow string
		MCP                  []string
		Parts                [][]string
		SlowMs               int
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("driver printed %q: %v", b, err)
	}
	if r.Blocked != "secrets are off limits" {
		t.Errorf("a block before a tool threw %q; want the reason", r.Blocked)
	}
	if r.After != "file body\n\nafter-hint" {
		t.Errorf("the tool's output is %q; want the hint after it", r.After)
	}
	if !reflect.DeepEqual(r.MCP, []string{"listed", "after-hint"}) {
		t.Errorf("an MCP tool's content is %q; want the hint as a text item after it", r.MCP)
	}
	if want := [][]string{{}, {"do it", "prompt-hint*"}}; !reflect.DeepEqual(r.Parts, want) {
		t.Errorf("messages after the transform: %q, want %q", r.Parts, want)
	}
	// The hook sleeps 10 s; the plugin waits two seconds. Generous: the
	// point is that OpenCode is not held for the hook's whole time.
	if r.Slow != "went ahead" || r.SlowMs > 8000 {
		t.Errorf("a hook that does not answer: %s after %d ms; want the tool to go ahead within the budget", r.Slow, r.SlowMs)
	}
	logged, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var idle, prompt map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(logged)), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			t.Fatalf("the hook got %q", line)
		}
		if m["directory"] != "/proj" {
			t.Errorf("payload without the directory: %s", line)
		}
		switch m["type"] {
		case "session.idle":
			idle = m
		case "chat.message":
			prompt = m
		}
	}
	if idle == nil || idle["said"] != "Added pagination." {
		t.Errorf("session.idle payload %v; want said = the assistant's text", idle)
	}
	if props, _ := prompt["properties"].(map[string]any); props == nil || props["prompt"] != "do it" || props["messageID"] != "msg_1" {
		t.Errorf("chat.message payload %v; want the user's text (not the synthetic part) and the message id", prompt)
	}
}

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// openCodeDriver plays OpenCode: it loads the plugin agentgrid generated
// for the agent from OPENCODE_CONFIG_CONTENT, as OpenCode does, and calls
// its hooks the way OpenCode 1.18 calls them — a prompt, a write of .env
// (refused by the policy: the plugin throws), an edit of another file, the
// assistant's reply and the session going idle.
const openCodeDriver = `
const cfg = JSON.parse(process.env.OPENCODE_CONFIG_CONTENT || "{}");
const { AgentgridPlugin } = await import(cfg.plugin[0]);
const p = await AgentgridPlugin({ directory: process.cwd() });
await p["chat.message"]({ sessionID: "ses_e2e" }, { message: { id: "msg_1" }, parts: [{ type: "text", text: "add pagination" }] });
// A hook may miss its budget on a loaded machine (the call then goes
// ahead, as it should); the driver asks again until the answer arrives.
let refused = "";
for (let i = 0; i < 40 && !refused; i++) {
  try {
    await p["tool.execute.before"]({ tool: "write", sessionID: "ses_e2e", callID: "c" + i }, { args: { filePath: process.cwd() + "/.env", content: "X=1" } });
  } catch (e) { refused = e.message; }
}
console.log("REFUSED: " + refused);
try {
  await p["tool.execute.before"]({ tool: "edit", sessionID: "ses_e2e", callID: "ok" }, { args: { filePath: process.cwd() + "/main.go" } });
  console.log("EDIT WENT AHEAD");
} catch (e) { console.log("EDIT REFUSED: " + e.message); }
await p.event({ event: { type: "message.updated", properties: { sessionID: "ses_e2e", info: { id: "msg_2", role: "assistant", sessionID: "ses_e2e" } } } });
await p.event({ event: { type: "message.part.updated", properties: { sessionID: "ses_e2e", part: { id: "prt_1", messageID: "msg_2", sessionID: "ses_e2e", type: "text", text: "Added pagination to /list." } } } });
await p.event({ event: { type: "session.idle", properties: { sessionID: "ses_e2e" } } });
console.log("DRIVER IDLE");
setInterval(() => {}, 1 << 30);
`

// An agent of a kind wired with hooks = "opencode" gets the generated
// plugin; through the real binary and session, a block policy makes the
// plugin refuse the tool with the policy's message, another file goes
// ahead, and the session going idle after the assistant's reply ends a
// turn that `agentgrid wait --until turn` sees with its summary.
func TestOpenCodePluginBlocksAndEndsTurns(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; the OpenCode plugin runs in a JavaScript runtime")
	}
	driverDir := t.TempDir()
	driver := filepath.Join(driverDir, "opencode.mjs")
	if err := os.WriteFile(driver, []byte(openCodeDriver), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := policyConfig + `
[kinds.oc]
command = [` + quoteTOML(node) + `, ` + quoteTOML(driver) + `]
hooks = "opencode"
mcp = false
`
	h := newHarness(t, 160, 40, cfg)
	h.startSession("--", "sh")
	id := h.spawn("--kind", "oc", "--title", "oc")
	h.waitFor(60*time.Second, func() bool { return strings.Contains(h.capture(), "DRIVER IDLE") }, "the driver to finish its calls")
	screen := h.capture()
	if !strings.Contains(screen, "REFUSED: secrets/ and .env are off limits; ask the user") {
		t.Errorf("the plugin did not refuse the write of .env with the policy's message:\n%s", screen)
	}
	if !strings.Contains(screen, "EDIT WENT AHEAD") {
		t.Errorf("the edit of main.go did not go ahead:\n%s", screen)
	}
	out := h.mustClient("wait", id, "--until", "turn", "--timeout", "30s", "--json")
	var res struct {
		Agents []struct {
			ID       string `json:"id"`
			Turns    int    `json:"turns"`
			LastTurn string `json:"last_turn"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Agents) != 1 {
		t.Fatalf("wait --json printed %q: %v", out, err)
	}
	if a := res.Agents[0]; a.Turns != 1 || a.LastTurn != "Added pagination to /list." {
		t.Errorf("after the idle: %+v; want one turn with the assistant's reply as its summary", a)
	}
	if ex := h.mustClient("explain", id); !strings.Contains(ex, "block at pre_tool") || !strings.Contains(ex, "protect-secrets") {
		t.Errorf("agentgrid explain %s does not record the block:\n%s", id, ex)
	}
}

// quoteTOML quotes a string for a TOML basic string.
func quoteTOML(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

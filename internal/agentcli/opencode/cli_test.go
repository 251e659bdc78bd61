package opencode

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentcli"
)

func TestOpenCodePluginEmbedsExe(t *testing.T) {
	src := Plugin(`/opt/agent "grid"/agentgrid`)
	if !strings.Contains(src, `const EXE = "/opt/agent \"grid\"/agentgrid";`) {
		t.Errorf("exe not quoted as a JS string:\n%s", src)
	}
	if strings.Contains(src, "__AGENTGRID_EXE__") {
		t.Error("placeholder left in the plugin")
	}
}

func testWiring(t *testing.T) agentcli.Wiring {
	t.Helper()
	return agentcli.Wiring{Session: "s1", Socket: "/run/ag/s1.sock", AgentID: "a1", StateDir: t.TempDir(), Exe: "/opt/ag/agentgrid", Hooks: true, MCP: true}
}

func TestOpenCodeInlineConfig(t *testing.T) {
	sess := testWiring(t)
	argv, env, err := (CLI{}).Wire(sess, []string{"opencode", "--prompt", "go"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(argv, []string{"opencode", "--prompt", "go"}) || len(env) != 1 {
		t.Fatalf("argv %q env %q", argv, env)
	}
	content, ok := strings.CutPrefix(env[0], "OPENCODE_CONFIG_CONTENT=")
	if !ok {
		t.Fatalf("env = %q", env)
	}
	var c struct {
		Plugin []string `json:"plugin"`
		MCP    map[string]struct {
			Type        string            `json:"type"`
			Command     []string          `json:"command"`
			Enabled     bool              `json:"enabled"`
			Environment map[string]string `json:"environment"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(content), &c); err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(sess.StateDir, "a1-opencode-plugin.js")
	if !reflect.DeepEqual(c.Plugin, []string{"file://" + plugin}) {
		t.Errorf("plugin = %q", c.Plugin)
	}
	m := c.MCP["agentgrid"]
	if m.Type != "local" || !reflect.DeepEqual(m.Command, []string{"/opt/ag/agentgrid", "mcp"}) || !m.Enabled || m.Environment["AGENTGRID_SOCKET"] != "/run/ag/s1.sock" {
		t.Errorf("mcp = %+v", m)
	}
	src, err := os.ReadFile(plugin)
	if err != nil || !strings.Contains(string(src), `const EXE = "/opt/ag/agentgrid";`) {
		t.Errorf("plugin file: %v\n%s", err, src)
	}
}

// The plugin forwards exactly what Events says the wiring delivers.
func TestPluginForwardsEveryEvent(t *testing.T) {
	src := Plugin("/opt/ag/agentgrid")
	for _, ev := range (CLI{}).Events() {
		if !strings.Contains(src, `"`+ev+`"`) {
			t.Errorf("the plugin does not forward %s", ev)
		}
	}
	if !strings.Contains(src, `const FORWARD = new Set(["session.idle",`) {
		t.Errorf("bus events not embedded as a JS array:\n%s", src)
	}
}

// needNode is the node binary, for the tests that run the generated plugin
// as OpenCode does; without node the test is skipped.
func needNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; the plugin runs in OpenCode's JavaScript runtime")
	}
	return node
}

// pluginImport writes the hook program script and the plugin that runs it
// into dir, and returns the line of a node module that imports the
// plugin's AgentgridPlugin.
func pluginImport(t *testing.T, dir, script string) string {
	t.Helper()
	hook := filepath.Join(dir, "hook")
	if err := os.WriteFile(hook, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(dir, "plugin.mjs")
	if err := os.WriteFile(plugin, []byte(Plugin(hook)), 0o600); err != nil {
		t.Fatal(err)
	}
	return `import { AgentgridPlugin } from ` + strconv.Quote("file://"+plugin) + `;`
}

// TestPluginKeepsEventOrder runs the generated plugin under node with a
// hook program that is slow for the first event: OpenCode 1.18.33 sends
// session.status busy and session.idle a millisecond apart, and the live
// suite saw them arrive the other way round, leaving the pane running.
func TestPluginKeepsEventOrder(t *testing.T) {
	node := needNode(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "order")
	script := "#!/bin/sh\npayload=$(cat)\ncase \"$payload\" in *busy*) sleep 0.5;; esac\nprintf '%s\\n' \"$payload\" >> " + out + "\n"
	driver := pluginImport(t, dir, script) + `
const p = await AgentgridPlugin();
await p.event({ event: { type: "session.status", properties: { sessionID: "s", status: { type: "busy" } } } });
await p.event({ event: { type: "session.idle", properties: { sessionID: "s" } } });
`
	cmd := exec.Command(node, "--input-type=module", "-e", driver)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, b)
	}
	// node exits once the queue has drained.
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "session.status") || !strings.Contains(lines[1], "session.idle") {
		t.Errorf("events arrived as:\n%s", b)
	}
}

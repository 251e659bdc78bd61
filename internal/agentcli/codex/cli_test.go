package codex

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/agentgrid/agentgrid/internal/agentcli"
)

func testWiring(t *testing.T) agentcli.Wiring {
	t.Helper()
	return agentcli.Wiring{Session: "s1", Socket: "/run/ag/s1.sock", AgentID: "a1", StateDir: t.TempDir(), Exe: "/opt/ag/agentgrid", Hooks: true, MCP: true}
}

// The codex -c values must parse as the TOML values codex expects.
func TestCodexOverridesAreTOML(t *testing.T) {
	sess := testWiring(t)
	sess.Exe = `/opt/we"ird\path/agentgrid`
	argv, _, err := (CLI{}).Wire(sess, []string{"codex"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var doc strings.Builder
	for i := 1; i+1 < len(argv); i += 2 {
		if argv[i] != "-c" {
			t.Fatalf("argv[%d] = %q", i, argv[i])
		}
		doc.WriteString(argv[i+1] + "\n")
	}
	var got struct {
		Hooks map[string][]struct {
			Matcher string `toml:"matcher"`
			Hooks   []struct {
				Type    string `toml:"type"`
				Command string `toml:"command"`
				Timeout int    `toml:"timeout"`
			} `toml:"hooks"`
		} `toml:"hooks"`
		MCPServers map[string]struct {
			Command string            `toml:"command"`
			Args    []string          `toml:"args"`
			Env     map[string]string `toml:"env"`
		} `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(doc.String(), &got); err != nil {
		t.Fatalf("overrides are not TOML: %v\n%s", err, doc.String())
	}
	if len(got.Hooks) != len((CLI{}).Events()) {
		t.Errorf("%d hook events, want %d: %+v", len(got.Hooks), len((CLI{}).Events()), got.Hooks)
	}
	for _, ev := range (CLI{}).Events() {
		g := got.Hooks[ev]
		if len(g) != 1 || len(g[0].Hooks) != 1 || g[0].Hooks[0].Type != "command" || g[0].Hooks[0].Command != agentcli.ShellQuote(sess.Exe)+" hook codex" {
			t.Errorf("hooks.%s = %+v", ev, g)
			continue
		}
		if want := int(sess.HookTimeout() / time.Second); g[0].Hooks[0].Timeout != want {
			t.Errorf("hooks.%s timeout = %d s, want the hook's %d s", ev, g[0].Hooks[0].Timeout, want)
		}
		if want := map[bool]string{true: "*"}[ev == "PreToolUse" || ev == "PermissionRequest" || ev == "PostToolUse"]; g[0].Matcher != want {
			t.Errorf("hooks.%s matcher = %q, want %q", ev, g[0].Matcher, want)
		}
	}
	s := got.MCPServers["agentgrid"]
	if s.Command != sess.Exe || !reflect.DeepEqual(s.Args, []string{"mcp"}) || s.Env["AGENTGRID_AGENT_ID"] != "a1" {
		t.Errorf("mcp_servers.agentgrid = %+v", s)
	}
}

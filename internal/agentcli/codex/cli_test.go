package codex

import (
	"reflect"
	"strings"
	"testing"

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
		Notify     []string `toml:"notify"`
		MCPServers map[string]struct {
			Command string            `toml:"command"`
			Args    []string          `toml:"args"`
			Env     map[string]string `toml:"env"`
		} `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(doc.String(), &got); err != nil {
		t.Fatalf("overrides are not TOML: %v\n%s", err, doc.String())
	}
	if !reflect.DeepEqual(got.Notify, []string{sess.Exe, "hook", "codex"}) {
		t.Errorf("notify = %q", got.Notify)
	}
	s := got.MCPServers["agentgrid"]
	if s.Command != sess.Exe || !reflect.DeepEqual(s.Args, []string{"mcp"}) || s.Env["AGENTGRID_AGENT_ID"] != "a1" {
		t.Errorf("mcp_servers.agentgrid = %+v", s)
	}
}

package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentcli"
)

func testWiring(t *testing.T) agentcli.Wiring {
	t.Helper()
	return agentcli.Wiring{Session: "s1", Socket: "/run/ag/s1.sock", AgentID: "a1", StateDir: t.TempDir(), Exe: "/opt/ag/agentgrid", Hooks: true, MCP: true}
}

func TestGeminiGeneratedSettings(t *testing.T) {
	sess := testWiring(t)
	if _, _, err := (CLI{}).Wire(sess, []string{"gemini"}, nil); err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks       map[string][]agentcli.HookGroup `json:"hooks"`
		HooksConfig struct{ Enabled bool }          `json:"hooksConfig"`
		MCPServers  map[string]agentcli.MCPServer   `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(sess.StateDir, "a1-gemini-settings.json"), &s)
	if len(s.Hooks) != len((CLI{}).Events()) || !s.HooksConfig.Enabled {
		t.Errorf("gemini hooks = %+v", s)
	}
	if h := s.Hooks["BeforeTool"]; len(h) != 1 || h[0].Matcher != "*" || h[0].Hooks[0].Command != "/opt/ag/agentgrid hook gemini" || h[0].Hooks[0].Timeout != 5000 {
		t.Errorf("BeforeTool = %+v", h)
	}
	if s.MCPServers["agentgrid"].Command != "/opt/ag/agentgrid" {
		t.Errorf("mcpServers = %+v", s.MCPServers)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

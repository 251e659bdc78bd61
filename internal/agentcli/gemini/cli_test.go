package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentcli"
)

func testWiring(t *testing.T) agentcli.Wiring {
	t.Helper()
	return agentcli.Wiring{Session: "s1", Socket: "/run/ag/s1.sock", AgentID: "a1", StateDir: t.TempDir(), Exe: "/opt/ag/agentgrid", Hooks: true, MCP: true}
}

// TestGeminiGeneratedSettings: the wiring is a Gemini home under the state
// folder (GEMINI_CLI_HOME) whose settings are the user's (comments and all)
// plus agentgrid's hooks after the user's own and its MCP server, with the
// user's other Gemini files linked, and the user's own files untouched.
func TestGeminiGeneratedSettings(t *testing.T) {
	user := t.TempDir()
	t.Setenv("HOME", user)
	t.Setenv("GEMINI_CLI_HOME", "")
	t.Setenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", "")
	userSettings := `{
  // the user's own
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "hooks": {"BeforeTool": [{"matcher": "*", "hooks": [{"type": "command", "command": "my-hook // not a comment"}]}]},
  /* theirs */
  "mcpServers": {"mine": {"command": "my-mcp"}}
}`
	mustWrite(t, filepath.Join(user, ".gemini", "settings.json"), userSettings)
	mustWrite(t, filepath.Join(user, ".gemini", "oauth_creds.json"), `{"token":"x"}`)
	sess := testWiring(t)
	_, env, err := (CLI{}).Wire(sess, []string{"gemini"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(sess.StateDir, "a1-gemini-home")
	want := []string{"GEMINI_CLI_HOME=" + home, "GEMINI_CLI_TRUSTED_FOLDERS_PATH=" + filepath.Join(user, ".gemini", "trustedFolders.json")}
	if !slices.Equal(env, want) {
		t.Fatalf("env = %q, want %q", env, want)
	}
	var s struct {
		Security   map[string]any                  `json:"security"`
		Hooks      map[string][]agentcli.HookGroup `json:"hooks"`
		MCPServers map[string]agentcli.MCPServer   `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(home, ".gemini", "settings.json"), &s)
	if len(s.Hooks) != len((CLI{}).Events()) || s.Security == nil {
		t.Errorf("gemini settings = %+v", s)
	}
	if h := s.Hooks["BeforeTool"]; len(h) != 2 || h[0].Hooks[0].Command != "my-hook // not a comment" ||
		h[1].Matcher != "*" || h[1].Hooks[0].Command != "/opt/ag/agentgrid hook gemini" || h[1].Hooks[0].Timeout != 5000 {
		t.Errorf("BeforeTool = %+v", h)
	}
	if s.MCPServers["agentgrid"].Command != "/opt/ag/agentgrid" || s.MCPServers["mine"].Command != "my-mcp" {
		t.Errorf("mcpServers = %+v", s.MCPServers)
	}
	if b, err := os.ReadFile(filepath.Join(home, ".gemini", "oauth_creds.json")); err != nil || string(b) != `{"token":"x"}` {
		t.Errorf("the user's credentials through the Gemini home: %q %v", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(user, ".gemini", "settings.json")); string(b) != userSettings {
		t.Errorf("the user's settings changed:\n%s", b)
	}
	// Wiring again (a restart) keeps working over the links it made.
	if _, _, err := (CLI{}).Wire(sess, []string{"gemini"}, nil); err != nil {
		t.Fatal(err)
	}
}

// TestGeminiBrokenUserSettings: settings Gemini itself could not read stop
// the wiring with a sentence naming the file.
func TestGeminiBrokenUserSettings(t *testing.T) {
	user := t.TempDir()
	t.Setenv("HOME", user)
	t.Setenv("GEMINI_CLI_HOME", "")
	mustWrite(t, filepath.Join(user, ".gemini", "settings.json"), `{"hooks": `)
	_, _, err := (CLI{}).Wire(testWiring(t), []string{"gemini"}, nil)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(user, ".gemini", "settings.json")) {
		t.Fatalf("err = %v", err)
	}
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
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

package orchestrator

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/hooks"
)

func testSess(t *testing.T) SessionEnv {
	t.Helper()
	return SessionEnv{Session: "s1", Socket: "/run/ag/s1.sock", AgentID: "a1", StateDir: t.TempDir(), Exe: "/opt/ag/agentgrid"}
}

func TestResolveKindGoldenArgv(t *testing.T) {
	cfg := config.Default()
	cfg.Kinds["custom"] = config.Kind{Command: []string{"mytool", "--fast"}, PromptArgs: []string{"--task={prompt}"}, Env: map[string]string{"B": "2", "A": "1"}}
	sess := testSess(t)
	sd := sess.StateDir
	cases := []struct {
		name     string
		req      SpawnRequest
		wantArgv []string
		wantEnv  []string
	}{
		{"plain argv", SpawnRequest{Argv: []string{"sh", "-c", "make"}}, []string{"sh", "-c", "make"}, nil},
		{"claude with prompt", SpawnRequest{Kind: "claude", Prompt: "fix the tests"},
			[]string{"claude", "--mcp-config", sd + "/a1-mcp.json", "--settings", sd + "/a1-claude-settings.json", "fix the tests"}, nil},
		{"claude own argv", SpawnRequest{Kind: "claude", Argv: []string{"/usr/local/bin/claude", "--model", "opus"}},
			[]string{"/usr/local/bin/claude", "--mcp-config", sd + "/a1-mcp.json", "--settings", sd + "/a1-claude-settings.json", "--model", "opus"}, nil},
		{"codex with prompt", SpawnRequest{Kind: "codex", Prompt: "rename x"},
			[]string{"codex",
				"-c", `notify=["/opt/ag/agentgrid","hook","codex"]`,
				"-c", `mcp_servers.agentgrid.command="/opt/ag/agentgrid"`,
				"-c", `mcp_servers.agentgrid.args=["mcp"]`,
				"-c", `mcp_servers.agentgrid.env={AGENTGRID_AGENT_ID="a1",AGENTGRID_SESSION="s1",AGENTGRID_SOCKET="/run/ag/s1.sock"}`,
				"rename x"}, nil},
		{"gemini with prompt", SpawnRequest{Kind: "gemini", Prompt: "hi"},
			[]string{"gemini", "-i", "hi"}, []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + sd + "/a1-gemini-settings.json"}},
		{"aider: no wiring", SpawnRequest{Kind: "aider", Prompt: "do it"}, []string{"aider", "--message", "do it"}, nil},
		{"custom preset", SpawnRequest{Kind: "custom", Prompt: "p q"}, []string{"mytool", "--fast", "--task=p q"}, []string{"A=1", "B=2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			argv, env, err := resolveKind(cfg, tc.req, sess)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(argv, tc.wantArgv) {
				t.Errorf("argv\n got %q\nwant %q", argv, tc.wantArgv)
			}
			if !reflect.DeepEqual(env, tc.wantEnv) {
				t.Errorf("env\n got %q\nwant %q", env, tc.wantEnv)
			}
		})
	}
}

func TestResolveKindErrors(t *testing.T) {
	cfg := config.Default()
	sess := testSess(t)
	cases := []struct {
		req  SpawnRequest
		want string
	}{
		{SpawnRequest{}, "no command given"},
		{SpawnRequest{Kind: "vim"}, `unknown kind "vim"; known kinds: aider, claude, codex, gemini, opencode, shell`},
		{SpawnRequest{Kind: "shell", Prompt: "ls"}, `kind "shell" takes no prompt`},
	}
	for _, tc := range cases {
		_, _, err := resolveKind(cfg, tc.req, sess)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("resolveKind(%+v) error = %v, want %q", tc.req, err, tc.want)
		}
	}
	noDir := sess
	noDir.StateDir = ""
	if _, _, err := resolveKind(cfg, SpawnRequest{Kind: "claude"}, noDir); err == nil || !strings.Contains(err.Error(), "state directory") {
		t.Errorf("claude without a state dir: %v", err)
	}
	bad := config.Default()
	bad.Kinds["x"] = config.Kind{Command: []string{"x"}, Hooks: "emacs"}
	if _, _, err := resolveKind(bad, SpawnRequest{Kind: "x"}, sess); err == nil || !strings.Contains(err.Error(), `unknown hooks adapter "emacs"`) {
		t.Errorf("bad adapter: %v", err)
	}
}

func TestResolveKindShellUsesSHELL(t *testing.T) {
	t.Setenv("SHELL", "/bin/zsh")
	argv, env, err := resolveKind(config.Default(), SpawnRequest{Kind: "shell"}, testSess(t))
	if err != nil || !reflect.DeepEqual(argv, []string{"/bin/zsh"}) || env != nil {
		t.Errorf("shell kind = %q %q %v", argv, env, err)
	}
}

// The generated Claude Code files: every mapped event calls `<exe> hook
// claude`, tool events with a match-all matcher, and the MCP config names
// `<exe> mcp` with the session's environment.
func TestClaudeGeneratedFiles(t *testing.T) {
	sess := testSess(t)
	sess.Exe = "/opt/my apps/agentgrid"
	if _, _, err := resolveKind(config.Default(), SpawnRequest{Kind: "claude"}, sess); err != nil {
		t.Fatal(err)
	}
	var settings struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command string
				Timeout       int
			} `json:"hooks"`
		} `json:"hooks"`
	}
	readJSON(t, filepath.Join(sess.StateDir, "a1-claude-settings.json"), &settings)
	if len(settings.Hooks) != len(hooks.ClaudeEvents()) {
		t.Errorf("%d hook events, want %d", len(settings.Hooks), len(hooks.ClaudeEvents()))
	}
	for _, ev := range hooks.ClaudeEvents() {
		g := settings.Hooks[ev]
		if len(g) != 1 || len(g[0].Hooks) != 1 {
			t.Fatalf("%s: %+v", ev, g)
		}
		h := g[0].Hooks[0]
		if h.Type != "command" || h.Command != `'/opt/my apps/agentgrid' hook claude` || h.Timeout != hookTimeoutSeconds {
			t.Errorf("%s hook = %+v", ev, h)
		}
		wantMatcher := ""
		if ev == "PreToolUse" || ev == "PostToolUse" || ev == "PostToolUseFailure" || ev == "PermissionRequest" {
			wantMatcher = "*"
		}
		if g[0].Matcher != wantMatcher {
			t.Errorf("%s matcher = %q", ev, g[0].Matcher)
		}
	}
	var mcp struct {
		MCPServers map[string]mcpServer `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(sess.StateDir, "a1-mcp.json"), &mcp)
	want := mcpServer{Command: "/opt/my apps/agentgrid", Args: []string{"mcp"}, Env: map[string]string{
		"AGENTGRID_SOCKET": "/run/ag/s1.sock", "AGENTGRID_SESSION": "s1", "AGENTGRID_AGENT_ID": "a1"}}
	if !reflect.DeepEqual(mcp.MCPServers["agentgrid"], want) {
		t.Errorf("mcp config = %+v", mcp.MCPServers)
	}
	fi, err := os.Stat(filepath.Join(sess.StateDir, "a1-mcp.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mcp config mode = %v %v", fi.Mode(), err)
	}
}

func TestGeminiGeneratedSettings(t *testing.T) {
	sess := testSess(t)
	if _, _, err := resolveKind(config.Default(), SpawnRequest{Kind: "gemini"}, sess); err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks       map[string][]hookGroup `json:"hooks"`
		HooksConfig struct{ Enabled bool } `json:"hooksConfig"`
		MCPServers  map[string]mcpServer   `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(sess.StateDir, "a1-gemini-settings.json"), &s)
	if len(s.Hooks) != len(hooks.GeminiEvents()) || !s.HooksConfig.Enabled {
		t.Errorf("gemini hooks = %+v", s)
	}
	if h := s.Hooks["BeforeTool"]; len(h) != 1 || h[0].Matcher != "*" || h[0].Hooks[0].Command != "/opt/ag/agentgrid hook gemini" || h[0].Hooks[0].Timeout != 5000 {
		t.Errorf("BeforeTool = %+v", h)
	}
	if s.MCPServers["agentgrid"].Command != "/opt/ag/agentgrid" {
		t.Errorf("mcpServers = %+v", s.MCPServers)
	}
}

func TestOpenCodeInlineConfig(t *testing.T) {
	sess := testSess(t)
	argv, env, err := resolveKind(config.Default(), SpawnRequest{Kind: "opencode", Prompt: "go"}, sess)
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

// The codex -c values must parse as the TOML values codex expects.
func TestCodexOverridesAreTOML(t *testing.T) {
	sess := testSess(t)
	sess.Exe = `/opt/we"ird\path/agentgrid`
	argv, _, err := resolveKind(config.Default(), SpawnRequest{Kind: "codex"}, sess)
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

func TestResolveOrchestrator(t *testing.T) {
	cfg := config.Default()
	sess := testSess(t)
	sess.AgentID = MainID
	sd := sess.StateDir
	argv, _, err := ResolveOrchestrator(cfg, []string{"/usr/bin/claude", "--resume"}, sess)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/usr/bin/claude", "--mcp-config", sd + "/main-mcp.json", "--settings", sd + "/main-claude-settings.json", "--resume"}
	if !reflect.DeepEqual(argv, want) {
		t.Errorf("claude orchestrator\n got %q\nwant %q", argv, want)
	}
	argv, env, err := ResolveOrchestrator(cfg, []string{"bash", "-l"}, sess)
	if err != nil || !reflect.DeepEqual(argv, []string{"bash", "-l"}) || env != nil {
		t.Errorf("bash orchestrator = %q %q %v", argv, env, err)
	}
	cfg.Orchestrator.Kind = "codex"
	argv, _, err = ResolveOrchestrator(cfg, []string{"/opt/codex-nightly"}, sess)
	if err != nil || argv[0] != "/opt/codex-nightly" || argv[1] != "-c" {
		t.Errorf("orchestrator.kind = codex: %q %v", argv, err)
	}
	cfg.Orchestrator.Kind = ""
	if _, _, err := ResolveOrchestrator(cfg, nil, sess); err == nil {
		t.Error("empty orchestrator argv accepted")
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/agentgrid": "/usr/bin/agentgrid",
		"/a b/agentgrid":     "'/a b/agentgrid'",
		"/it's/x":            `'/it'\''s/x'`,
		"":                   "''",
		"/x/$(rm)":           "'/x/$(rm)'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
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

package orchestrator

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/control"
)

func testSess(t *testing.T) agentcli.Wiring {
	t.Helper()
	return agentcli.Wiring{Session: "s1", Socket: "/run/ag/s1.sock", AgentID: "a1", StateDir: t.TempDir(), Exe: "/opt/ag/agentgrid"}
}

func TestResolveKindGoldenArgv(t *testing.T) {
	cfg := config.Default()
	cfg.Kinds["custom"] = config.Kind{Command: []string{"mytool", "--fast"}, PromptArgs: []string{"--task={prompt}"}, Env: map[string]string{"B": "2", "A": "1"}}
	print := cfg.Kinds["claude"]
	print.PromptArgs = []string{"-p", "{prompt}"}
	cfg.Kinds["claude-print"] = print
	noMCP := cfg.Kinds["claude"]
	noMCP.MCP = false
	cfg.Kinds["claude-nomcp"] = noMCP
	sess := testSess(t)
	sd := sess.StateDir
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GEMINI_CLI_HOME", "")
	t.Setenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", "")
	cases := []struct {
		name     string
		req      control.SpawnRequest
		wantArgv []string
		wantEnv  []string
	}{
		{"plain argv", control.SpawnRequest{Argv: []string{"sh", "-c", "make"}}, []string{"sh", "-c", "make"}, nil},
		// Claude Code's prompt is typed once it is ready (typedprompt.go).
		{"claude with prompt", control.SpawnRequest{Kind: "claude", Prompt: "fix the tests"},
			[]string{"claude", "--mcp-config", sd + "/a1-mcp.json", "--settings", sd + "/a1-claude-settings.json"}, nil},
		// ... unless the kind passes it to a flag, or has no MCP server to wait for.
		{"claude print mode", control.SpawnRequest{Kind: "claude-print", Prompt: "fix the tests"},
			[]string{"claude", "--mcp-config", sd + "/a1-mcp.json", "--settings", sd + "/a1-claude-settings.json", "-p", "fix the tests"}, nil},
		{"claude without MCP", control.SpawnRequest{Kind: "claude-nomcp", Prompt: "fix the tests"},
			[]string{"claude", "--settings", sd + "/a1-claude-settings.json", "fix the tests"}, nil},
		{"claude own argv", control.SpawnRequest{Kind: "claude", Argv: []string{"/usr/local/bin/claude", "--model", "opus"}},
			[]string{"/usr/local/bin/claude", "--mcp-config", sd + "/a1-mcp.json", "--settings", sd + "/a1-claude-settings.json", "--model", "opus"}, nil},
		{"codex with prompt", control.SpawnRequest{Kind: "codex", Prompt: "rename x"},
			[]string{"codex",
				"-c", `hooks.SessionStart=[{hooks=[{type="command",command="/opt/ag/agentgrid hook codex",timeout=5}]}]`,
				"-c", `hooks.UserPromptSubmit=[{hooks=[{type="command",command="/opt/ag/agentgrid hook codex",timeout=5}]}]`,
				"-c", `hooks.PreToolUse=[{matcher="*",hooks=[{type="command",command="/opt/ag/agentgrid hook codex",timeout=5}]}]`,
				"-c", `hooks.PermissionRequest=[{matcher="*",hooks=[{type="command",command="/opt/ag/agentgrid hook codex",timeout=5}]}]`,
				"-c", `hooks.PostToolUse=[{matcher="*",hooks=[{type="command",command="/opt/ag/agentgrid hook codex",timeout=5}]}]`,
				"-c", `hooks.Stop=[{hooks=[{type="command",command="/opt/ag/agentgrid hook codex",timeout=5}]}]`,
				"-c", `mcp_servers.agentgrid.command="/opt/ag/agentgrid"`,
				"-c", `mcp_servers.agentgrid.args=["mcp"]`,
				"-c", `mcp_servers.agentgrid.env={AGENTGRID_AGENT_ID="a1",AGENTGRID_SESSION="s1",AGENTGRID_SOCKET="/run/ag/s1.sock"}`,
				"rename x"}, nil},
		{"gemini with prompt", control.SpawnRequest{Kind: "gemini", Prompt: "hi"},
			[]string{"gemini", "-i", "hi"}, []string{"GEMINI_CLI_HOME=" + sd + "/a1-gemini-home", "GEMINI_CLI_TRUSTED_FOLDERS_PATH=" + home + "/.gemini/trustedFolders.json"}},
		{"aider: no wiring", control.SpawnRequest{Kind: "aider", Prompt: "do it"}, []string{"aider", "--message", "do it"}, nil},
		{"custom preset", control.SpawnRequest{Kind: "custom", Prompt: "p q"}, []string{"mytool", "--fast", "--task=p q"}, []string{"A=1", "B=2"}},
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
		req  control.SpawnRequest
		want string
	}{
		{control.SpawnRequest{}, "no command given"},
		{control.SpawnRequest{Kind: "vim"}, `unknown kind "vim"; known kinds: aider, claude, codex, gemini, opencode, shell`},
		{control.SpawnRequest{Kind: "shell", Prompt: "ls"}, `kind "shell" takes no prompt`},
	}
	for _, tc := range cases {
		_, _, err := resolveKind(cfg, tc.req, sess)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("resolveKind(%+v) error = %v, want %q", tc.req, err, tc.want)
		}
	}
	noDir := sess
	noDir.StateDir = ""
	if _, _, err := resolveKind(cfg, control.SpawnRequest{Kind: "claude"}, noDir); err == nil || !strings.Contains(err.Error(), "state directory") {
		t.Errorf("claude without a state dir: %v", err)
	}
	bad := config.Default()
	bad.Kinds["x"] = config.Kind{Command: []string{"x"}, Hooks: "emacs"}
	if _, _, err := resolveKind(bad, control.SpawnRequest{Kind: "x"}, sess); err == nil || !strings.Contains(err.Error(), `unknown hooks adapter "emacs"`) {
		t.Errorf("bad adapter: %v", err)
	}
}

func TestResolveKindShellUsesSHELL(t *testing.T) {
	t.Setenv("SHELL", "/bin/zsh")
	argv, env, err := resolveKind(config.Default(), control.SpawnRequest{Kind: "shell"}, testSess(t))
	if err != nil || !reflect.DeepEqual(argv, []string{"/bin/zsh"}) || env != nil {
		t.Errorf("shell kind = %q %q %v", argv, env, err)
	}
}

func TestResolveOrchestrator(t *testing.T) {
	cfg := config.Default()
	sess := testSess(t)
	sess.AgentID = control.MainID
	sd := sess.StateDir
	argv, _, err := resolveOrchestrator(cfg, []string{"/usr/bin/claude", "--resume"}, sess)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/usr/bin/claude", "--mcp-config", sd + "/main-mcp.json", "--settings", sd + "/main-claude-settings.json", "--resume"}
	if !reflect.DeepEqual(argv, want) {
		t.Errorf("claude orchestrator\n got %q\nwant %q", argv, want)
	}
	argv, env, err := resolveOrchestrator(cfg, []string{"bash", "-l"}, sess)
	if err != nil || !reflect.DeepEqual(argv, []string{"bash", "-l"}) || env != nil {
		t.Errorf("bash orchestrator = %q %q %v", argv, env, err)
	}
	cfg.Orchestrator.Kind = "codex"
	argv, _, err = resolveOrchestrator(cfg, []string{"/opt/codex-nightly"}, sess)
	if err != nil || argv[0] != "/opt/codex-nightly" || argv[1] != "-c" {
		t.Errorf("orchestrator.kind = codex: %q %v", argv, err)
	}
	cfg.Orchestrator.Kind = ""
	if _, _, err := resolveOrchestrator(cfg, nil, sess); err == nil {
		t.Error("empty orchestrator argv accepted")
	}
}

// [kinds.claude] teams = true turns agent teams on for that process, the
// orchestrator's (`agentgrid -- claude`) as much as a spawned agent's.
func TestResolveKindTeams(t *testing.T) {
	cfg := config.Default()
	k := cfg.Kinds["claude"]
	k.Teams = true
	cfg.Kinds["claude"] = k
	sess := testSess(t)
	for _, resolve := range []func() ([]string, []string, error){
		func() ([]string, []string, error) {
			return resolveKind(cfg, control.SpawnRequest{Kind: "claude"}, sess)
		},
		func() ([]string, []string, error) { return resolveOrchestrator(cfg, []string{"claude"}, sess) },
	} {
		argv, env, err := resolve()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(env, []string{"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1"}) || argv[len(argv)-2] != "--settings" {
			t.Fatalf("argv %q env %q", argv, env)
		}
		b, err := os.ReadFile(argv[len(argv)-1])
		if err != nil || !strings.Contains(string(b), `"teammateMode": "tmux"`) {
			t.Fatalf("settings %s = %s, %v", argv[len(argv)-1], b, err)
		}
	}
}

// [kinds.opencode] omo = true gives that OpenCode process, spawned or the
// orchestrator, its own config folder with oh-my-opencode-slim's panes on.
func TestResolveKindOMO(t *testing.T) {
	t.Setenv("OPENCODE_CONFIG_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	cfg := config.Default()
	k := cfg.Kinds["opencode"]
	k.OMO = true
	cfg.Kinds["opencode"] = k
	sess := testSess(t)
	for _, resolve := range []func() ([]string, []string, error){
		func() ([]string, []string, error) {
			return resolveKind(cfg, control.SpawnRequest{Kind: "opencode"}, sess)
		},
		func() ([]string, []string, error) { return resolveOrchestrator(cfg, []string{"opencode"}, sess) },
	} {
		_, env, err := resolve()
		if err != nil {
			t.Fatal(err)
		}
		var dir string
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "OPENCODE_CONFIG_DIR="); ok {
				dir = v
			}
		}
		b, err := os.ReadFile(filepath.Join(dir, "oh-my-opencode-slim.json"))
		if err != nil || !strings.Contains(string(b), `"type": "tmux"`) {
			t.Fatalf("env %q: settings %s, %v", env, b, err)
		}
	}
}

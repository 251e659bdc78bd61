package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentcli"
)

func testWiring(t *testing.T) agentcli.Wiring {
	t.Helper()
	return agentcli.Wiring{Session: "s1", Socket: "/run/ag/s1.sock", AgentID: "a1", StateDir: t.TempDir(), Exe: "/opt/ag/agentgrid", Hooks: true, MCP: true}
}

// The generated Claude Code files: every mapped event calls `<exe> hook
// claude`, tool events with a match-all matcher, and the MCP config names
// `<exe> mcp` with the session's environment.
func TestClaudeGeneratedFiles(t *testing.T) {
	sess := testWiring(t)
	sess.Exe = "/opt/my apps/agentgrid"
	if _, _, err := (CLI{}).Wire(sess, []string{"claude"}, nil); err != nil {
		t.Fatal(err)
	}
	var settings struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command                string
				Timeout                      int
				AsyncRewake                  bool
				RewakeMessage, RewakeSummary string
			} `json:"hooks"`
		} `json:"hooks"`
	}
	readJSON(t, filepath.Join(sess.StateDir, "a1-claude-settings.json"), &settings)
	if len(settings.Hooks) != len((CLI{}).Events()) {
		t.Errorf("%d hook events, want %d", len(settings.Hooks), len((CLI{}).Events()))
	}
	for _, ev := range (CLI{}).Events() {
		g := settings.Hooks[ev]
		want := 1
		if ev == "Stop" {
			want = 2 // and the rewake waiter
		}
		if len(g) != 1 || len(g[0].Hooks) != want {
			t.Fatalf("%s: %+v", ev, g)
		}
		h := g[0].Hooks[0]
		if h.Type != "command" || h.Command != `'/opt/my apps/agentgrid' hook claude` || h.Timeout != agentcli.HookTimeoutSeconds || h.AsyncRewake {
			t.Errorf("%s hook = %+v", ev, h)
		}
		if ev == "Stop" {
			// Run in the background at each end of turn; its exit 2 wakes
			// the model with what it printed.
			r := g[0].Hooks[1]
			if r.Type != "command" || r.Command != `'/opt/my apps/agentgrid' hook claude --rewake` || !r.AsyncRewake ||
				r.Timeout != agentcli.RewakeTimeoutSeconds || r.RewakeMessage == "" || r.RewakeSummary == "" {
				t.Errorf("Stop's rewake hook = %+v", r)
			}
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
		MCPServers map[string]agentcli.MCPServer `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(sess.StateDir, "a1-mcp.json"), &mcp)
	want := agentcli.MCPServer{Command: "/opt/my apps/agentgrid", Args: []string{"mcp"}, Env: map[string]string{
		"AGENTGRID_SOCKET": "/run/ag/s1.sock", "AGENTGRID_SESSION": "s1", "AGENTGRID_AGENT_ID": "a1"}}
	if !reflect.DeepEqual(mcp.MCPServers["agentgrid"], want) {
		t.Errorf("mcp config = %+v", mcp.MCPServers)
	}
	fi, err := os.Stat(filepath.Join(sess.StateDir, "a1-mcp.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mcp config mode = %v %v", fi.Mode(), err)
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

// With teams the generated settings put teammates in tmux panes and the
// environment turns agent teams on; without, neither.
func TestClaudeTeams(t *testing.T) {
	for _, teams := range []bool{false, true} {
		w := testWiring(t)
		w.Teams = teams
		_, env, err := (CLI{}).Wire(w, []string{"claude"}, []string{"A=1"})
		if err != nil {
			t.Fatal(err)
		}
		var settings map[string]any
		readJSON(t, filepath.Join(w.StateDir, "a1-claude-settings.json"), &settings)
		mode, _ := settings["teammateMode"].(string)
		hasEnv := slices.Contains(env, TeamsEnv+"=1")
		if teams != (mode == "tmux") || teams != hasEnv || !slices.Contains(env, "A=1") {
			t.Errorf("teams=%v: teammateMode %q, env %q", teams, mode, env)
		}
	}
}

// With $AGENTGRID_HOOK_BUDGET in the agent's environment, every hook's
// timeout is the budget plus 5 s, so a hook that waits its budget for the
// session still prints in time; the rewake waiter keeps its own.
func TestClaudeHookTimeoutFollowsTheBudget(t *testing.T) {
	sess := testWiring(t)
	sess.HookBudget = "1m"
	if _, _, err := (CLI{}).Wire(sess, []string{"claude"}, nil); err != nil {
		t.Fatal(err)
	}
	var settings struct {
		Hooks map[string][]agentcli.HookGroup `json:"hooks"`
	}
	readJSON(t, filepath.Join(sess.StateDir, "a1-claude-settings.json"), &settings)
	for ev, g := range settings.Hooks {
		for _, h := range g[0].Hooks {
			want := 65
			if h.AsyncRewake {
				want = agentcli.RewakeTimeoutSeconds
			}
			if h.Timeout != want {
				t.Errorf("%s: %q has timeout %d, want %d", ev, h.Command, h.Timeout, want)
			}
		}
	}
}

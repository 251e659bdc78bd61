package live

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// geminiHarness prepares a home in which Gemini CLI talks to the model
// server with an API key, trusts the project, and asks before running
// commands. The user's settings say nothing of agentgrid: its hooks and MCP
// server reach Gemini only through the per-agent home agentgrid builds.
func geminiHarness(t *testing.T) *harness {
	h := newHarness(t, 140, 45)
	h.writeFile(".gemini/settings.json", geminiUserSettings)
	trusted, _ := json.Marshal(map[string]string{h.proj: "TRUST_FOLDER"})
	h.writeFile(".gemini/trustedFolders.json", string(trusted))
	// COLORTERM as agentgrid gives its children, for the plain tmux run of
	// the first-screen comparison (Gemini warns without true colour).
	h.env = append(h.env, "COLORTERM=truecolor", "GOOGLE_GEMINI_BASE_URL="+h.model.URL, "GEMINI_API_KEY=live-key")
	for _, kv := range h.env[len(h.env)-3:] {
		h.typeText("export " + shellJoin([]string{kv}) + "\n")
	}
	return h
}

// geminiUserSettings are the user's own Gemini settings in the harness.
const geminiUserSettings = `{
  // the user's own settings
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  // a hook of the user's own, which must still run beside agentgrid's
  "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "touch \"$HOME/user-hook-ran\""}]}]}
}`

// geminiReady is on Gemini's screen once its prompt takes input.
const geminiReady = "Type your message"

// TestGeminiMainView runs Gemini CLI as the main view through a turn: its
// hooks (item 1) report the start, the permission prompt of a shell call,
// the approval and the end of the turn; the model calls agentgrid's MCP
// tool and the pane appears.
func TestGeminiMainView(t *testing.T) {
	h := geminiHarness(t)
	h.start("gemini")
	h.screenHas(geminiReady, 60*time.Second)
	h.waitState("main", "idle", "hook:gemini", "session started", 30*time.Second)

	h.prompt(`CALL run_shell_command {"command":"touch g-file.txt"}`)
	h.waitState("main", "waiting", "hook:gemini", "permission: Shell: touch g-file.txt", 30*time.Second)
	h.screenHas("Allow execution", 10*time.Second)
	h.approveUntil("Allow execution", func() bool {
		_, err := os.Stat(filepath.Join(h.proj, "g-file.txt"))
		return err == nil
	})
	h.waitState("main", "idle", "hook:gemini", "turn finished", 30*time.Second)
	if _, err := os.Stat(filepath.Join(h.proj, "g-file.txt")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	h.screenHas("LIVE-DONE", 10*time.Second)
	hist := h.explain("main")
	for _, want := range []string{"prompt submitted", "touch g-file.txt", "turn finished"} {
		if !strings.Contains(hist, want) {
			t.Errorf("explain main lacks %q:\n%s", want, hist)
		}
	}

	// The model calls agentgrid's MCP tool; Gemini asks first; the pane appears.
	h.prompt(`CALL spawn_agent {"title":"from-mcp","argv":["sh","-c","echo spawned-by-mcp; sleep 600"]}`)
	h.waitState("main", "waiting", "hook:gemini", "permission: MCP agentgrid.spawn_agent", 30*time.Second)
	spawned := func() bool {
		for _, a := range h.list() {
			if a.Parent == "main" && a.State == "running" {
				return true
			}
		}
		return false
	}
	h.approveUntil("Allow execution", spawned)
	h.waitFor(30*time.Second, spawned, "a pane spawned through the MCP tool")
	h.screenHas("spawned-by-mcp", 10*time.Second)
	h.waitState("main", "idle", "hook:gemini", "turn finished", 30*time.Second)
	hist = h.explain("main")
	t.Logf("explain main:\n%s", hist)
	// Item 10: the MCP tool reads as agentgrid.spawn_agent, not mcp_agentgrid_spawn_agent.
	if strings.Contains(hist, "mcp_agentgrid") || !strings.Contains(hist, "agentgrid.spawn_agent") {
		t.Errorf("explain main names the MCP tool untidily:\n%s", hist)
	}
	if strings.Contains(hist, "compressing") {
		t.Errorf("explain main shows a compression in a two-turn session:\n%s", hist)
	}
	// The user's own hook ran beside agentgrid's, and the user's own
	// Gemini settings are untouched.
	if _, err := os.Stat(filepath.Join(h.home, "user-hook-ran")); err != nil {
		t.Errorf("the user's own AfterAgent hook did not run: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(h.home, ".gemini", "settings.json"))
	if err != nil || string(b) != geminiUserSettings {
		t.Errorf("the user's settings changed: %s %v", b, err)
	}
}

// TestGeminiFirstScreenMatchesTmux compares Gemini CLI's first screen in
// agentgrid's main view with the same program in plain tmux.
func TestGeminiFirstScreenMatchesTmux(t *testing.T) {
	h := geminiHarness(t)
	// The plain run gets the home agentgrid built for the main view, so
	// that both Gemini CLIs read the same settings: the MCP server (whose
	// connection makes Gemini redraw without its banner, now and then) and
	// the home that paths are shortened by.
	h.plainEnv = []string{
		"GEMINI_CLI_HOME=" + filepath.Join(h.home, ".state", "agentgrid", h.session, "main-gemini-home"),
		"GEMINI_CLI_TRUSTED_FOLDERS_PATH=" + filepath.Join(h.home, ".gemini", "trustedFolders.json"),
	}
	var masks []*regexp.Regexp
	compareFirstScreen(t, h, geminiReady, masks, nil, "gemini")
}

// TestGeminiSpawnedKind starts Gemini CLI as a background agent of kind
// gemini with a prompt, the way an orchestrator does, and answers its
// permission prompt through the socket.
func TestGeminiSpawnedKind(t *testing.T) {
	h := geminiHarness(t)
	h.start("sh")
	out, err := h.client("spawn", "--kind", "gemini", "--title", "worker", "--cwd", h.proj, "--prompt", `CALL run_shell_command {"command":"touch spawned-g.txt"}`)
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(out)
	defer func() {
		if t.Failed() {
			screen, _ := h.client("capture", id)
			t.Logf("%s's screen:\n%s", id, screen)
		}
	}()
	h.waitState(id, "waiting", "hook:gemini", "permission: Shell: touch spawned-g.txt", 60*time.Second)
	h.waitFor(30*time.Second, func() bool {
		if _, err := os.Stat(filepath.Join(h.proj, "spawned-g.txt")); err == nil {
			return true
		}
		_, _ = h.client("send", id, "\r")
		time.Sleep(time.Second)
		return false
	}, "the approved command to run")
	h.waitState(id, "idle", "hook:gemini", "turn finished", 30*time.Second)
	t.Logf("explain %s:\n%s", id, h.explain(id))
}

package live

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// opencodeHarness prepares a home in which OpenCode talks to the model
// server through its Anthropic provider and asks before running commands.
func opencodeHarness(t *testing.T) *harness {
	h := newHarness(t, 140, 45)
	cfg := map[string]any{
		"model": "anthropic/claude-sonnet-4-5", "autoupdate": false, "share": "disabled",
		"provider": map[string]any{"anthropic": map[string]any{"options": map[string]any{
			"baseURL": h.model.URL + "/v1", "apiKey": claudeKey}}},
		"permission": map[string]any{"bash": "ask", "edit": "ask"},
	}
	b, _ := json.Marshal(cfg)
	h.writeFile(".config/opencode/opencode.json", string(b))
	h.typeText("export OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1\n")
	return h
}

// TestOpenCodeMainView runs OpenCode as the main view: no wait after the
// start (item 3), the permission prompt of a bash call (item 2), approval,
// the end of the turn, and agentgrid's MCP tool spawning a pane.
func TestOpenCodeMainView(t *testing.T) {
	h := opencodeHarness(t)
	h.start("opencode")
	h.screenHas("Ask anything", 60*time.Second)
	// OpenCode queries the terminal's notification support at start; that
	// is no reason to wait.
	h.neverState("main", "waiting", 8*time.Second)

	h.prompt(`CALL bash {"command":"touch oc-file.txt","description":"make a file"}`)
	h.waitState("main", "waiting", "hook:opencode", "permission: bash touch oc-file.txt", 30*time.Second)
	h.screenHas("Permission required", 10*time.Second)
	h.approve("Permission required")
	h.waitState("main", "idle", "hook:opencode", "session idle", 30*time.Second)
	if _, err := os.Stat(filepath.Join(h.proj, "oc-file.txt")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	h.screenHas("LIVE-DONE", 10*time.Second)

	h.prompt(`CALL spawn_agent {"title":"from-mcp","argv":["sh","-c","echo spawned-by-mcp; sleep 600"]}`)
	h.waitFor(60*time.Second, func() bool {
		for _, a := range h.list() {
			if a.Parent == "main" && a.State == "running" {
				return true
			}
		}
		return false
	}, "a pane spawned through the MCP tool")
	h.screenHas("spawned-by-mcp", 10*time.Second)
	h.waitState("main", "idle", "hook:opencode", "session idle", 30*time.Second)
	t.Logf("explain main:\n%s", h.explain("main"))
}

// neverState checks that agent id is not in state at any poll for d.
func (h *harness) neverState(id, state string, d time.Duration) {
	h.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if a, ok := h.agent(id); ok && a.State == state {
			h.t.Fatalf("%s is %s (source %q, why %q)\nexplain:\n%s\nscreen:\n%s", id, state, a.Source, a.Why, h.explain(id), h.capture())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestOpenCodeFirstScreenMatchesTmux compares OpenCode's first screen in
// agentgrid's main view with the same program in plain tmux.
func TestOpenCodeFirstScreenMatchesTmux(t *testing.T) {
	h := opencodeHarness(t)
	masks := []*regexp.Regexp{regexp.MustCompile(`Ask anything… "[^"]*"`)} // a random example prompt
	compareFirstScreen(t, h, "ctrl+p commands", masks, []string{"  ⊙ 1 MCP /status"}, "opencode")
}

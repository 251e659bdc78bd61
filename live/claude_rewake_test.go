package live

import (
	"strings"
	"testing"
	"time"
)

// TestClaudeRewakesIdleParent: Claude Code in the main view starts a child
// through agentgrid's MCP tool and ends its turn while the child runs; its
// rewake hook then waits in the background. When the child is closed, the
// hook wakes the idle model: the model server gets a new request carrying
// the notice, and nothing was typed into Claude Code's screen.
func TestClaudeRewakesIdleParent(t *testing.T) {
	h := claudeHarness(t)
	h.start("claude")
	h.screenHas("? for shortcuts", 30*time.Second)
	h.waitState("main", "idle", "hook:claude", "session started", 30*time.Second)

	// The MCP server may connect after the first prompt goes out: a turn
	// without the tool is asked again.
	call := `CALL spawn_agent {"title":"kid","argv":["cat"]}`
	for attempt := 1; ; attempt++ {
		n := len(h.model.Requests())
		h.prompt(call)
		offered, seen := false, false
		h.waitFor(30*time.Second, func() bool {
			for _, r := range h.model.Requests()[n:] {
				if strings.Contains(r.LastUser, call) {
					seen = true
					for _, tool := range r.Tools {
						offered = offered || strings.HasSuffix(tool, "spawn_agent")
					}
				}
			}
			return seen
		}, "the model request of the prompt")
		if offered {
			break
		}
		if attempt == 5 {
			t.Fatal("agentgrid's MCP tools were not offered to the model after 5 prompts")
		}
		h.screenHas("LIVE-NO-TOOL", 30*time.Second)
	}
	h.waitState("main", "waiting", "hook:claude", "MCP agentgrid.spawn_agent", 30*time.Second)
	h.approve("Do you want to proceed?")
	var kid string
	h.waitFor(30*time.Second, func() bool {
		for _, a := range h.list() {
			if a.Parent == "main" && a.ID != "main" && a.State == "running" {
				kid = a.ID
				return true
			}
		}
		return false
	}, "the child spawned through the MCP tool")
	h.waitState("main", "idle", "hook:claude", "turn finished", 30*time.Second)
	h.waitFor(30*time.Second, func() bool { return strings.Contains(h.explain("main"), "a rewake hook waits") },
		"the rewake hook started at the end of main's turn")
	before := len(h.model.Requests())
	screenBefore := h.capture()

	if _, err := h.client("close", kid); err != nil {
		t.Fatal(err)
	}
	notice := kid + " was closed"
	var woke string
	h.waitFor(60*time.Second, func() bool {
		for _, r := range h.model.Requests()[before:] {
			if strings.Contains(string(r.Body), notice) {
				woke = r.LastUser
				return true
			}
		}
		return false
	}, "a model request carrying "+notice)
	t.Logf("the wake-up as the model got it: %q", woke)
	if !strings.Contains(woke, "Notices from agentgrid") || !strings.Contains(woke, "agentgrid: "+notice) {
		t.Errorf("the wake-up's last user message = %q, want the rewake message and the notice", woke)
	}
	// Nothing was typed: the test sent no key after the close, and the
	// message carries the rewake hook's own prefix.
	if strings.Contains(screenBefore, notice) {
		t.Errorf("the notice was on the screen before the wake-up:\n%s", screenBefore)
	}
	h.waitState("main", "idle", "hook:claude", "turn finished", 60*time.Second)
	ex := h.explain("main")
	if !strings.Contains(ex, notice) || !strings.Contains(ex, "by the rewake hook") {
		t.Errorf("explain main does not say the rewake hook delivered %q:\n%s", notice, ex)
	}
	t.Logf("explain main:\n%s", ex)
}

package live

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOpenCodeTalkBack runs OpenCode's main view with two policies, through
// the plugin agentgrid generates: a hint after a read reaches the model
// inside the tool's result, and a block of bash refuses the call before its
// permission prompt, the model reading the reason as the tool's error. Each
// idle after a reply ends a turn.
func TestOpenCodeTalkBack(t *testing.T) {
	h := opencodeHarness(t)
	h.writeFile(".config/agentgrid/config.toml", `
[[policies]]
name = "no-bash"
on = "pre_tool"
tools = ["bash"]
action = "block"
message = "LIVE-BLOCKED: bash is off limits here"

[[policies]]
name = "after-read"
on = "post_tool"
tools = ["read"]
action = "hint"
message = "LIVE-AFTER-HINT: hand file work to a background agent"
`)
	h.writeFile("proj/notes.txt", "some notes\n")
	h.start("opencode")
	h.screenHas("Ask anything", 60*time.Second)
	start := time.Now()
	defer func() {
		t.Logf("the two turns took %v after OpenCode's first screen", time.Since(start).Round(time.Second))
	}()
	results := func() []string {
		var out []string
		for _, r := range h.model.Requests() {
			if r.ToolResult {
				out = append(out, string(r.Body))
			}
		}
		return out
	}

	h.prompt(`CALL read {"filePath":"` + filepath.Join(h.proj, "notes.txt") + `"}`)
	h.waitFor(60*time.Second, func() bool { return len(results()) >= 1 }, "the read's result to reach the model")
	if r := results()[0]; !strings.Contains(r, "some notes") || !strings.Contains(r, "LIVE-AFTER-HINT") {
		t.Errorf("the read's result does not carry the file and the hint after it")
	}
	turns := func() int {
		out, err := h.client("wait", "main", "--until", "turn", "--timeout", "5s", "--json")
		var res struct {
			Agents []struct {
				Turns int `json:"turns"`
			} `json:"agents"`
		}
		if err != nil || json.Unmarshal([]byte(out), &res) != nil || len(res.Agents) != 1 {
			return -1
		}
		return res.Agents[0].Turns
	}
	h.waitFor(60*time.Second, func() bool { return turns() == 1 }, "the first turn to end")
	h.waitState("main", "idle", "hook:opencode", "session idle", 30*time.Second)

	h.prompt(`CALL bash {"command":"touch oc-blocked.txt","description":"make a file"}`)
	h.waitFor(60*time.Second, func() bool { return len(results()) >= 2 }, "the refused call's result to reach the model")
	if r := results()[1]; !strings.Contains(r, "LIVE-BLOCKED: bash is off limits here") {
		t.Errorf("the refused call's result does not carry the block's reason")
	}
	if _, err := os.Stat(filepath.Join(h.proj, "oc-blocked.txt")); err == nil {
		t.Errorf("the blocked command ran")
	}
	h.waitFor(60*time.Second, func() bool { return turns() == 2 }, "the second turn to end")
	if ex := h.explain("main"); !strings.Contains(ex, "block at pre_tool") || !strings.Contains(ex, "no-bash") || !strings.Contains(ex, "hint at post_tool") {
		t.Errorf("explain main lacks the answers:\n%s", ex)
	}
}

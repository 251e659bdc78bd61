package live

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/live/modelserver"
)

// claudeKey is a dummy API key; Claude Code asks once whether to use a key
// from the environment unless its last 20 characters are approved.
const claudeKey = "sk-ant-live-0123456789abcdefghij"

// claudeHarness prepares a home in which Claude Code starts without its
// first-run dialogs, asks before running tools, and talks to the model server.
func claudeHarness(t *testing.T) *harness {
	h := newHarness(t, 140, 45)
	h.env = append(h.env,
		"ANTHROPIC_BASE_URL="+h.model.URL,
		"ANTHROPIC_API_KEY="+claudeKey,
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		// Every tool offered directly, so the script can call the MCP tools.
		"ENABLE_TOOL_SEARCH=false",
	)
	state := map[string]any{
		"hasCompletedOnboarding": true, "numStartups": 1, "theme": "dark",
		// Claude Code plays one of several entrance animations of its logo
		// on the first start of each version, and records the version
		// here: in a fresh home the main view's start played it (the logo
		// blank while it ran, a screen that under load held still long
		// enough to count as settled) while the plain tmux run that
		// follows in the same home never does. Neither run plays it.
		"lastClawdEntranceVersion": pinnedVersion(t, "@anthropic-ai/claude-code"),
		"customApiKeyResponses":    map[string]any{"approved": []string{claudeKey[len(claudeKey)-20:]}, "rejected": []string{}},
		"projects":                 map[string]any{h.proj: map[string]any{"hasTrustDialogAccepted": true, "allowedTools": []string{}}},
	}
	b, _ := json.Marshal(state)
	h.writeFile(".claude.json", string(b))
	h.writeFile(".claude/settings.json", `{"permissions":{"defaultMode":"default","disableAutoMode":"disable"},"disableAutoMode":"disable"}`)
	// The shell in the tmux window was started before these were known.
	for _, kv := range h.env[len(h.env)-5:] {
		h.typeText("export " + shellJoin([]string{kv}) + "\n")
	}
	return h
}

// pinnedVersion is the version of pkg in the versions file.
func pinnedVersion(t *testing.T, pkg string) string {
	t.Helper()
	pins, _, err := readVersions("versions")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pins {
		if p.Package == pkg {
			return p.Version
		}
	}
	t.Fatalf("%s is not pinned in live/versions", pkg)
	return ""
}

// TestClaudeMainView runs Claude Code as agentgrid's main view through a
// whole turn: start, a Bash call that needs permission, moving in the
// permission menu, approval, the answer, an MCP tool that spawns a pane,
// and an API error.
func TestClaudeMainView(t *testing.T) {
	h := claudeHarness(t)
	h.start("claude")
	h.screenHas("Claude Code", 30*time.Second)
	h.waitState("main", "idle", "hook:claude", "session started", 30*time.Second)

	// A tool call that needs permission.
	h.prompt(`CALL Bash {"command":"touch live-file.txt"}`)
	h.waitState("main", "waiting", "hook:claude", "permission: Bash: touch live-file.txt", 30*time.Second)
	h.screenHas("Do you want to proceed?", 10*time.Second)

	// Item 7: moving in the menu answers nothing. Item 10: Claude's generic
	// notice some seconds later does not replace the precise reason.
	h.keys("Down")
	h.keys("Up")
	h.staysWhy("main", "waiting", "permission: Bash: touch live-file.txt", 9*time.Second)

	h.approve("Do you want to proceed?") // 1. Yes
	h.waitState("main", "idle", "hook:claude", "turn finished", 30*time.Second)
	if _, err := os.Stat(filepath.Join(h.proj, "live-file.txt")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	h.screenHas("LIVE-DONE", 10*time.Second)
	hist := h.explain("main")
	for _, want := range []string{"prompt submitted", "permission: Bash: touch live-file.txt", "turn finished"} {
		if !strings.Contains(hist, want) {
			t.Errorf("explain main lacks %q:\n%s", want, hist)
		}
	}

	// The model calls agentgrid's MCP tool; the pane appears.
	h.prompt(`CALL spawn_agent {"title":"from-mcp","argv":["sh","-c","echo spawned-by-mcp; sleep 600"]}`)
	h.waitState("main", "waiting", "hook:claude", "MCP agentgrid.spawn_agent", 30*time.Second)
	h.approve("Do you want to proceed?")
	h.waitFor(30*time.Second, func() bool {
		for _, a := range h.list() {
			if a.ID != "main" && a.Parent == "main" && a.State == "running" {
				return true
			}
		}
		return false
	}, "a pane spawned through the MCP tool")
	h.screenHas("spawned-by-mcp", 10*time.Second)
	h.waitState("main", "idle", "hook:claude", "turn finished", 30*time.Second)

	// Item 6: an API error ends the turn.
	h.prompt("FAIL 400")
	h.waitState("main", "idle", "hook:claude", "turn failed: API Error: 400", 30*time.Second)
	t.Logf("explain main:\n%s", h.explain("main"))
}

// staysWhy checks that agent id keeps state with a why containing why for d.
func (h *harness) staysWhy(id, state, why string, d time.Duration) {
	h.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if a, ok := h.agent(id); ok && (a.State != state || !strings.Contains(a.Why, why)) {
			h.t.Fatalf("%s left %s %q for %s (source %q, why %q)\nexplain:\n%s\nscreen:\n%s", id, state, why, a.State, a.Source, a.Why, h.explain(id), h.capture())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// prompt types text into the focused pane, waits until it shows, and
// presses Enter, as a user would.
func (h *harness) prompt(text string) {
	h.t.Helper()
	h.typeText(text)
	// Long prompts wrap in the CLI's input box: look for their start.
	h.screenHas(text[:min(len(text), 40)], 10*time.Second)
	// The CLI has taken the text (it drew it). Gemini CLI takes an Enter
	// that comes within 30 ms of the last typed character for part of a
	// paste and inserts a newline instead of submitting (seen in one run in
	// eight: the prompt stayed in its input box); a person's Enter never
	// comes that fast after the text is on screen, and neither does this one.
	time.Sleep(keystrokeGap)
	// Enter until a model request carries the text. A CLI still busy
	// finishing its start may take an Enter as part of what was typed, or
	// miss it (Codex, once in CI: the prompt stayed in its box with no
	// request made); a person who sees that presses Enter again. The next
	// Enter comes only after 5 s without a request, so it cannot answer a
	// menu that the reply to this prompt brings up.
	before := len(h.model.Requests())
	for range 3 {
		h.keys("Enter")
		deadline := time.Now().Add(scaled(5 * time.Second))
		for time.Now().Before(deadline) {
			for _, r := range h.model.Requests()[before:] {
				if strings.Contains(r.LastUser, text) {
					return
				}
			}
			time.Sleep(50 * time.Millisecond) // polling the model server, not synchronising
		}
		h.t.Logf("no model request carried %q 5 s after Enter; pressing Enter again", text)
	}
}

// keystrokeGap is the least time between a prompt shown and its Enter:
// well over Gemini CLI's 30 ms in which an Enter is taken for a pasted
// newline.
const keystrokeGap = 150 * time.Millisecond

// approve presses Enter on a permission menu showing question until the
// menu goes: a CLI may ignore keys for a moment after drawing a menu, so
// that a key meant for the prompt does not answer it.
func (h *harness) approve(question string) {
	h.t.Helper()
	h.approveUntil(question, func() bool { return false })
}

// approveUntil is approve that also stops once done reports the approved
// action's effect: Gemini CLI now and then keeps an answered question in
// its history above the result, so there the question's text staying on
// screen does not mean the Enter was not taken.
func (h *harness) approveUntil(question string, done func() bool) {
	h.t.Helper()
	h.screenHas(question, 10*time.Second)
	for i := 0; ; i++ {
		h.keys("Enter")
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) {
			if !strings.Contains(h.capture(), question) || done() {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		if i == 10 {
			h.t.Fatalf("the menu %q stayed after Enter\n%s", question, h.capture())
		}
	}
}

// TestClaudeFirstScreenMatchesTmux compares Claude Code's first screen in
// agentgrid's main view with the same program in plain tmux.
func TestClaudeFirstScreenMatchesTmux(t *testing.T) {
	h := claudeHarness(t)
	// The logo blinks: its eye is another glyph now and then (seen in a
	// warm run: "▐▛███▂█" beside "▐▛███▛█").
	masks := []*regexp.Regexp{regexp.MustCompile(`(?m)^ ▐\S*( +Claude Code v)`)}
	compareFirstScreen(t, h, "? for shortcuts", masks, nil, "claude")
}

// TestClaudeSpawnedKind starts Claude Code as a background agent of kind
// claude with a prompt, the way an orchestrator does, and answers its
// permission prompt through the socket.
func TestClaudeSpawnedKind(t *testing.T) {
	h := claudeHarness(t)
	h.start("sh")
	out, err := h.client("spawn", "--kind", "claude", "--title", "worker", "--cwd", h.proj, "--prompt", `CALL Bash {"command":"touch spawned-file.txt"}`)
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
	h.waitState(id, "waiting", "hook:claude", "permission: Bash: touch spawned-file.txt", 60*time.Second)
	// Item 10: the prompt's first model request offers agentgrid's MCP
	// tools: the prompt is typed once Claude Code has connected them, not
	// passed on its command line, where it went out before they were.
	first := -1
	reqs := h.model.Requests()
	for i, r := range reqs {
		if strings.Contains(r.LastUser, "touch spawned-file.txt") {
			first = i
			break
		}
	}
	if first < 0 {
		t.Fatalf("no model request carried the prompt")
	}
	if !slices.Contains(reqs[first].Tools, "mcp__agentgrid__spawn_agent") {
		t.Errorf("the prompt's first model request offers %d tools, none of agentgrid's: %v", len(reqs[first].Tools), reqs[first].Tools)
	}
	if ex := h.explain(id); !strings.Contains(ex, "prompt typed: claude's SessionStart hook ran and agentgrid's MCP tools were listed") {
		t.Errorf("explain %s does not say the prompt waited for the MCP tools:\n%s", id, ex)
	}
	// Claude may ignore a key right after drawing its menu: answer until
	// the tool has run.
	h.waitFor(30*time.Second, func() bool {
		if _, err := os.Stat(filepath.Join(h.proj, "spawned-file.txt")); err == nil {
			return true
		}
		_, _ = h.client("send", id, "\r")
		time.Sleep(time.Second)
		return false
	}, "the approved command to run")
	h.waitState(id, "idle", "hook:claude", "turn finished", 30*time.Second)
	t.Logf("explain %s:\n%s", id, h.explain(id))
}

// TestClaudeSpawnedLongPrompt: a long prompt of several lines, typed into
// a spawned Claude Code, reaches the model as it was given — not folded
// into Claude's <pasted_content> wrapper, as one long paste would be.
func TestClaudeSpawnedLongPrompt(t *testing.T) {
	h := claudeHarness(t)
	h.start("sh")
	prompt := "first line: é ü\nsecond " + strings.Repeat("lorem ipsüm ", 150) + "\nlast line"
	out, err := h.client("spawn", "--kind", "claude", "--title", "long", "--cwd", h.proj, "--prompt", prompt)
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(out)
	h.waitState(id, "idle", "hook:claude", "turn finished", 60*time.Second)
	reqs := h.model.Requests()
	if !slices.ContainsFunc(reqs, func(r modelserver.Request) bool { return r.LastUser == prompt }) {
		t.Fatalf("no model request carried the prompt as given (%d requests)", len(reqs))
	}
}

// TestClaudeTypedTextThenEnterSubmits types a prompt and presses Enter at
// once, as a fast typist or a script driving the outer terminal does: the
// prompt is submitted, as it is in plain tmux.
func TestClaudeTypedTextThenEnterSubmits(t *testing.T) {
	h := claudeHarness(t)
	h.start("claude")
	h.screenHas("? for shortcuts", 30*time.Second)
	h.waitState("main", "idle", "hook:claude", "session started", 30*time.Second)
	h.typeText("typed then enter")
	h.keys("Enter")
	h.waitState("main", "idle", "hook:claude", "turn finished", 30*time.Second)
	h.screenHas("LIVE-REPLY: typed then enter", 10*time.Second)
	// Text and Enter in one tmux command reach agentgrid in one write.
	h.keys("one write", "Enter")
	h.screenHas("LIVE-REPLY: one write", 30*time.Second)
	h.typeText("literal cr\r")
	h.screenHas("LIVE-REPLY: literal cr", 30*time.Second)
	if _, err := h.client("send", "main", "sent with enter", "--enter"); err != nil {
		t.Fatal(err)
	}
	h.screenHas("LIVE-REPLY: sent with enter", 30*time.Second)
}

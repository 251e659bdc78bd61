package live

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// codexHarness prepares a home in which Codex talks to the model server
// over the Responses API, trusts the project, and asks before commands
// that leave its sandbox.
func codexHarness(t *testing.T) *harness {
	h := newHarness(t, 140, 45)
	h.writeFile(".codex/config.toml", fmt.Sprintf(`model = "gpt-live"
model_provider = "live"
approval_policy = "on-request"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[model_providers.live]
name = "live"
base_url = "%s/v1"
wire_api = "responses"
env_key = "LIVE_API_KEY"

[projects.%q]
trust_level = "trusted"
`, h.model.URL, h.proj))
	h.typeText("export LIVE_API_KEY=dummy\n")
	return h
}

// escalate is a command call that needs the user's approval in Codex.
const escalate = `CALL exec_command {"cmd":"touch cx-file.txt","sandbox_permissions":"require_escalated","justification":"make a file"}`

// TestCodexMainView runs Codex as the main view through a turn with an
// approval: its lifecycle hooks (item 4) report running, waiting and idle;
// the title its side thread writes does not end the turn; and an Esc that
// closes a panel does not make the next turn 'interrupted' (item 5).
func TestCodexMainView(t *testing.T) {
	h := codexHarness(t)
	h.start("codex")
	// Codex asks once to trust hooks it has not seen.
	h.screenHas("Hooks need review", 60*time.Second)
	h.choose("2. Trust all and continue", "2")
	h.approve("Hooks need review")
	h.screenHas("Ask Codex", 30*time.Second)

	h.prompt(escalate)
	h.waitState("main", "waiting", "hook:codex", "permission: Bash: touch cx-file.txt", 30*time.Second)
	h.approve("Would you like to run the following command?")
	h.waitState("main", "idle", "hook:codex", "turn finished", 30*time.Second)
	h.screenHas("LIVE-DONE", 10*time.Second)

	// Esc closing a panel (the command menu), then a new turn: it runs and
	// finishes, not 'interrupted by user'.
	h.typeText("/")
	h.screenHas("/model", 10*time.Second)
	h.keys("Escape")
	h.waitFor(10*time.Second, func() bool { return !strings.Contains(h.capture(), "/model") }, "the command menu to close")
	h.keys("BSpace") // the "/" it leaves in the input
	h.prompt("hello there")
	h.waitState("main", "idle", "hook:codex", "turn finished", 30*time.Second)
	h.screenHas("LIVE-REPLY: hello there", 10*time.Second)

	// Item 9: text and Enter from outside submit the prompt.
	if _, err := h.client("send", "main", "sent from outside", "--enter"); err != nil {
		t.Fatal(err)
	}
	h.screenHas("LIVE-REPLY: sent from outside", 30*time.Second)
	h.waitState("main", "idle", "hook:codex", "turn finished", 30*time.Second)
	hist := h.explain("main")
	t.Logf("explain main:\n%s", hist)
	if a, _ := h.agent("main"); a.Why != "turn finished" {
		t.Errorf("after the second turn: %+v", a)
	}
}

// choose presses key until the menu on screen highlights option ("› "
// before it). Codex sometimes drops a key that comes right after it drew a
// menu (seen in one run in ten: the "2" was lost, and the Enter that
// followed opened "1. Review hooks" instead); pressing the option's digit
// again only selects it again.
func (h *harness) choose(option, key string) {
	h.t.Helper()
	h.screenHas(option, 10*time.Second)
	for i := 0; ; i++ {
		h.keys(key)
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) {
			if strings.Contains(h.capture(), "› "+option) {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		if i == 10 {
			h.t.Fatalf("the menu never highlighted %q after %q\n%s", option, key, h.capture())
		}
	}
}

package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestAgentsActOnlyWithinTheirRights runs the real CLI inside agents: a
// plain agent cannot type into the main view, cannot forge a sibling's
// state, and cannot get more by dropping its token and claiming to be the
// main view; it can close the agent it started; an agent of a kind granted
// "send" can type into the main view.
func TestAgentsActOnlyWithinTheirRights(t *testing.T) {
	h := newHarness(t, 160, 50, `
[kinds.boss]
command = ["sh"]
grants = ["send"]
`)
	h.startSession()
	sib := h.spawn("--title", "sibling", "--", "sleep", "1000")
	script := `agentgrid send main "echo OWNED-BY-AGENT" --enter; echo "send-main=$?"
agentgrid status set ` + sib + ` "waiting: permission: rm -rf /"; echo "status-sibling=$?"
c=$(agentgrid spawn --title child -- sleep 1000) && agentgrid close "$c"; echo "close-child=$?"
AGENTGRID_AGENT_ID=main AGENTGRID_TOKEN= agentgrid send main "echo OWNED-NO-TOKEN" --enter; echo "no-token=$?"
AGENTGRID_TOKEN=0000000000000000 agentgrid close ` + sib + `; echo "forged-token=$?"
echo done; sleep 1000`
	plain := h.spawn("--title", "plain", "--", "sh", "-c", script)
	var out string
	h.waitFor(20*time.Second, func() bool {
		out, _ = h.client("capture", plain)
		return strings.Contains(out, "done")
	}, "the plain agent's script to finish")
	for _, want := range []string{"send-main=1", "status-sibling=1", "close-child=0", "no-token=1", "forged-token=1"} {
		if !strings.Contains(out, want) {
			t.Errorf("the plain agent's screen lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "may not send to agent main") || !strings.Contains(out, "carries no token") {
		t.Errorf("the refusals do not say why:\n%s", out)
	}
	child, ok := h.agent("a3")
	if !ok || child.State != "killed" {
		t.Errorf("the plain agent's child is %+v, want killed", child)
	}
	// Running, or idle once sleep has been quiet for agents.idle_after (5 s,
	// which a loaded machine reaches here); never the forged "waiting".
	if s, ok := h.agent(sib); !ok || s.State != "running" && s.State != "idle" {
		t.Errorf("the sibling is %+v, want it running or idle, untouched", s)
	}

	boss := h.spawn("--kind", "boss", "--", "sh", "-c", `agentgrid send main "echo BOSS-WAS-HERE" --enter; echo "boss=$?"; sleep 1000`)
	h.waitFor(20*time.Second, func() bool {
		main, _ := h.client("capture", "main")
		return strings.Contains(main, "\nBOSS-WAS-HERE")
	}, "the granted agent's text to run in the main view")
	if main, _ := h.client("capture", "main"); strings.Contains(main, "\nOWNED") {
		t.Errorf("a plain agent's text ran in the main view:\n%s", main)
	}
	if out, _ := h.client("capture", boss); !strings.Contains(out, "boss=0") {
		t.Errorf("the boss agent's screen: %s", out)
	}
}

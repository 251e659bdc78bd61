package live

import (
	"strings"
)

// dumpOnFailure logs what a failed test needs to be understood from its -v
// output alone: the tmux window as last read and as it is now, every
// agent's record (`list --json`, `explain`) and screen (`capture`, the
// pane as agentgrid's emulator holds it), and every request the model
// server saw with the tools it was offered. It runs before the session is
// ended, so the processes are still there to be asked.
func (h *harness) dumpOnFailure() {
	t := h.t
	t.Logf("FAILURE DUMP of %s", t.Name())
	t.Logf("tmux window, last read by the test:\n%s", h.lastScreen())
	t.Logf("tmux window now:\n%s", h.capture())
	if out, err := h.client("list", "--json"); err != nil {
		t.Logf("agentgrid list --json: %v", err)
	} else {
		t.Logf("agentgrid list --json:\n%s", out)
	}
	ids := []string{"main"}
	for _, a := range h.list() {
		if a.ID != "main" {
			ids = append(ids, a.ID)
		}
	}
	for _, id := range ids {
		t.Logf("agentgrid explain %s:\n%s", id, h.explain(id))
		if out, err := h.client("capture", id); err != nil {
			t.Logf("agentgrid capture %s: %v", id, err)
		} else {
			t.Logf("agentgrid capture %s:\n%s", id, out)
		}
	}
	for i, r := range h.model.Requests() {
		t.Logf("model request %d: %s %s tools=%d [%s] last user=%q tool result=%v", i+1, r.API, r.Path, len(r.Tools), strings.Join(r.Tools, " "), firstLine(r.LastUser), r.ToolResult)
	}
}

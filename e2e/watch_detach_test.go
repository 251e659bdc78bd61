package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestWatchDetachSaysHowToLookAgain: ctrl+b d in a watching terminal tells
// the watcher to come back with agentgrid watch, not with a read-write
// attach; the session runs on.
func TestWatchDetachSaysHowToLookAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30, "")
	h.startSession("--", "sh")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "│"+strings.TrimSpace(prompt)) }, "the shell prompt in the main view")
	ro := h.newTerminal("ro", 80, 24)
	ro.run("agentgrid watch " + h.session)
	ro.waitFor(func(s string) bool { return strings.Contains(s, "┌─ 0") }, "the watching terminal's screen")
	ro.keys("C-b", "d")
	want := "[stopped watching session " + h.session + "; agentgrid watch " + h.session + " to look again]"
	ro.waitFor(func(s string) bool { return strings.Contains(strings.Join(strings.Fields(s), " "), want) }, "the watcher's detach message")
	if ss, err := h.sessions(); err != nil || len(ss) != 1 || ss[0].Clients != 1 {
		t.Fatalf("agentgrid ls after the watcher left: %+v, %v; want the session with its one client", ss, err)
	}
}

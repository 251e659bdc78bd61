package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestKillSessionEndsTheSessionAndItsAgents: agentgrid kill-session NAME,
// run from outside, ends the session as quitting it does: an agent that
// ignores SIGHUP and SIGTERM is gone too, the attached terminal says the
// session ended and gets its shell back, and agentgrid ls lists nothing.
// Run from inside the session without the name, it refuses.
func TestKillSessionEndsTheSessionAndItsAgents(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 35, "")
	h.startSession("--", "sh")
	id := h.spawn("--title", "stubborn", "--", "sh", "-c", `trap "" HUP TERM; echo stubborn-up; while :; do sleep 1; done`)
	var pid int
	h.waitFor(10*time.Second, func() bool {
		a, ok := h.agent(id)
		pid = a.PID
		return ok && pid > 0
	}, "the stubborn agent to start")

	// h.client runs with AGENTGRID_SOCKET set, as an agent of the session
	// would: without a name it does not end its own session.
	if out, err := h.client("kill-session"); err == nil || !strings.Contains(err.Error(), "name it: agentgrid kill-session "+h.session) {
		t.Fatalf("kill-session without a name from inside the session: %q, %v", out, err)
	}
	if _, err := h.client("list"); err != nil {
		t.Fatalf("the session is gone after a refused kill-session: %v", err)
	}

	out := h.mustClient("kill-session", h.session)
	if want := "session " + h.session + " ended (1 agent hung up)"; !strings.Contains(out, want) {
		t.Errorf("kill-session printed %q, want %q", out, want)
	}
	if alive(pid) {
		t.Errorf("the agent that ignores SIGHUP (process %d) outlived kill-session", pid)
	}
	if ss, err := h.sessions(); err != nil || len(ss) != 0 {
		t.Errorf("after kill-session, agentgrid ls lists %v (%v)", ss, err)
	}
	h.waitFor(10*time.Second, func() bool {
		return strings.Contains(h.capture(), "[session "+h.session+" ended]")
	}, "the attached terminal to say the session ended")
	if _, err := h.client("kill-session", h.session); err == nil || !strings.Contains(err.Error(), "no agentgrid session named "+h.session) {
		t.Errorf("kill-session of a session that is not running: %v", err)
	}
}

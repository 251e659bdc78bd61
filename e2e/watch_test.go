package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestWatchMirrorsTheSession runs agentgrid watch in a second, smaller
// terminal of its own: it shows the session's screen live and cropped, q
// gives that terminal back with the session still running, and a watcher
// started again is told when the session ends.
func TestWatchMirrorsTheSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 40, "")
	h.startSession("--", "sh")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "│"+strings.TrimSpace(prompt)) },
		"the shell prompt inside the main view")
	h.typeText("echo watched-$((6*7))")
	h.keys("Enter")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "watched-42") }, "the command's output in the session")

	// The second person's terminal: another tmux session of the same server,
	// 100x30, with the same clean environment.
	args := append([]string{"new-session", "-d", "-s", "watch", "-x", "100", "-y", "30", "env", "-i"}, h.env...)
	h.mustTmux(append(args, "/bin/sh")...)
	watchScreen := func() string {
		out, _ := h.tmux("capture-pane", "-p", "-t", "watch")
		return out
	}
	waitWatch := func(cond func(string) bool, what string) {
		t.Helper()
		waitFor(t, 15*time.Second, func() bool { return cond(watchScreen()) }, what, watchScreen)
	}
	waitWatch(func(s string) bool { return strings.Contains(s, strings.TrimSpace(prompt)) }, "the watcher's shell prompt")
	startWatch := func() {
		t.Helper()
		h.mustTmux("send-keys", "-t", "watch", "-l", "agentgrid watch "+h.session)
		h.mustTmux("send-keys", "-t", "watch", "Enter")
	}
	startWatch()
	waitWatch(func(s string) bool {
		return strings.Contains(s, "watched-42") && strings.Contains(s, "watching "+h.session+", read-only") &&
			strings.Contains(s, "cropped: enlarge this terminal to 120x40")
	}, "the session's screen, cropped, in the watcher")

	// Live: what happens in the session next shows up too.
	h.typeText("echo live-$((50+5))")
	h.keys("Enter")
	waitWatch(func(s string) bool { return strings.Contains(s, "live-55") }, "new output of the session in the watcher")

	// q stops watching; the session keeps running.
	h.mustTmux("send-keys", "-t", "watch", "q")
	waitWatch(func(s string) bool {
		return !strings.Contains(s, "read-only") && strings.Contains(s, strings.TrimSpace(prompt))
	},
		"the watcher's shell back after q")
	if _, err := h.client("list"); err != nil {
		t.Fatalf("the session stopped when the watcher did: %v", err)
	}

	// Watching again, then the session quits: the watcher says so and ends.
	startWatch()
	waitWatch(func(s string) bool { return strings.Contains(s, "read-only") }, "the watcher again")
	// With no agent running, quitting does not ask.
	h.prefix("q")
	waitWatch(func(s string) bool {
		return strings.Contains(s, "agentgrid watch: session "+h.session+" ended") && !strings.Contains(s, "read-only")
	}, "the watcher to report the end of the session")
}

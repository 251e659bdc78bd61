package e2e

import (
	"strings"
	"testing"
	"time"
)

// bellAfterDone spawns an agent that ends at once while agentgrid's window
// is not the outer tmux's current one, waits until agentgrid drew it
// finished, and reports whether agentgrid rang the outer terminal's bell
// (tmux's window_bell_flag). The bell is written by a command of the frame
// that shows the end, so it reaches the terminal just after that frame:
// with want, the flag is waited for; without, it is read once a later
// frame (the main view's echo of a line typed after the end showed) is on
// screen.
func bellAfterDone(t *testing.T, config string, want bool) bool {
	h := newHarness(t, 120, 30, config)
	h.startSession("--", "sh")
	// Another window becomes current, so a bell in agentgrid's is flagged.
	h.mustTmux("new-window", "-d", "-t", "e2e", "sleep 600")
	h.mustTmux("select-window", "-t", "e2e:1")
	flag := func() string {
		out, _ := h.tmux("display-message", "-p", "-t", "e2e:0", "#{window_bell_flag}")
		return strings.TrimSpace(out)
	}
	if f := flag(); f != "0" {
		t.Fatalf("the bell flag is %q before the agent ran", f)
	}
	h.spawn("--title", "quick", "--", "true")
	h.waitFor(15*time.Second, func() bool {
		out, _ := h.tmux("capture-pane", "-p", "-t", "e2e:0")
		return strings.Contains(out, "✓ exit 0")
	}, "the finished agent on agentgrid's screen")
	if want {
		rang := false
		waitFor(t, 10*time.Second, func() bool { rang = flag() == "1"; return rang }, "the bell flag of agentgrid's window", flag)
		return rang
	}
	h.mustTmux("send-keys", "-t", "e2e:0", "-l", "echo later-$((2+3))")
	h.mustTmux("send-keys", "-t", "e2e:0", "Enter")
	h.waitFor(15*time.Second, func() bool {
		out, _ := h.tmux("capture-pane", "-p", "-t", "e2e:0")
		return strings.Contains(out, "later-5")
	}, "a later frame: the main view's echo")
	return flag() == "1"
}

// [ui] notify_on = ["done"] rings the outer terminal's bell when an agent
// finishes, even one that started and ended between two frames; by
// default (waiting only) it does not.
func TestBellOnDoneOnlyWhenConfigured(t *testing.T) {
	t.Parallel()
	t.Run("done", func(t *testing.T) {
		t.Parallel()
		if !bellAfterDone(t, "[ui]\nnotify_on = [\"waiting\", \"done\"]\n", true) {
			t.Error("notify_on has done, yet no bell when the agent finished")
		}
	})
	t.Run("default", func(t *testing.T) {
		t.Parallel()
		if bellAfterDone(t, "", false) {
			t.Error("notify_on is waiting only, yet the bell rang when the agent finished")
		}
	})
}

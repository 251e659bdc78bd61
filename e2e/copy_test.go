package e2e

import (
	"strings"
	"testing"
	"time"
)

// printsSecret prints a line to copy and, once Enter is pressed (the UI
// runs by then), asks for the clipboard itself (OSC 52 with "pane-secret"),
// then prints a line that shows the request was read.
const printsSecret = `printf 'copy-me-42\n'; read x; printf '\033]52;c;cGFuZS1zZWNyZXQ=\007'; printf 'after-osc52\n'; exec sleep 600`

// tmuxBuffers lists the outer tmux's paste buffers: with set-clipboard on,
// every OSC 52 agentgrid writes to its terminal lands there.
func (h *harness) tmuxBuffers() string {
	out, _ := h.tmux("list-buffers", "-F", "#{buffer_sample}")
	return out
}

// Copying in scrollback mode (prefix [, h, k, k, k, v, $, y) puts the text on the
// outer terminal's clipboard (OSC 52, which the outer tmux turns into a
// buffer) and in the session's paste buffers (agentgrid paste); the pane's
// own OSC 52 request reaches neither by default.
func TestCopyReachesClipboardAndPaste(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 20, "")
	h.mustTmux("set", "-s", "set-clipboard", "on")
	h.startSession("--", "sh", "-c", printsSecret)
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "copy-me-42") }, "the pane's first line")
	h.keys("Enter")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "after-osc52") }, "the pane's output after its OSC 52")
	if _, err := h.client("paste"); err == nil {
		t.Error("agentgrid paste succeeded before anything was copied")
	}
	h.prefix("[")
	// The copy cursor starts at the pane's cursor, three rows below the line.
	for _, k := range []string{"h", "k", "k", "k", "v", "$", "y"} {
		h.keys(k)
	}
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.tmuxBuffers(), "copy-me-42") }, "the copy on the outer terminal's clipboard")
	if out := h.mustClient("paste"); out != "copy-me-42" {
		t.Errorf("agentgrid paste printed %q, want %q", out, "copy-me-42")
	}
	if b := h.tmuxBuffers(); strings.Contains(b, "pane-secret") {
		t.Errorf("the pane's own OSC 52 reached the outer terminal with pane_osc52 off: buffers %q", b)
	}
}

// With [clipboard] pane_osc52 = "write" the pane's own OSC 52 goes on to
// the outer terminal: the other half of the test above, which shows that
// the outer tmux would have seen it.
func TestPaneOSC52ForwardedWhenAllowed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 20, "[clipboard]\npane_osc52 = \"write\"\n")
	h.mustTmux("set", "-s", "set-clipboard", "on")
	h.startSession("--", "sh", "-c", printsSecret)
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "copy-me-42") }, "the pane's first line")
	h.keys("Enter")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.tmuxBuffers(), "pane-secret") }, "the pane's OSC 52 on the outer terminal's clipboard")
}

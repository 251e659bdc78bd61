package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestPaneNumbersZoomAndLayoutFeedback drives the real binary as a user
// would: pane numbers stay when a pane closes (a3 is 3 after a2 went), the
// go-to prompt reaches an agent that waits off screen, zoom is marked on
// the border and the status line, a focus change unzooms, and cycling the
// layout names the new one on the status line.
func TestPaneNumbersZoomAndLayoutFeedback(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 30, "")
	h.startSession("--", "sh")
	var ids []string
	for _, title := range []string{"one", "two", "three", "four", "five"} {
		ids = append(ids, h.spawn("--title", title, "--", "cat"))
	}
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "─ 2 two ") }, "pane 2 on screen")
	h.mustClient("close", ids[1])
	h.waitFor(10*time.Second, func() bool {
		s := h.capture()
		return !strings.Contains(s, " two ") && strings.Contains(s, "─ 1 one ") && strings.Contains(s, "─ 3 three ")
	}, "a1 and a3 keeping their numbers after a2 closed")

	// a5 waits off screen at this size; the prompt brings it in by number.
	h.prefix("'")
	h.waitFor(5*time.Second, func() bool { return strings.Contains(h.capture(), "go to agent:") }, "the go-to prompt")
	h.typeText("5")
	h.keys("Enter")
	h.waitFor(10*time.Second, func() bool {
		return strings.HasSuffix(strings.TrimSpace(statusLine(h.capture())), "five") && strings.Contains(h.capture(), "─ 5 five ")
	}, "a5 shown and focused as pane 5")

	h.prefix("z")
	h.waitFor(5*time.Second, func() bool {
		s := h.capture()
		return strings.Contains(strings.SplitN(s, "\n", 2)[0], " zoomed ") && strings.Contains(statusLine(s), "zoomed")
	}, "zoom marked on the border and the status line")
	h.prefix("1")
	h.waitFor(5*time.Second, func() bool {
		s := h.capture()
		return !strings.Contains(s, "zoomed") && strings.Contains(s, "─ 0 sh ") && strings.HasSuffix(strings.TrimSpace(statusLine(s)), "one")
	}, "prefix 1 while zoomed: unzoomed, focus on pane 1")

	h.prefix("Space")
	h.waitFor(5*time.Second, func() bool { return strings.Contains(statusLine(h.capture()), "layout: ") }, "the new layout named on the status line")
	h.waitFor(10*time.Second, func() bool { return !strings.Contains(statusLine(h.capture()), "layout: ") }, "the layout's name to go after a few seconds")
}

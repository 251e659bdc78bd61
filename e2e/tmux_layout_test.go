package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A tool in the main view runs `tmux select-layout main-horizontal`: with
// [tmux] follow_layout on, the agent beside the main view moves below it on
// the real screen (and in the shim's list-panes geometry); with the setting
// off (the default) the call succeeds and the screen keeps the user's layout.
func TestTmuxSelectLayoutFollowsOnlyWhenConfigured(t *testing.T) {
	for _, follow := range []bool{false, true} {
		name := "off"
		cfg := ""
		if follow {
			name, cfg = "on", "[tmux]\nfollow_layout = true\n"
		}
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, 120, 30, cfg)
			h.startSession("--", "sh")
			id := h.spawn("--title", "side", "--", "sh", "-c", "echo SIDE-MARK; exec sleep 600")
			// markAt finds the agent's output on the outer terminal's screen.
			markAt := func() (row, col int) {
				for i, line := range strings.Split(h.capture(), "\n") {
					if c := strings.Index(line, "SIDE-MARK"); c >= 0 {
						return i, len([]rune(line[:c]))
					}
				}
				return -1, -1
			}
			// agentgrid's default layout is main-vertical: the agent on the right.
			h.waitFor(15*time.Second, func() bool { _, c := markAt(); return c >= 50 }, "the agent's output right of the main view")
			h.typeText(`tmux select-layout main-horizontal; echo "layout=$?"; tmux display-message -p -t %1 'geo=#{pane_left},#{pane_top}'`)
			h.keys("Enter")
			h.waitFor(15*time.Second, func() bool { return strings.Contains(h.capture(), "layout=0") }, "select-layout to exit 0")
			// geo is the shim's answer for the agent's pane (its top left cell).
			var left, top int
			h.waitFor(15*time.Second, func() bool {
				m := regexp.MustCompile(`geo=(\d+),(\d+)`).FindStringSubmatch(h.capture())
				if m == nil {
					return false
				}
				left, _ = strconv.Atoi(m[1])
				top, _ = strconv.Atoi(m[2])
				return true
			}, "display-message's answer")
			if !follow {
				if r, c := markAt(); c < 50 || r > 2 || left < 50 || top > 2 {
					t.Fatalf("with follow_layout off the agent moved: screen row %d column %d, shim geometry %d,%d", r, c, left, top)
				}
				return
			}
			if left > 1 || top < 10 {
				t.Errorf("the shim places %s at %d,%d after select-layout main-horizontal, want the left edge below the main view", id, left, top)
			}
			h.waitFor(15*time.Second, func() bool { r, c := markAt(); return c < 10 && r > 10 }, "the agent's output below the main view")
			// Alive: running, or idle once sleep has been quiet for
			// agents.idle_after (5 s, which a loaded machine reaches here).
			if a, _ := h.agent(id); a.State != "running" && a.State != "idle" {
				t.Fatalf("%s is %s after the layout change", id, a.State)
			}
		})
	}
}

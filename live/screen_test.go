package live

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// plainScreen runs argv in a plain tmux window of cols x rows with the
// harness's environment and working folder, waits until its screen shows
// ready, and returns the screen once it stops changing.
func (h *harness) plainScreen(t *testing.T, cols, rows int, ready string, argv ...string) string {
	t.Helper()
	server := fmt.Sprintf("%s-plain%d", h.server, plainSeq.Add(1))
	tm := func(args ...string) (string, error) {
		cmd := exec.Command("tmux", append([]string{"-L", server, "-f", "/dev/null"}, args...)...)
		cmd.Env = h.tmuxEnv
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	args := []string{"new-session", "-d", "-s", "plain", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "-c", h.proj, "env", "-i"}
	args = append(append(append(args, h.env...), h.plainEnv...), argv...)
	if out, err := tm(args...); err != nil {
		t.Fatalf("plain tmux: %v: %s", err, out)
	}
	t.Cleanup(func() { _, _ = tm("kill-server") })
	capture := func() string { out, _ := tm("capture-pane", "-p", "-t", "plain"); return out }
	return settled(t, capture, ready, "the plain tmux screen")
}

var plainSeq atomic.Int64

// settled waits until capture shows ready and then returns the screen once
// three captures 500 ms apart agree: a CLI still drawing its first screen
// on a loaded machine can hold one frame for more than half a second.
func settled(t *testing.T, capture func() string, ready, what string) string {
	t.Helper()
	deadline := time.Now().Add(scaled(60 * time.Second))
	prev, same := "", 0
	for time.Now().Before(deadline) {
		s := capture()
		if s == prev {
			same++
		} else {
			same = 0
		}
		if strings.Contains(s, ready) && same >= 2 {
			return s
		}
		prev = s
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("%s did not settle showing %q:\n%s", what, ready, prev)
	return ""
}

// sameScreen compares two screens line by line, trailing blanks ignored.
func sameScreen(a, b string) error {
	la := strings.Split(strings.TrimRight(a, "\n "), "\n")
	lb := strings.Split(strings.TrimRight(b, "\n "), "\n")
	n := max(len(la), len(lb))
	var diffs []string
	for i := 0; i < n; i++ {
		var x, y string
		if i < len(la) {
			x = strings.TrimRight(la[i], " ")
		}
		if i < len(lb) {
			y = strings.TrimRight(lb[i], " ")
		}
		if x != y {
			diffs = append(diffs, fmt.Sprintf("line %d:\n  agentgrid %q\n  tmux      %q", i+1, x, y))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%d lines differ:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
	return nil
}

// compareFirstScreen starts argv as agentgrid's main view and in plain
// tmux at the main pane's size and compares the two first screens.
// masks are what may differ between the two screens: text a CLI picks at
// random; added is text agentgrid's wiring adds to its screen (the MCP
// server's status), blanked there before comparing.
func compareFirstScreen(t *testing.T, h *harness, ready string, masks []*regexp.Regexp, added []string, argv ...string) {
	t.Helper()
	h.start(argv...)
	mine := settled(t, func() string { out, _ := h.client("capture", "main"); return out }, ready, "agentgrid's main pane")
	out, err := h.tmux("display-message", "-p", "-t", h.window, "#{window_width} #{window_height}")
	if err != nil {
		t.Fatal(err)
	}
	var width, height int
	fmt.Sscan(out, &width, &height)
	// The main view alone fills the window inside its border, above the
	// status line.
	for _, a := range added {
		mine = strings.Replace(mine, a, strings.Repeat(" ", len([]rune(a))), 1)
	}
	for _, m := range masks {
		mine = m.ReplaceAllString(mine, "…")
	}
	// A CLI's first screen is not always the same in plain tmux either
	// (seen with Gemini CLI under load: its banner cleared away once in
	// several runs): a difference counts when three plain runs show it.
	for range 3 {
		theirs := h.plainScreen(t, width-2, height-3, ready, argv...)
		for _, m := range masks {
			theirs = m.ReplaceAllString(theirs, "…")
		}
		if err = sameScreen(mine, theirs); err == nil {
			return
		}
		t.Logf("the first screen of %s differs from a plain tmux run: %v", argv[0], err)
	}
	t.Errorf("the first screen of %s differs from plain tmux in three runs: %v", argv[0], err)
}
